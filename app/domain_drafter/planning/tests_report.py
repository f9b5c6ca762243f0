"""What proving a tests file gives: a verdict per case with its evidence, all plain data (METHOD 6c)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.planning.validator import PlanValidation


class Verdict(str, enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    UNPROVEN = "unproven"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class TestSettings:
    """How hard the prover tries. `planner` False: never start Fast Downward (a stopped exploration is unproven)."""

    __test__ = False

    state_budget: int = 100_000      # reachable states explored per problem
    first_budget: int = 1_024        # states explored before a case is first checked; then 8 times more a round
    time_limit_s: float = 10.0       # exploration of one problem, and Fast Downward on one case
    planner: bool = True


@dataclass(frozen=True)
class Evidence:
    """Why a case came out as it did: a plan (checked by the validator), the step and atoms that matter."""

    problem: str
    plan: tuple[str, ...] = ()
    step: int | None = None              # 1-based step that matters (the failing step, the tested action)
    atoms: tuple[str, ...] = ()          # the atoms that matter (a failed precondition, a formula's ground atoms)
    state: tuple[str, ...] = ()          # the state the plan reaches (before `step` where one failed)
    binding: tuple[tuple[str, str], ...] = ()   # the formula's variables, for never / unreachable / reachable
    validation: PlanValidation | None = None    # the validator's verdict on `plan` for `goal`
    goal: tuple[str, ...] = ()           # the goal `validation` checked

    def to_dict(self) -> dict:
        return {"problem": self.problem, "plan": list(self.plan), "step": self.step, "atoms": list(self.atoms),
                "state": list(self.state), "binding": dict(self.binding), "goal": list(self.goal),
                "validation": self.validation.to_dict() if self.validation else None}


@dataclass(frozen=True)
class CaseResult:
    name: str
    kind: CaseKind
    verdict: Verdict
    message: str
    evidence: Evidence | None = None
    method: str = "validator"            # "validator", "exploration" or "planner"
    states: int = 0                      # reachable states explored (exploring kinds)
    elapsed_s: float = 0.0
    line: int = 0

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind.value, "verdict": self.verdict.value, "message": self.message,
                "evidence": self.evidence.to_dict() if self.evidence else None, "method": self.method,
                "states": self.states, "elapsed_s": round(self.elapsed_s, 4), "line": self.line}


@dataclass(frozen=True)
class TestsReport:
    __test__ = False

    domain: str
    results: tuple[CaseResult, ...]
    elapsed_s: float = 0.0

    def count(self, verdict: Verdict) -> int:
        return sum(r.verdict is verdict for r in self.results)

    @property
    def all_passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failed(self) -> tuple[CaseResult, ...]:
        return tuple(r for r in self.results if r.verdict is Verdict.FAIL)

    @property
    def unproven(self) -> tuple[CaseResult, ...]:
        return tuple(r for r in self.results if r.verdict is Verdict.UNPROVEN)

    def result(self, name: str) -> CaseResult:
        return next(r for r in self.results if r.name == name)

    def summary(self) -> str:
        return (f"{self.count(Verdict.PASS)} passed, {self.count(Verdict.FAIL)} failed, "
                f"{self.count(Verdict.UNPROVEN)} unproven ({len(self.results)} cases, {self.elapsed_s:.2f} s)")

    def to_dict(self) -> dict:
        return {"domain": self.domain, "passed": self.count(Verdict.PASS), "failed": self.count(Verdict.FAIL),
                "unproven": self.count(Verdict.UNPROVEN), "elapsed_s": round(self.elapsed_s, 4),
                "results": [r.to_dict() for r in self.results]}
