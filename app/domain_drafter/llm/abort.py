"""Stop a llama.cpp decode in the middle of a prompt chunk when its task is cancelled.

ggml calls a context's abort callback between the nodes of the compute graph (for a 1.5B model,
about every 10 ms of a 64-token chunk that takes seconds on a busy CPU); when it returns true,
`llama_decode` stops, drops the positions of that batch and returns 2. The chunks keep their size,
which decides the numbers llama.cpp computes and so the answers; only Stop lands sooner.

The callback runs Python (it takes the GIL), so it is installed only while a prompt is read, not
while tokens are decoded one at a time (each decode is short, and the loop checks the task after it).
"""

from __future__ import annotations

from typing import Any

from domain_drafter.core.tasks import TaskState


class AbortOnCancel:
    """While entered, llama.cpp's decode on `ctx` stops as soon as `task` is cancelled (no-op without a task)."""

    def __init__(self, llama_cpp: Any, ctx: Any, task: TaskState | None):
        self._lc, self._ctx, self.task = llama_cpp, ctx, task
        self._callback = llama_cpp.ggml_abort_callback(lambda _data: bool(task is not None and task.cancelled))

    def __enter__(self) -> AbortOnCancel:
        if self.task is not None:
            self._lc.llama_set_abort_callback(self._ctx, self._callback, None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.task is not None:   # a NULL callback: llama.cpp never asks again
            self._lc.llama_set_abort_callback(self._ctx, self._lc.ggml_abort_callback(), None)

    @property
    def cancelled(self) -> bool:
        """The task was cancelled (a failed decode inside is then the abort, not an error)."""
        return self.task is not None and self.task.cancelled
