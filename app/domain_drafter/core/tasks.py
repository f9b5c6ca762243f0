"""Progress and cancellation hooks that long-running engine functions accept.

The GUI's workers and the CLI both pass a `TaskState`; engine code calls `check_cancelled()`
between units of work and `report()` to publish progress. Nothing here knows about Qt.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable


class Cancelled(Exception):
    """Raised inside a task when its TaskState was cancelled; callers treat it as a normal stop."""


@dataclass
class TaskState:
    """Cancel flag plus an optional progress callback `(done, total, message)`."""

    on_progress: Callable[[int, int, str], None] | None = None
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        if self._cancel.is_set():
            raise Cancelled()

    def wait(self, timeout: float) -> bool:
        """Sleep up to `timeout` seconds, waking early on cancel; True if cancelled."""
        return self._cancel.wait(timeout)

    def report(self, done: int, total: int, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(done, total, message)
