"""The entry point and what the app keeps between runs (window geometry only)."""

from __future__ import annotations

from PySide6.QtCore import QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

from domain_drafter.gui import app as gui_app
from domain_drafter.gui.main_window import MainWindow, settings


def test_main_runs_the_app_until_its_window_closes(qtbot, private_homes):
    shown: list[MainWindow] = []

    def close_when_loaded() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if windows and windows[0].domain_panel.domain_count() == 9 and not windows[0].runner.busy:
            shown.append(windows[0])
            windows[0].close()
        else:
            QTimer.singleShot(20, close_when_loaded)

    QTimer.singleShot(0, close_when_loaded)
    QTimer.singleShot(20_000, QApplication.quit)   # a guard: never hang the test run
    assert gui_app.main([]) == 0
    assert len(shown) == 1
    assert QApplication.desktopFileName() == gui_app.APPLICATION_ID == "io.github.domaindrafter.DomainDrafter"
    assert QApplication.applicationName() == gui_app.APPLICATION_NAME
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def test_the_window_geometry_is_restored_and_nothing_else_is_stored(qtbot, private_homes):
    first = MainWindow(load=False)
    qtbot.addWidget(first)
    first.show()
    first.resize(first.width(), 560)   # (the offscreen screen is 800 px wide: widths get clamped)
    saved_size = first.size()
    first.close()
    assert settings().allKeys() == ["geometry"]
    second = MainWindow(load=False)
    qtbot.addWidget(second)
    assert second.height() == saved_size.height() == 560   # (restoreGeometry fits the width to the screen)
