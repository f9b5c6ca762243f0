"""The work the GUI hands to its workers, as plain functions over the engine (no Qt here).

Each takes `task=` (a TaskState) and returns plain data; the window runs them through
workers.TaskWorker, never on the GUI thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from domain_drafter.core.bundle import DomainBundle, load_bundle_path, load_bundled
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.loop import Draft, DraftOptions, draft_action
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.models import ModelEntry, default_model_path, list_models
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator

if TYPE_CHECKING:   # llama.cpp's binding (and numpy) load with the first model, not with the window
    from domain_drafter.llm.llama import LlamaCppBackend

N_CTX = 4096


@dataclass(frozen=True)
class StartupData:
    """What the window needs before it is useful: the bundled domains and the models on offer."""

    bundles: tuple[DomainBundle, ...]
    models: tuple[ModelEntry, ...]


def load_startup(*, task: TaskState) -> StartupData:
    task.report(0, 2, "loading the bundled domains")
    bundles = tuple(load_bundled())   # parsed once per machine: core.bundle_cache
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
    """Keeps the one loaded model; loading another (or with other threads) closes the previous. Thread-safe."""

    def __init__(self, n_ctx: int = N_CTX, n_threads: int = 0):
        self.n_ctx = n_ctx
        self.n_threads = n_threads            # 0: llama.cpp's default (half the CPUs)
        self._lock = threading.Lock()
        self._backend: LlamaCppBackend | None = None
        self._path: Path | None = None
        self._threads = 0

    @property
    def loaded_path(self) -> Path | None:
        return self._path

    @property
    def backend(self) -> LlamaCppBackend | None:
        return self._backend

    def get(self, entry: ModelEntry, task: TaskState) -> LlamaCppBackend:
        with self._lock:
            path = default_model_path(task=task) if entry.source == "default" else entry.path
            if self._backend is not None and self._path == path and self._threads == self.n_threads:
                return self._backend
            self._close_locked()
            task.check_cancelled()
            task.report(0, 1, f"loading model {path.name}")
            from domain_drafter.llm.llama import LlamaCppBackend  # noqa: PLC0415 - see TYPE_CHECKING above

            backend = LlamaCppBackend(path, n_ctx=self.n_ctx, n_threads=self.n_threads or None)
            if task.cancelled:   # llama.cpp's load cannot be interrupted: drop the model once it is in
                backend.close()
                task.check_cancelled()
            self._backend, self._path, self._threads = backend, path, self.n_threads
            task.report(1, 1, f"loaded {path.name} in {backend.load_time_s:.1f} s")
            return backend

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._backend is not None:
            self._backend.close()
        self._backend, self._path = None, None


@dataclass(frozen=True)
class LoadedModel:
    """What the status bar says about the model once it is loaded (and its prompt warmed)."""

    name: str
    path: Path
    load_time_s: float
    threads: int
    warmed_tokens: int   # prompt tokens already in the model's cache (0: none)


def preload_model(holder: ModelHolder, entry: ModelEntry, warm_prompt: str = "", *,
                  task: TaskState) -> LoadedModel:
    """Load `entry` (if it is not loaded) and evaluate `warm_prompt` into its cache.

    The llama.cpp backend keeps the longest common prefix of consecutive prompts, so after this
    the first Generate of the same prompt starts writing almost at once.
    """
    backend = holder.get(entry, task)
    warmed = 0
    if warm_prompt:
        task.check_cancelled()
        task.report(0, 1, f"reading the prompt into {backend.model_path.name}")
        generation = backend.generate(warm_prompt, DecodingOptions(max_tokens=1, stop=()), task=task)
        if generation.stats.stop_reason != "cancelled":
            warmed = generation.stats.prompt_tokens
        task.report(1, 1, "model ready")
    return LoadedModel(backend.model_path.name, backend.model_path, backend.load_time_s, backend.n_threads, warmed)


# Words in a load failure -> (the setting to change, what to do). The first match wins.
_MODEL_ADVICE: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("memory", "alloc", "oom", "cannot allocate"), "model",
     "There is not enough memory for this model: choose a smaller (or more quantised) GGUF in "
     "Settings ▸ Model file, or close other programs."),
    (("threads",), "threads", "Set Settings ▸ Threads to Automatic."),
    (("context",), "max_new_tokens", "Lower Settings ▸ Max new tokens or Context examples."),
)
_DEFAULT_ADVICE = ("model", "Choose another GGUF file in Settings ▸ Model file (empty: the embedded default "
                            "model), or download this one again.")


def model_failure_advice(message: str) -> tuple[str, str]:
    """(AppSettings field to change, advice) for a model that failed to load with `message`."""
    lowered = message.lower()
    for words, setting, advice in _MODEL_ADVICE:
        if any(w in lowered for w in words):
            return setting, advice
    return _DEFAULT_ADVICE


def generate_answer(holder: ModelHolder, entry: ModelEntry, bundle: DomainBundle, action: str,
                    evaluator: Evaluator, pool: Sequence[DomainBundle], options: DraftOptions, *,
                    task: TaskState, on_token: Callable[[str], None] | None = None) -> Draft:
    """Load the model if needed, ask it for `action`, evaluate the answer."""
    backend = holder.get(entry, task)
    return draft_action(bundle, action, backend, evaluator, pool, options, on_token=on_token, task=task)
