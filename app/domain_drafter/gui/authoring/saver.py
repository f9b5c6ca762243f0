"""Autosave of one authoring window: debounced, on its own one-thread pool, off the GUI thread.

After a change, `schedule()` waits for a short pause (so an Accept, which records an attempt and
then accepts it, is one save), takes a detached copy of the working copy on the GUI thread (cheap)
and writes it in a worker, where the domain text, history and descriptions are computed. Saves run
one at a time, in order; a close flushes the pending one and waits only for these saves.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.jobs import autosave_job, detached_copy, export_job
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker

SAVE_DELAY_MS = 250


class AutoSaver(QObject):
    saved = Signal(str)               # the folder or file written
    failed = Signal(object)           # the exception of a save that did not reach the disk
    job_ended = Signal(object, object)  # JobKind.SAVE / EXPORT, JobOutcome

    def __init__(self, workspace: WorkingCopy, parent: QObject | None = None, delay_ms: int = SAVE_DELAY_MS):
        super().__init__(parent)
        self.workspace = workspace
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)            # in order, never two writers on one folder
        self.runner = TaskRunner(self, self.pool)
        self.runner.job_ended.connect(self.job_ended)
        self._changes = 0                         # counts changes, so a save knows whether it saved the latest
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._save_bound)

    @property
    def pending(self) -> bool:
        return self._timer.isActive()

    @property
    def busy(self) -> bool:
        return self.runner.busy or self.pending

    def changed(self) -> None:
        """The working copy changed: save it after a pause, if it has a folder."""
        self._changes += 1
        if self.workspace.folder is not None:
            self._timer.start()

    def _save_bound(self) -> None:
        if self.workspace.folder is not None:
            self.save_to(self.workspace.folder)

    def save_to(self, folder: Path) -> TaskWorker:
        """Write the working copy into `folder` now (in the save worker) and bind it there."""
        self._timer.stop()
        changes = self._changes
        worker = TaskWorker(autosave_job, detached_copy(self.workspace), Path(folder), kind=JobKind.SAVE)

        def done(path: object) -> None:
            self.workspace.folder = Path(str(path))
            if changes == self._changes:
                self.workspace.dirty = False
            self.saved.emit(str(path))

        worker.signals.finished.connect(done)
        worker.signals.failed.connect(self.failed)
        return self.runner.start(worker)

    def export_to(self, path: Path) -> TaskWorker:
        worker = TaskWorker(export_job, Path(path), detached_copy(self.workspace), kind=JobKind.EXPORT)
        worker.signals.finished.connect(lambda p: self.saved.emit(str(p)))
        worker.signals.failed.connect(self.failed)
        return self.runner.start(worker)

    def flush(self) -> None:
        """Start the pending save now."""
        if self._timer.isActive():
            self._save_bound()

    def close(self, timeout_ms: int = 10_000) -> bool:
        """Flush and wait for the saves (not for anything else); True if they reached the disk in time."""
        self.flush()
        return self.runner.wait(timeout_ms)

