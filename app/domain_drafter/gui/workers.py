"""Run plain engine functions on Qt's global thread pool, with progress, streaming and cancel.

A `TaskWorker` calls `fn(*args, task=TaskState, **kwargs)` (plus `on_token=` when it streams)
on a pool thread and reports through its `WorkerSignals`, which live in the GUI thread, so
connected slots run there. Exactly one of finished / failed / cancelled is emitted per worker.
Cancelling sets the TaskState's flag; the engine then raises `Cancelled` at its next check.
`TaskRunner` keeps the workers alive while they run, says when each ended and how, and can
cancel and wait for all of them.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from domain_drafter.core.errors import DrafterError
from domain_drafter.core.tasks import Cancelled, TaskState

log = logging.getLogger(__name__)
_INT_MAX = 2**31 - 1   # the progress signal carries C ints


class WorkerSignals(QObject):
    """What a worker reports. `finished` carries the function's return value."""

    progress = Signal(int, int, str)
    token = Signal(str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    done = Signal()  # after any of finished / failed / cancelled


class TaskWorker(QRunnable):
    """One call of a plain function on a pool thread; `cancel()` is safe from any thread."""

    def __init__(self, fn: Callable[..., Any], *args: Any, streams_tokens: bool = False, name: str = "",
                 **kwargs: Any):
        super().__init__()
        self.setAutoDelete(False)  # Python owns it (TaskRunner keeps it until `done`)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.streams_tokens = streams_tokens
        self.name = name or getattr(fn, "__name__", "task")
        self.signals = WorkerSignals()
        self.outcome = ""   # "finished", "failed" or "cancelled" once it has run
        self.task = TaskState(on_progress=self._report)

    def cancel(self) -> None:
        self.task.cancel()

    def _report(self, done: int, total: int, message: str) -> None:
        if total > _INT_MAX or done > _INT_MAX:   # e.g. bytes of a big file: keep the ratio
            scale = max(total, done) / _INT_MAX
            done, total = int(done / scale), int(total / scale)
        self.signals.progress.emit(int(done), int(total), message)

    @property
    def cancelled(self) -> bool:
        return self.task.cancelled

    def run(self) -> None:  # pool thread
        try:
            self._run()
        finally:
            self.signals.done.emit()

    def _run(self) -> None:
        if self.task.cancelled:
            self.outcome = "cancelled"
            self.signals.cancelled.emit()
            return
        kwargs = dict(self.kwargs, task=self.task)
        if self.streams_tokens:
            kwargs["on_token"] = self.signals.token.emit
        try:
            result = self.fn(*self.args, **kwargs)
        except Cancelled:
            self.outcome = "cancelled"
            self.signals.cancelled.emit()
        except DrafterError as err:
            self.outcome = "failed"
            self.signals.failed.emit(err.message)
        except Exception as err:  # noqa: BLE001 - anything else is a bug, but must not kill the app
            log.exception("%s failed", self.name)
            self.outcome = "failed"
            self.signals.failed.emit(f"unexpected error in {self.name}: {type(err).__name__}: {err}")
        else:
            self.outcome = "finished"
            self.signals.finished.emit(result)


class TaskRunner(QObject):
    """Starts workers on the global pool and keeps them until they are done."""

    busy_changed = Signal(bool)
    job_ended = Signal(str, str)   # the worker's name and outcome, after its own signals and busy_changed

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self._active: list[TaskWorker] = []

    def start(self, worker: TaskWorker) -> TaskWorker:
        was_busy = self.busy
        self._active.append(worker)
        worker.signals.done.connect(self._on_done)
        self.pool.start(worker)
        if not was_busy:
            self.busy_changed.emit(True)
        return worker

    @property
    def busy(self) -> bool:
        return bool(self._active)

    @property
    def active(self) -> tuple[TaskWorker, ...]:
        return tuple(self._active)

    def cancel_all(self) -> None:
        for worker in self._active:
            worker.cancel()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel everything and wait for the pool; True if every worker stopped in time."""
        self.cancel_all()
        stopped = self.pool.waitForDone(timeout_ms)
        if not stopped:
            log.warning("workers still running after %d ms: %s", timeout_ms,
                        ", ".join(w.name for w in self._active))
        return stopped

    def _on_done(self) -> None:
        sender = self.sender()
        ended = [w for w in self._active if w.signals is sender]
        self._active = [w for w in self._active if w.signals is not sender]
        if not self._active:
            self.busy_changed.emit(False)
        for worker in ended:
            self.job_ended.emit(worker.name, worker.outcome)
