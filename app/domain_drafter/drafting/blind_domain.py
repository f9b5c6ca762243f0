"""Blind drafting of a whole domain (issue 37): every action in turn, each judged blind (drafting/blind.py)
with the actions drafted so far in place of their references, then the whole draft compared with the
reference (`Evaluator.compare`).

An action's best answer takes its place in the working domain, where the actions after it are judged, only
when the blind judge accepted it; the actions not yet drafted, and those whose answer was not accepted, keep
theirs (the author's domain as it stands: an author keeps the version they have until a new one is good
enough). Why: an answer the judge refused is usually wrong, and the actions drafted after it would be judged
against it (gripper's move that never leaves its room, placed first, made every pick and drop look wrong).
Each action's reference verdict is computed after its search, for the report only: whether it is right.
D' holds every drafted action whose best answer passed the checks, accepted or not (the others are left
out, as in drafting/whole_domain.py), so `compare` judges the draft as the author would get it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.model import Domain
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.blind import acceptance_words, blind_setup, reference_verdict
from domain_drafter.drafting.options import DraftOptions, SearchOptions
from domain_drafter.drafting.records import SearchResult
from domain_drafter.llm.backend import GenerationBackend
from domain_drafter.planning.domain_compare import DomainComparison
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator


@dataclass(frozen=True)
class BlindOutcome:
    """One action: its blind search, whether the blind judge accepted the answer, and the reference's verdict."""

    name: str
    search: SearchResult
    reference: EvaluationResult | None
    placed: bool = False          # took the action's place while the actions after it were drafted (accepted)

    @property
    def answer(self) -> str | None:
        return self.search.best.answer if self.search.best is not None else None

    @property
    def accepted(self) -> bool:
        return self.search.best is not None and self.search.best.judgement.equivalent

    @property
    def verdict(self) -> str:
        """The blind judge's word on the answer (drafting/blind.acceptance_words)."""
        return acceptance_words(self.search.best.judgement if self.search.best is not None else None)

    @property
    def right(self) -> bool:
        """Proven Equivalent to the reference action."""
        ev = self.reference
        return (ev is not None and ev.subclass is not None and ev.subclass.value == "Equivalent"
                and (ev.proof is None or ev.proof.proven))

    def to_dict(self) -> dict:
        ev = self.reference
        return {"action": self.name, "accepted": self.accepted, "right": self.right, "calls": self.search.calls,
                "reference_subclass": ev.subclass.value if ev is not None and ev.subclass else None,
                "placed": self.placed, "answer": self.answer}


@dataclass(frozen=True)
class BlindDomainDraft:
    bundle: str
    outcomes: tuple[BlindOutcome, ...]
    candidate: Domain
    comparison: DomainComparison

    @property
    def right(self) -> int:
        return sum(1 for o in self.outcomes if o.right)

    @property
    def equivalent(self) -> bool:
        return self.comparison.verdict.value == "Equivalent"

    def to_dict(self) -> dict:
        return {"domain": self.bundle, "blind": True, "actions": [o.to_dict() for o in self.outcomes],
                "right": self.right, "of": len(self.outcomes), "verdict": self.comparison.verdict.value,
                "whole_draft_equivalent": self.equivalent, "comparison": self.comparison.to_dict(),
                "candidate_pddl": self.candidate.to_pddl()}


def draft_domain_blind(bundle: DomainBundle, backend: GenerationBackend, evaluator: Evaluator,
                       pool: Sequence[DomainBundle], draft: DraftOptions, options: SearchOptions, *,
                       template: PromptTemplate | None = None,
                       on_action: Callable[[BlindOutcome], None] | None = None,
                       task: TaskState | None = None, use_tests: bool = True) -> BlindDomainDraft:
    """Draft every action of `bundle` blind, in order, then compare the draft with the reference.
    `use_tests` False: the blind judge leaves the domain's tests file out (drafting/blind.blind_setup)."""
    from domain_drafter.drafting.search import search_action

    bundle.require_descriptions()
    bundle.require_problems()
    working = bundle.domain
    drafted: dict[str, object] = {}
    outcomes: list[BlindOutcome] = []
    names = bundle.action_names
    for index, name in enumerate(names):
        step = task.within(index, len(names) + 1, f"drafting {name} blind") if task is not None else None
        current = dataclasses.replace(bundle, domain=working, domain_text=working.to_pddl())
        setup = blind_setup(current, name, evaluator, options, step, use_tests=use_tests)
        result = search_action(setup.bundle, name, backend, evaluator, pool, draft, setup.options,
                               template=template, judge=setup.judge, task=step)
        best = result.best
        reference = reference_verdict(bundle, name, best.answer, evaluator, step).evaluation if best else None
        placed = False
        if best is not None and best.judgement.check.passed and best.judgement.check.action is not None:
            drafted[name] = best.judgement.check.action
            if best.judgement.equivalent:
                working = working.with_action(best.judgement.check.action, replacing=name)
                placed = True
        outcome = BlindOutcome(name, result, reference, placed)
        outcomes.append(outcome)
        if on_action is not None:
            on_action(outcome)
    candidate = dataclasses.replace(bundle.domain, actions=tuple(drafted[n] for n in names if n in drafted))
    judging = task.within(len(names), len(names) + 1, "judging the drafted domain") if task is not None else None
    comparison = evaluator.compare(bundle, candidate, task=judging)
    return BlindDomainDraft(bundle.name, tuple(outcomes), candidate, comparison)
