"""The work the GUI hands to its workers, as plain functions over the engine (no Qt here).

Each takes `task=` (a TaskState) and returns plain data; the window runs them through
workers.TaskWorker, never on the GUI thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from domain_drafter.core.bundle import DomainBundle, load_bundle_path, load_bundled
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.loop import Draft, DraftOptions, draft_action
from domain_drafter.llm.llama import LlamaCppBackend
from domain_drafter.llm.models import ModelEntry, default_model_path, list_models
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator

N_CTX = 4096


@dataclass(frozen=True)
class StartupData:
    """What the window needs before it is useful: the bundled domains and the models on offer."""

    bundles: tuple[DomainBundle, ...]
    models: tuple[ModelEntry, ...]


def load_startup(*, task: TaskState) -> StartupData:
    task.report(0, 2, "loading the bundled domains")
    bundles = tuple(load_bundled())
    task.check_cancelled()
    task.report(1, 2, "looking for models")
    models = tuple(list_models())
    task.report(2, 2, f"{len(bundles)} domains, {len(models)} model{'' if len(models) == 1 else 's'}")
    return StartupData(bundles, models)


def open_bundle(path: str | Path, *, task: TaskState) -> DomainBundle:
    """A user's domain folder (or domain.pddl); DomainError / PddlSyntaxError name file:line:col."""
    task.report(0, 1, f"reading {path}")
    bundle = load_bundle_path(Path(path))
    task.report(1, 1, f"loaded {bundle.name}")
    return bundle


def evaluate_answer(evaluator: Evaluator, bundle: DomainBundle, action: str, answer: str, *,
                    task: TaskState) -> EvaluationResult:
    task.report(0, 1, "checking the answer")
    return evaluator.evaluate(bundle, action, answer, task=task)


class ModelHolder:
    """Keeps the one loaded model; loading another closes the previous. Thread-safe."""

    def __init__(self, n_ctx: int = N_CTX):
        self.n_ctx = n_ctx
        self._lock = threading.Lock()
        self._backend: LlamaCppBackend | None = None
        self._path: Path | None = None

    @property
    def loaded_path(self) -> Path | None:
        return self._path

    def get(self, entry: ModelEntry, task: TaskState) -> LlamaCppBackend:
        with self._lock:
            path = default_model_path(task=task) if entry.source == "default" else entry.path
            if self._backend is not None and self._path == path:
                return self._backend
            self._close_locked()
            task.check_cancelled()
            task.report(0, 1, f"loading model {path.name}")
            self._backend = LlamaCppBackend(path, n_ctx=self.n_ctx)
            self._path = path
            task.report(1, 1, f"loaded {path.name} in {self._backend.load_time_s:.1f} s")
            return self._backend

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._backend is not None:
            self._backend.close()
        self._backend, self._path = None, None


def generate_answer(holder: ModelHolder, entry: ModelEntry, bundle: DomainBundle, action: str,
                    evaluator: Evaluator, pool: Sequence[DomainBundle], options: DraftOptions, *,
                    task: TaskState, on_token: Callable[[str], None] | None = None) -> Draft:
    """Load the model if needed, ask it for `action`, evaluate the answer."""
    backend = holder.get(entry, task)
    return draft_action(bundle, action, backend, evaluator, pool, options, on_token=on_token, task=task)
