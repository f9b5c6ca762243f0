"""Run plain engine functions on a thread pool, with progress, streaming, cancel and typed outcomes.

A `TaskWorker` calls `fn(*args, task=TaskState, **kwargs)` on a pool thread (plus `on_token=` when
it streams tokens, `on_yield=` when it hands over partial results) and reports through its
`WorkerSignals`, which live in the GUI thread, so connected slots run there. Partial results (a
candidate just judged, an action just drafted) travel on `yielded`, in order and before the end.
Exactly one of finished / failed / cancelled is emitted per worker, then `run_ended` with the
JobOutcome; `failed` carries the exception object itself (errors.show_error turns it into words).
Cancelling sets the TaskState's flag; the engine then raises `Cancelled` at its next check.

`TaskRunner` is one window's (or one dialog's) set of jobs: it keeps its workers alive while they
run, says when each ended and how, and `shutdown()` cancels and waits for its own workers only,
with a time-out, never for the rest of the pool.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from domain_drafter.core.errors import DrafterError
from domain_drafter.core.tasks import Cancelled, TaskState

log = logging.getLogger(__name__)
_INT_MAX = 2**31 - 1   # the progress signal carries C ints


class JobOutcome(str, enum.Enum):
    """How a job ended (a `str` enum: its value is the word the logs and the self-test print)."""

    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"
    STOPPED = "stopped"     # finished early on request, keeping what it did (a benchmark run that Resume continues)
    REPORTED = "report"     # a report job finished: its file is written (the Benchmark dialog's Open report)

    def __str__(self) -> str:
        return self.value


class JobKind(str, enum.Enum):
    """What a job does (its name in logs and in the `job_ended` signals)."""

    STARTUP = "startup"
    OPEN = "open"
    GENERATE = "generate"
    EVALUATE = "evaluate"
    MODEL_LOAD = "model-load"
    MODEL_WARM = "model-warm"
    OPEN_DRAFT = "open-draft"
    DRAFT_ALL = "draft-all"
    DRAFT = "draft"
    TRY = "try"
    JUDGE = "judge"
    TESTS = "tests"
    QUICK_FIX = "quick-fix"
    SAVE_CASE = "save-case"
    DISMISS = "dismiss"           # an invariant finding dismissed or restored for an action
    STARTERS = "starters"         # the starter cases of a domain with few tests
    SAVE = "save"
    EXPORT = "export"
    BENCHMARK = "benchmark"
    REPORT = "report"
    DOWNLOAD = "download"         # File > Get a model…: one catalogue model fetched
    SPEED_CHECK = "speed-check"   # File > Get a model…: Check speed
    OTHER = "other"

    def __str__(self) -> str:
        return self.value


class WorkerSignals(QObject):
    """What a worker reports. `yielded` carries each partial result, `finished` the function's return value,
    `failed` the exception, `run_ended` the JobOutcome (after any of finished / failed / cancelled)."""

    progress = Signal(int, int, str)
    token = Signal(str)
    yielded = Signal(object)
    finished = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    run_ended = Signal(object)   # JobOutcome


class TaskWorker:
    """One call of a plain function on a pool thread; `cancel()` is safe from any thread.

    A plain Python object, not a QRunnable: the pool is given the bound `run` (Qt wraps it in a
    runnable it deletes itself), so once the job has ended nothing but its owner refers to it.
    (PySide keeps a QRunnable started with autoDelete off alive for as long as the pool lives:
    measured, every job of a session, with its arguments and error, was kept.)
    """

    def __init__(self, fn: Callable[..., Any], *args: Any, kind: JobKind = JobKind.OTHER,
                 streams_tokens: bool = False, yields: bool = False, **kwargs: Any):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.kind = kind
        self.streams_tokens = streams_tokens
        self.yields = yields   # `fn` takes `on_yield=`: each value it is given travels on `yielded`
        self.signals = WorkerSignals()
        self.outcome: JobOutcome | None = None
        self.error: BaseException | None = None
        self.ended = threading.Event()   # set once run() is over (for a bounded wait at close)
        self.task = TaskState(on_progress=self._report)

    @property
    def name(self) -> str:
        return self.kind.value if self.kind is not JobKind.OTHER else getattr(self.fn, "__name__", "task")

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
            self.signals.run_ended.emit(self.outcome)
            self.ended.set()

    def _run(self) -> None:
        if self.task.cancelled:
            self.outcome = JobOutcome.CANCELLED
            self.signals.cancelled.emit()
            return
        kwargs = dict(self.kwargs, task=self.task)
        if self.streams_tokens:
            kwargs["on_token"] = self.signals.token.emit
        if self.yields:
            kwargs["on_yield"] = self.signals.yielded.emit
        try:
            result = self.fn(*self.args, **kwargs)
        except Cancelled:
            self.outcome = JobOutcome.CANCELLED
            self.signals.cancelled.emit()
        except Exception as err:
            if not isinstance(err, (DrafterError, OSError)):
                log.exception("%s failed", self.name)
            self.outcome, self.error = JobOutcome.FAILED, err
            self.signals.failed.emit(err)
        else:
            self.outcome = JobOutcome.FINISHED
            self.signals.finished.emit(result)


class TaskRunner(QObject):
    """Starts one owner's workers on a pool (the global one unless given) and keeps them until done."""

    busy_changed = Signal(bool)
    job_started = Signal(object)         # JobKind
    job_ended = Signal(object, object)   # JobKind, JobOutcome; after the worker's own signals and busy_changed

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self._active: list[TaskWorker] = []

    def start(self, worker: TaskWorker) -> TaskWorker:
        was_busy = self.busy
        self._active.append(worker)
        worker.signals.run_ended.connect(self._on_done)
        self.pool.start(worker.run)
        self.job_started.emit(worker.kind)
        if not was_busy:
            self.busy_changed.emit(True)
        return worker

    @property
    def busy(self) -> bool:
        return bool(self._active)

    @property
    def active(self) -> tuple[TaskWorker, ...]:
        return tuple(self._active)

    def running(self, kind: JobKind) -> bool:
        return any(w.kind is kind for w in self._active)

    def cancel_all(self) -> None:
        for worker in self._active:
            worker.cancel()

    def wait(self, timeout_ms: int) -> bool:
        """Wait (blocking) for this runner's own workers only; True if all ended within `timeout_ms`."""
        deadline = time.monotonic() + timeout_ms / 1000
        for worker in list(self._active):
            if not worker.ended.wait(max(0.0, deadline - time.monotonic())):
                log.warning("workers still running after %d ms: %s", timeout_ms,
                            ", ".join(w.name for w in self._active if not w.ended.is_set()))
                return False
        return True

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel this runner's workers and wait for them (not for other windows' work)."""
        self.cancel_all()
        return self.wait(timeout_ms)

    def _on_done(self) -> None:
        sender = self.sender()
        ended = [w for w in self._active if w.signals is sender]
        self._active = [w for w in self._active if w.signals is not sender]
        if not self._active:
            self.busy_changed.emit(False)
        for worker in ended:
            self.job_ended.emit(worker.kind, worker.outcome)
