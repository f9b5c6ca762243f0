"""Progress and cancellation hooks that long-running engine functions accept.

The GUI's workers and the CLI both pass a `TaskState`; engine code calls `check_cancelled()`
between units of work and `report()` to publish progress. Nothing here knows about Qt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


class Cancelled(Exception):
    """Raised inside a task when its TaskState was cancelled; callers treat it as a normal stop."""


_CHILD_POLL_S = 0.02


@dataclass
class TaskState:
    """Cancel flag plus an optional progress callback `(done, total, message)`.

    `child()` makes a task that is cancelled with this one and can also be cancelled on its
    own: parallel work uses one to stop its siblings without stopping the caller.
    """

    on_progress: Callable[[int, int, str], None] | None = None
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _parent: TaskState | None = field(default=None, repr=False)

    def child(self) -> TaskState:
        return TaskState(self.on_progress, _parent=self)

    def reporting_to(self, on_progress: Callable[[int, int, str], None]) -> TaskState:
        """A child that is cancelled with this task but sends its progress to `on_progress` instead."""
        return TaskState(on_progress, _parent=self)

    def within(self, done: int, total: int, prefix: str = "") -> TaskState:
        """A child whose reports show as step `done` of `total` of this task, its message after `prefix`.

        For a step that reports on its own scale (a draft's rounds inside Draft all): this task's bar
        stays at the step instead of jumping back to the step's own 0 of n."""
        parent_report = self.report

        def report(_done: int, _total: int, message: str) -> None:
            parent_report(done, total, f"{prefix}: {message}" if prefix and message else prefix or message)
        return TaskState(report, _parent=self)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set() or (self._parent is not None and self._parent.cancelled)

    def check_cancelled(self) -> None:
        if self.cancelled:
            raise Cancelled()

    def wait(self, timeout: float) -> bool:
        """Sleep up to `timeout` seconds, waking early on cancel; True if cancelled."""
        if self._parent is None:
            return self._cancel.wait(timeout)
        deadline = time.monotonic() + timeout
        while not self.cancelled:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._cancel.wait(min(left, _CHILD_POLL_S))
        return True

    def report(self, done: int, total: int, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(done, total, message)
