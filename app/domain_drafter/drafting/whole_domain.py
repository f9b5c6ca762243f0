"""Draft a whole domain: every action in a row with the paper's prompt, then judge D' as a whole.

D' holds every drafted action that passed the syntax and semantic checks; the ones that did
not are listed and left out (the verdict is then "Incomplete", and the plan comparison fills
their places with the reference's so the rest can still be judged). Each action also keeps
its own verdict, and the ARE is summed over the actions where it is defined. The whole-domain
verdict is proven (METHOD 6a, over all drafted actions at once) unless the evaluator's mode is
the paper's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.model import Domain
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.loop import Draft, DraftOptions, draft_action
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.llm.backend import GenerationBackend
from domain_drafter.planning.domain_compare import DomainComparison
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator


@dataclass(frozen=True)
class ActionOutcome:
    """One action's draft and its own verdict."""

    name: str
    draft: Draft

    @property
    def evaluation(self) -> EvaluationResult:
        return self.draft.final

    @property
    def passed_checks(self) -> bool:
        return self.evaluation.check.passed

    def to_dict(self) -> dict:
        e = self.evaluation
        return {"action": self.name, "class": e.result_class.value if e.result_class else None,
                "subclass": e.subclass.value if e.subclass else None, "message": e.message,
                "passed_checks": self.passed_checks, "are": e.are.total if e.are else None,
                "rounds": len(self.draft.rounds), "answer": e.answer, "action_pddl": e.generated_pddl}


@dataclass(frozen=True)
class DomainDraft:
    """Every action's outcome, D', and the whole-domain verdict."""

    bundle: str
    outcomes: tuple[ActionOutcome, ...]
    candidate: Domain
    comparison: DomainComparison

    @property
    def failed(self) -> tuple[str, ...]:
        """Actions whose draft failed the checks: left out of D'."""
        return tuple(o.name for o in self.outcomes if not o.passed_checks)

    @property
    def are_total(self) -> int:
        return sum(o.evaluation.are.total for o in self.outcomes if o.evaluation.are is not None)

    @property
    def are_defined(self) -> int:
        return sum(1 for o in self.outcomes if o.evaluation.are is not None)

    @property
    def equivalent(self) -> bool:
        return self.comparison.verdict.value == "Equivalent"

    def to_dict(self) -> dict:
        return {"domain": self.bundle, "verdict": self.comparison.verdict.value,
                "message": self.comparison.message, "failed_checks": list(self.failed),
                "are_total": self.are_total, "are_defined_for": self.are_defined,
                "actions": [o.to_dict() for o in self.outcomes], "comparison": self.comparison.to_dict(),
                "candidate_pddl": self.candidate.to_pddl()}


def assemble(reference: Domain, outcomes: Sequence[ActionOutcome]) -> Domain:
    """D': the reference's vocabulary with the drafted actions that passed the checks, in the reference's order."""
    actions = tuple(o.evaluation.check.action for o in outcomes if o.passed_checks and o.evaluation.check.action)
    return dataclasses.replace(reference, actions=actions)


def draft_domain(
    bundle: DomainBundle,
    backend: GenerationBackend,
    evaluator: Evaluator,
    pool: Sequence[DomainBundle],
    options: DraftOptions = DraftOptions(),
    *,
    template: PromptTemplate | None = None,
    workspace: WorkingCopy | None = None,
    on_action_start: Callable[[int, int, str], None] | None = None,
    on_action: Callable[[ActionOutcome], None] | None = None,
    on_token: Callable[[str], None] | None = None,
    task: TaskState | None = None,
) -> DomainDraft:
    """Draft every action of `bundle`, then compare D' with the reference.

    With a `workspace`, every round is recorded as an attempt and each action that passed the
    checks is accepted, as soon as it is known (a working copy with a folder saves right away).
    `task` cancels between tokens and between actions (raising `Cancelled`).
    """
    bundle.require_descriptions()
    bundle.require_problems()
    names = bundle.action_names
    outcomes: list[ActionOutcome] = []
    for index, name in enumerate(names):
        if task is not None:
            task.check_cancelled()
            task.report(index, len(names) + 1, f"drafting {name}")
        if on_action_start is not None:
            on_action_start(index, len(names), name)
        step = task.within(index, len(names) + 1, f"drafting {name}") if task is not None else None
        draft = draft_action(bundle, name, backend, evaluator, pool, options, template=template,
                             on_token=on_token, task=step)
        outcome = ActionOutcome(name, draft)
        outcomes.append(outcome)
        if workspace is not None:
            record(workspace, outcome, backend.name, options)
        if on_action is not None:
            on_action(outcome)
    if task is not None:
        task.report(len(names), len(names) + 1, "judging the drafted domain")
    candidate = assemble(bundle.domain, outcomes)
    judging = task.within(len(names), len(names) + 1, "judging the drafted domain") if task is not None else None
    comparison = evaluator.compare(bundle, candidate, task=judging)
    return DomainDraft(bundle.name, tuple(outcomes), candidate, comparison)


def record(workspace: WorkingCopy, outcome: ActionOutcome, model: str, options: DraftOptions, *,
           accept: bool = True) -> None:
    """Every round as an attempt; the final answer accepted if it passed the checks (and `accept`)."""
    said = {"class": options.description_class.value, "seed": options.seed, "grammar": options.grammar,
            "retries": options.retries}
    last = None
    for number, round_ in enumerate(outcome.draft.rounds):
        e = round_.evaluation
        last = workspace.add_attempt(outcome.name, round_.generation.text, source="model", model=model,
                                     options=said | {"round": number + 1},
                                     subclass=e.subclass.value if e.subclass else None, message=e.message)
    if accept and outcome.passed_checks and last is not None:
        workspace.accept(outcome.name, attempt=last.number)
