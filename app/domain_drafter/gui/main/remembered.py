"""What the window remembers between runs, in QSettings (gui.conf in the config folder).

Only the window's geometry, its splitters' sizes and the recent domains live here (and, from
state/folders.py, the folder each kind of file dialog opens in); the
settings that change what the engine does are in state/settings.py (a JSON file).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter

from domain_drafter.gui.main.geometry import Placement, Rect, first_placement, fits_a_screen
from domain_drafter.gui.state.folders import gui_settings

RECENT_LIMIT = 8


def to_rect(r: QRect) -> Rect:
    return Rect(r.x(), r.y(), r.width(), r.height())


def available_screens() -> list[Rect]:
    return [to_rect(s.availableGeometry()) for s in QGuiApplication.screens()]


class WindowState:
    """Restores and saves a main window's geometry, splitters and recent domains."""

    def __init__(self, window: QMainWindow, splitters: dict[str, QSplitter]):
        self.window = window
        self.splitters = splitters
        self.maximise = False   # what show_fitted() should do

    # --- geometry --------------------------------------------------------------------------
    def restore(self) -> None:
        """Saved geometry if it still fits a screen, else a first placement from the available area."""
        store = gui_settings()
        saved = Rect.from_value(store.value("window/rect"))
        geometry = store.value("window/geometry")
        if saved is not None and isinstance(geometry, QByteArray) and fits_a_screen(saved, available_screens()):
            self.window.restoreGeometry(geometry)
            self.maximise = bool(store.value("window/maximised", False, type=bool))
        else:
            self.place(self.first_placement())
        for name, splitter in self.splitters.items():
            state = store.value(f"splitters/{name}")
            if isinstance(state, QByteArray) and not state.isEmpty():
                splitter.restoreState(state)

    def first_placement(self) -> Placement:
        screen = self.window.screen() or QGuiApplication.primaryScreen()
        return first_placement(to_rect(screen.availableGeometry()))

    def place(self, placement: Placement) -> None:
        r = placement.rect
        self.window.resize(r.width, r.height)
        self.window.move(r.x, r.y)
        self.maximise = placement.maximised

    def show_fitted(self) -> None:
        if self.maximise:
            self.window.showMaximized()
        else:
            self.window.show()

    def save(self) -> None:
        store = gui_settings()
        store.setValue("window/geometry", self.window.saveGeometry())
        store.setValue("window/maximised", self.window.isMaximized())
        frame = self.window.normalGeometry() if self.window.isMaximized() else self.window.frameGeometry()
        store.setValue("window/rect", to_rect(frame).to_list())
        for name, splitter in self.splitters.items():
            store.setValue(f"splitters/{name}", splitter.saveState())

    # --- recent domains --------------------------------------------------------------------
    @staticmethod
    def recent_domains() -> list[str]:
        value = gui_settings().value("recent/domains", [])
        if isinstance(value, str):   # QSettings gives a one-element list back as a plain string
            value = [value]
        return [str(v) for v in value or [] if v]

    @staticmethod
    def add_recent_domain(path: str | Path) -> list[str]:
        """Put `path` first in the recent domains (at most RECENT_LIMIT, no duplicates)."""
        path = str(Path(path).expanduser().resolve())
        recent = [p for p in WindowState.recent_domains() if p != path]
        recent.insert(0, path)
        recent = recent[:RECENT_LIMIT]
        gui_settings().setValue("recent/domains", recent)
        return recent

    @staticmethod
    def clear_recent_domains() -> None:
        gui_settings().remove("recent/domains")
