"""GUI fixtures: a real MainWindow on the real engine, a tiny real GGUF model, private caches.

Everything runs offscreen (tests/conftest.py sets QT_QPA_PLATFORM); nothing is mocked.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from gui_helpers import SCREEN_HEIGHT, SCREEN_WIDTH


def _offscreen_laptop_screen() -> None:
    """Give the offscreen platform a 1280x800 screen (its default is 800x600), before the QApplication exists.

    The layout tests check the window on the smallest screen it must fit. Set here, at import, because
    pytest-qt creates one QApplication for the whole session.
    """
    if os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        return
    folder = Path(tempfile.mkdtemp(prefix="drafter-screen-"))
    config = folder / "screen.json"
    config.write_text(json.dumps({"windowFrameMargins": False, "screens": [{"name": "Laptop", "x": 0, "y": 0, "width": SCREEN_WIDTH,
                                                "height": SCREEN_HEIGHT, "logicalDpi": 96, "logicalBpi": 96,
                                                "dpr": 1}]}), encoding="utf-8")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


_offscreen_laptop_screen()


@pytest.fixture(scope="session")
def gui_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache (reference plans, verdicts, the assembled default model) for all GUI tests."""
    return tmp_path_factory.mktemp("gui-cache")


@pytest.fixture(autouse=True)
def private_homes(gui_cache: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's cache and settings untouched. The config folder (settings.json, gui.conf with
    the window geometry and recent domains) is each test's own, so no test sees a window state or a
    setting that an earlier test saved: the tests pass in any order."""
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(gui_cache))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("gui-config")))


@pytest.fixture
def window(qtbot, private_homes):
    """The main window, shown, once the bundled domains are listed; closed (workers stopped) after."""
    from gui_helpers import open_main_window

    from domain_drafter.gui.state.settings import AppSettings

    win = open_main_window(qtbot, AppSettings(preload_model=False))
    yield win
    win.close()


@pytest.fixture(autouse=True)
def modal_dialog_guard(request):
    """Offscreen nobody answers a modal dialog: one left open (by a test that failed before it could
    answer it, or by a close at teardown that asks about unsaved work) would hang the whole run.
    A modal dialog that stays up for 5 s is rejected (Cancel), and the test is failed for it."""
    if "qtbot" not in request.fixturenames and "window" not in request.fixturenames:
        yield []
        return
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    seen = {"widget": None, "ticks": 0}
    rejected: list[str] = []

    def tick() -> None:
        box = QApplication.activeModalWidget()
        if box is None or box is not seen["widget"]:
            seen.update(widget=box, ticks=0)
            return
        seen["ticks"] += 1
        if seen["ticks"] >= 5:
            rejected.append(f"{type(box).__name__} '{box.windowTitle()}'")
            seen.update(widget=None, ticks=0)
            box.reject()

    timer = QTimer()
    timer.setInterval(1000)
    timer.timeout.connect(tick)
    timer.start()
    yield rejected
    timer.stop()
    assert not rejected, f"a modal dialog stayed open unanswered and was rejected: {rejected}"
