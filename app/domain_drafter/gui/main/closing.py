"""How the main window closes, which is how the app quits (the window's close or File > Quit).

A benchmark run going on is not stopped without asking: the close is refused and the user asked, over
the window, to stop the run and quit (its results file keeps what was judged; Start resumes it) or keep
working. Otherwise, or once the run is asked to stop, the window closes its authoring windows, cancels
and waits for its own jobs, and releases the models.

A mixin of MainWindow (kept apart so the window module stays about layout and jobs).
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMessageBox

from domain_drafter.gui.dialogs.bench_session import ask_to_stop

SHUTDOWN_TIMEOUT_MS = 10_000


class WindowClosingMixin:
    """Needs the MainWindow's benchmark_dialog, authoring_windows, model_status, drafts, runner, state, domain_tests,
    window_state, closing and _warm_timer."""

    quit_box: QMessageBox | None = None   # the question while a quit waits for an answer

    def shutdown(self) -> bool:
        """Close the authoring windows, cancel and wait for this window's jobs, release models. Idempotent."""
        if self.closing:
            return True
        self.closing = True
        self._warm_timer.stop()
        for authoring in self.authoring_windows:
            authoring.close()
        if self.benchmark_dialog is not None:   # its run was asked to stop: it goes with the window, unasked,
            self.benchmark_dialog.hide()        # and the app quits with its last window (aboutToQuit waits for the run)
        self.model_status.shutdown()
        stopped = self.runner.shutdown(SHUTDOWN_TIMEOUT_MS) and self.model_status.runner.wait(SHUTDOWN_TIMEOUT_MS)
        stopped = self.verdict_tests.close(SHUTDOWN_TIMEOUT_MS) and stopped
        stopped = self.domain_tests.close(SHUTDOWN_TIMEOUT_MS) and stopped
        self.drafts.close()
        if stopped:
            self.state.close()
        else:   # a job still runs: its model is closed when it lets it go, its caches stay open
            self.state.models.close()
        return stopped

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._asks_before_quitting():
            event.ignore()
            return
        self.shutdown()
        self.window_state.save()
        super().closeEvent(event)

    def _asks_before_quitting(self) -> bool:
        """True while a benchmark run goes on that the user has not chosen to stop: then the question is up."""
        dialog = self.benchmark_dialog
        if self.closing or dialog is None or not dialog.run_going_on:
            return False
        if self.quit_box is None:
            self.quit_box = ask_to_stop(self, self._stop_benchmark_and_quit, quitting=True)
            self.quit_box.finished.connect(self._on_quit_answered)
        return True

    def _on_quit_answered(self, _result: int) -> None:
        self.quit_box = None

    def _stop_benchmark_and_quit(self) -> None:
        self.benchmark_dialog.stop()    # after the current answer; the app's quit waits for it (bench_menu.py)
        QTimer.singleShot(0, self.close)   # once the box has gone: the run no longer keeps the window open
