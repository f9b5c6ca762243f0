"""The app's loaded models, shared by every window, reference-counted (no Qt here).

A job takes a `ModelLease` for the model it uses and gives it back when it ends; the model stays
loaded for it until then, even if the user switches to another model meanwhile. A switch takes
effect for new jobs: the newest model becomes current, and the one it replaces is closed as soon
as nobody uses it. Loads happen one at a time (a second request for the same model waits for the
first and then shares it). Thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import GenerationBackend
from domain_drafter.llm.factory import AUTO, open_backend, resolve_prompt_format
from domain_drafter.llm.models import ModelEntry, default_model_path

log = logging.getLogger(__name__)
BackendOpener = Callable[..., GenerationBackend]   # open_backend(path, n_threads=..., prompt_format=...)


@dataclass(eq=False)
class _Slot:
    path: Path
    threads: int
    prompt_format: str   # resolved: "completion" or "chat"
    backend: GenerationBackend
    users: int = 0
    retired: bool = False   # replaced by another model: close at the last release

    def close(self) -> None:
        log.info("closing model %s", self.path.name)
        self.backend.close()


class ModelLease:
    """One job's use of a loaded model; `release()` (or leaving the `with` block) gives it back."""

    def __init__(self, library: ModelLibrary, slot: _Slot):
        self._library, self._slot = library, slot
        self._released = False

    @property
    def backend(self) -> GenerationBackend:
        return self._slot.backend

    @property
    def path(self) -> Path:
        return self._slot.path

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._library._release(self._slot)

    def __enter__(self) -> ModelLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


LeaseSource = Callable[[TaskState], ModelLease]
"""Leases the model chosen when a job started (loading it if needed), in the job's worker: what a window hands
its jobs (e.g. `lambda task: library.acquire(entry, task)`)."""


class ModelLibrary:
    """Which model is current, who uses which, and when each may be closed."""

    def __init__(self, opener: BackendOpener = open_backend, n_threads: int = 0, prompt_format: str = AUTO):
        self._open = opener
        self.n_threads = n_threads            # 0: llama.cpp's default (half the CPUs); applies to new loads
        self.prompt_format = prompt_format    # "auto", "completion" or "chat"; applies to new loads
        self._lock = threading.Lock()         # guards the slots
        self._load_lock = threading.Lock()    # one load at a time
        self._current: _Slot | None = None
        self._closed = False

    # --- questions ---------------------------------------------------------------------------
    @property
    def loaded_path(self) -> Path | None:
        slot = self._current
        return slot.path if slot is not None else None

    @property
    def backend(self) -> GenerationBackend | None:
        slot = self._current
        return slot.backend if slot is not None else None

    def is_loaded(self, entry: ModelEntry | None) -> bool:
        """True iff `entry` is the current model, loaded with the current thread count and prompt format."""
        slot = self._current
        if entry is None or slot is None:
            return False
        return self._fits(slot, Path(entry.path).expanduser())

    def _fits(self, slot: _Slot, path: Path) -> bool:
        return (slot.path == path and slot.threads == self.n_threads
                and slot.prompt_format == resolve_prompt_format(path, self.prompt_format))

    @property
    def loaded_prompt_format(self) -> str | None:
        slot = self._current
        return slot.prompt_format if slot is not None else None

    def users(self) -> int:
        """Leases held, over every loaded model."""
        slot = self._current
        return slot.users if slot is not None else 0

    # --- leases ------------------------------------------------------------------------------
    def acquire(self, entry: ModelEntry, task: TaskState) -> ModelLease:
        """Load `entry` if it is not the current model (making it current) and lease it."""
        with self._load_lock:
            if self._closed:
                raise ModelError("the application is closing", where=str(entry.path), hint="start the job again")
            path = default_model_path(task=task) if entry.source == "default" else Path(entry.path).expanduser()
            with self._lock:
                slot = self._current
                if slot is not None and self._fits(slot, path):
                    slot.users += 1
                    return ModelLease(self, slot)
            task.check_cancelled()
            task.report(0, 0, f"loading model {path.name}")
            threads = self.n_threads
            fmt = resolve_prompt_format(path, self.prompt_format)
            backend = self._open(path, n_threads=threads or None, prompt_format=fmt)
            if task.cancelled:   # llama.cpp's load cannot be interrupted: drop the model once it is in
                backend.close()
                task.check_cancelled()
            task.report(1, 1, f"loaded {path.name}")
            with self._lock:
                old, self._current = self._current, _Slot(path, threads, fmt, backend, users=1)
                if old is not None:
                    self._retire_locked(old)
                return ModelLease(self, self._current)

    def _release(self, slot: _Slot) -> None:
        with self._lock:
            slot.users -= 1
            if slot.users == 0 and slot.retired:
                slot.close()

    def _retire_locked(self, slot: _Slot) -> None:
        slot.retired = True
        if slot.users == 0:
            slot.close()

    def close(self) -> None:
        """At the end of the app: the current model is closed now if unused, else when its last job ends."""
        with self._lock:
            self._closed = True
            if self._current is not None:
                self._retire_locked(self._current)
                self._current = None
