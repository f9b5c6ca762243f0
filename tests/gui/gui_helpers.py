"""Helpers for the GUI tests (a module of its own: test module names must be unique across tests/)."""

from __future__ import annotations

STARTUP_TIMEOUT_MS = 20_000
SCREEN_WIDTH, SCREEN_HEIGHT = 1280, 800   # the offscreen screen of the GUI tests (see conftest.py)
JOB_TIMEOUT_MS = 30_000


def run_job(qtbot, window, start) -> tuple[str, str]:
    """Call `start()` (which starts a job) and wait until the window says the job ended."""
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS) as blocker:
        start()
    return tuple(blocker.args)  # type: ignore[return-value]


def select(qtbot, window, domain: str, action: str) -> None:
    assert window.domain_panel.select_domain(domain)
    assert window.domain_panel.select_action(action)
    assert (window.current_bundle().name, window.current_action()) == (domain, action)


def open_main_window(qtbot, settings):
    """A real MainWindow with `settings`, shown, once the bundled domains are listed and start-up is done."""
    from domain_drafter.gui.main.window import MainWindow

    window = MainWindow(app_settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.domain_panel.domain_count() == 9 and not window.runner.busy,
                    timeout=STARTUP_TIMEOUT_MS)
    return window
