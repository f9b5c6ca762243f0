"""The work the GUI hands to its workers, as plain functions over the engine (no Qt here).

Each takes `task=` (a TaskState) and returns plain data; the window runs them through
workers.TaskWorker, never on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle, load_bundle_path, load_bundled
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.loop import Draft, DraftOptions, draft_action
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.model_library import ModelLibrary
from domain_drafter.llm.models import ModelEntry, list_models
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator


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
    return with_invariants(evaluator.evaluate(bundle, action, answer, task=task), bundle, action, task)


def with_invariants(result: EvaluationResult, bundle: DomainBundle, action: str, task: TaskState) -> EvaluationResult:
    """`result` with what the domain's other actions say of its answer (the domain's dismissals honoured), for
    an answer that passed the checks in a domain with problems; as it was otherwise."""
    from domain_drafter.text.invariants import reports_for

    if result.error or not result.check.passed or result.check.action is None or task.cancelled:
        return result
    task.report(0, 1, "judging the answer by what the other actions keep")
    return replace(result, invariants=reports_for(bundle, action, result.check.action))


@dataclass(frozen=True)
class LoadedModel:
    """What the status bar says about the model once it is loaded (and its prompt warmed)."""

    name: str
    path: Path
    load_time_s: float
    threads: int
    warmed_tokens: int   # prompt tokens already in the model's cache (0: none)
    prompt_format: str = "completion"   # "completion" (the paper's plain prompt) or "chat"


def preload_model(models: ModelLibrary, entry: ModelEntry, warm_prompt: str = "", *,
                  task: TaskState) -> LoadedModel:
    """Load `entry` (if it is not loaded) and evaluate `warm_prompt` into its cache.

    The llama.cpp backend keeps the longest common prefix of consecutive prompts, so after this
    the first Generate of the same prompt starts writing almost at once.
    """
    with models.acquire(entry, task) as lease:
        backend = lease.backend
        warmed = 0
        if warm_prompt:
            task.check_cancelled()
            task.report(0, 0, f"reading the prompt into {lease.path.name}")
            generation = backend.generate(warm_prompt, DecodingOptions(max_tokens=1, stop=()), task=task)
            if generation.stats.stop_reason != "cancelled":
                warmed = generation.stats.prompt_tokens
            task.report(1, 1, "model ready")
        return LoadedModel(lease.path.name, lease.path, getattr(backend, "load_time_s", 0.0),
                           getattr(backend, "n_threads", 0), warmed, getattr(backend, "prompt_format", "completion"))


def generate_answer(models: ModelLibrary, entry: ModelEntry, bundle: DomainBundle, action: str,
                    evaluator: Evaluator, pool: Sequence[DomainBundle], options: DraftOptions,
                    template: PromptTemplate | None = None, *, task: TaskState,
                    on_token: Callable[[str], None] | None = None) -> Draft:
    """Load the model if needed (keeping it for this job), ask it for `action`, evaluate the answer."""
    with models.acquire(entry, task) as lease:
        draft = draft_action(bundle, action, lease.backend, evaluator, pool, options, template=template,
                             on_token=on_token, task=task)
    last = draft.rounds[-1]            # a view over its search node: the findings go on the node's judgement
    final = with_invariants(last.evaluation, bundle, action, task)
    node = replace(last.node, judgement=replace(last.node.judgement, evaluation=final))
    return replace(draft, rounds=(*draft.rounds[:-1], replace(last, node=node)))


def save_dismissal_job(bundle: DomainBundle, action: str, key: str, dismiss: bool, *, task: TaskState) -> frozenset[str]:
    """Dismiss (or restore) the finding `key` for `action`, saved with the domain; the action's dismissals now."""
    from domain_drafter.core.dismissals import dismissed_for, save_dismissal

    task.report(0, 1, f"{'dismissing' if dismiss else 'restoring'} a finding of {action}")
    save_dismissal(bundle, action, key, dismiss=dismiss)
    return dismissed_for(bundle, action)


def starters_job(bundle: DomainBundle, tests, plans, *, task: TaskState):
    """The starter cases of `bundle`'s domain (planning/starter_cases.py): plans from `plans`, a PlanCache."""
    from domain_drafter.planning.starter_cases import starter_cases

    return starter_cases(bundle, tests, plans=plans, task=task)


def keep_starter_job(bundle: DomainBundle, starter, *, task: TaskState) -> tuple[Path, str]:
    """Append the starter to the domain's writable tests file; the file written and the case's name."""
    from domain_drafter.planning.starter_cases import keep_starter

    task.report(0, 1, f"keeping {starter.id} as a test")
    return keep_starter(bundle, starter)
