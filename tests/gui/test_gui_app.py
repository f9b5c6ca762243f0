"""The entry point, the window's first placement, and what the window keeps between runs."""

from __future__ import annotations

from gui_helpers import SCREEN_HEIGHT, SCREEN_WIDTH
from PySide6.QtCore import QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

from domain_drafter.gui import app as gui_app
from domain_drafter.gui.main.geometry import MAXIMISE_BELOW_WIDTH, Placement, Rect, first_placement, fits_a_screen
from domain_drafter.gui.main.remembered import gui_settings as settings
from domain_drafter.gui.main.window import MainWindow
from domain_drafter.gui.state.settings import AppSettings, save_settings


def test_main_runs_the_app_until_its_window_closes(qtbot, private_homes):
    save_settings(AppSettings(preload_model=False))   # the default model is not assembled in this test's cache
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
    assert shown[0].isMaximized()   # a 1280 px screen: below MAXIMISE_BELOW_WIDTH
    assert QApplication.desktopFileName() == gui_app.APPLICATION_ID == "io.github.domaindrafter.DomainDrafter"
    assert QApplication.applicationName() == gui_app.APPLICATION_NAME
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def test_the_window_icon_is_the_application_id_svg_when_it_exists(qapp):
    path = gui_app.icon_path()
    assert path.name == "io.github.domaindrafter.DomainDrafter.svg"
    gui_app.set_application_icon()
    if path.is_file():
        assert not QApplication.windowIcon().isNull()


def test_first_placement_maximises_below_1440_px_and_centres_above():
    laptop = Rect(0, 0, 1280, 770)
    assert first_placement(laptop) == Placement(laptop, True)
    assert first_placement(Rect(0, 0, MAXIMISE_BELOW_WIDTH - 1, 900)).maximised
    big = first_placement(Rect(0, 30, 1920, 1050))
    assert not big.maximised
    assert Rect(0, 30, 1920, 1050).contains(big.rect)
    assert big.rect.x - 0 == 1920 - big.rect.right   # centred
    assert big.rect.width >= 1440


def test_a_saved_frame_fits_only_inside_some_screen():
    screens = [Rect(0, 0, 1280, 800), Rect(1280, 0, 1920, 1080)]
    assert fits_a_screen(Rect(1300, 20, 1800, 1000), screens)
    assert not fits_a_screen(Rect(0, 0, 1480, 900), screens[:1])     # the window on a 1280x800 screen
    assert fits_a_screen(Rect(-8, -8, 1296, 816), screens[:1])       # a frame's shadow may overhang
    assert Rect.from_value(["1", "2", "30", "40"]) == Rect(1, 2, 30, 40)
    assert Rect.from_value("junk") is None and Rect.from_value([0, 0, 0, 5]) is None


def test_on_the_laptop_screen_the_first_window_is_maximised(qtbot, private_homes):
    window = MainWindow(load=False)
    qtbot.addWidget(window)
    assert window.window_state.maximise
    window.show_fitted()
    qtbot.waitUntil(window.isMaximized)
    assert window.width() <= SCREEN_WIDTH and window.height() <= SCREEN_HEIGHT


def test_geometry_and_splitters_are_restored_and_nothing_else_is_stored(qtbot, private_homes):
    first = MainWindow(load=False)
    qtbot.addWidget(first)
    first.show()
    first.resize(1100, 700)
    first.main_splitter.setSizes([150, 500, 450])
    sizes = first.main_splitter.sizes()
    first.close()
    assert sorted(settings().allKeys()) == ["splitters/answer", "splitters/centre", "splitters/main",
                                            "window/geometry", "window/maximised", "window/rect"]
    second = MainWindow(load=False)
    qtbot.addWidget(second)
    second.show()
    assert (second.width(), second.height()) == (1100, 700)
    assert second.main_splitter.sizes() == sizes


def test_saved_geometry_that_no_longer_fits_the_screen_is_discarded(qtbot, private_homes):
    store = settings()
    store.setValue("window/rect", [0, 0, 1480, 900])   # saved on a bigger monitor
    big = MainWindow(load=False)
    qtbot.addWidget(big)
    store.setValue("window/geometry", big.saveGeometry())
    store.sync()
    window = MainWindow(load=False)
    qtbot.addWidget(window)
    assert window.window_state.maximise   # placed afresh for the 1280x800 screen
