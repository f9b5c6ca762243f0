"""Heuristic domain equivalence (METHOD 6): cross-validate top-k plans of D and D' on every problem.

Decided in this order, each with a counterexample a person can read:
NoPlan (D' has no plan for some problem), then NPApp (a D' plan is invalid in D),
then OPApp (a D plan is invalid in D'); otherwise Equivalent. Both directions are validated
fully, not pairwise.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Sequence

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import Domain
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.planning.kstar import KStarPlanner, PlannerResult, PlannerStatus
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.validator import PlanValidation, PlanValidator, plan_validation_from_dict


@dataclass(frozen=True)
class Counterexample:
    """Why D' differs from D: on which problem, which plan, and what failed where."""

    problem: str
    direction: str                     # "generated-in-reference" (NPApp) or "reference-in-generated" (OPApp)
    plan: tuple[str, ...] = ()
    validation: PlanValidation | None = None
    planner_status: str | None = None  # for NoPlan: "unsolvable" or "timeout"

    @property
    def message(self) -> str:
        if self.planner_status is not None:
            if self.planner_status == PlannerStatus.TIMEOUT.value:
                return f"on problem {self.problem}, the planner timed out in the generated domain"
            return f"on problem {self.problem}, the generated domain has no plan"
        owner, judge = (("generated", "reference") if self.direction == "generated-in-reference"
                        else ("reference", "generated"))
        detail = self.validation.message if self.validation is not None else ""
        return f"on problem {self.problem}, a plan of the {owner} domain fails in the {judge} domain: {detail}"

    def to_dict(self) -> dict:
        return {"problem": self.problem, "direction": self.direction, "plan": list(self.plan),
                "validation": self.validation.to_dict() if self.validation is not None else None,
                "planner_status": self.planner_status, "message": self.message}


@dataclass(frozen=True)
class ProblemStats:
    problem: str
    reference_plans: int
    generated_plans: int
    generated_status: str
    planner_s: float


@dataclass(frozen=True)
class EquivalenceReport:
    """The plan-based verdict. `subclass` is None only when `error` says why no verdict could be given."""

    subclass: Subclass | None
    counterexample: Counterexample | None = None
    error: str | None = None
    problems: tuple[ProblemStats, ...] = field(default=())
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def timed_out(self) -> bool:
        return self.counterexample is not None and self.counterexample.planner_status == PlannerStatus.TIMEOUT.value

    @property
    def message(self) -> str:
        if self.error:
            return self.error
        if self.subclass is Subclass.EQUIVALENT:
            n = sum(p.reference_plans + p.generated_plans for p in self.problems)
            count = len(self.problems)
            return f"all {n} plans validate in both domains on {count} problem{'' if count == 1 else 's'}"
        return self.counterexample.message if self.counterexample else ""

    def to_dict(self) -> dict:
        return {
            "subclass": self.subclass.value if self.subclass else None,
            "message": self.message, "error": self.error, "timed_out": self.timed_out,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "problems": [p.__dict__ for p in self.problems], "timings": dict(self.timings),
        }


def equivalence_from_dict(data: dict) -> EquivalenceReport:
    """Rebuild a report from `to_dict()` output (the verdict cache and results stores use this)."""
    cx = data.get("counterexample")
    counterexample = None
    if cx:
        validation = plan_validation_from_dict(cx["validation"]) if cx.get("validation") else None
        counterexample = Counterexample(cx["problem"], cx["direction"], tuple(cx.get("plan", ())), validation,
                                        cx.get("planner_status"))
    return EquivalenceReport(
        Subclass.from_name(data["subclass"]) if data.get("subclass") else None,
        counterexample, data.get("error"),
        tuple(ProblemStats(**p) for p in data.get("problems", ())), dict(data.get("timings", {})))


def _show(plan: Sequence[Sequence[str]]) -> tuple[str, ...]:
    return tuple(f"({' '.join(step)})" for step in plan)


def check_equivalence(reference: Domain, generated: Domain, problems: Sequence[ProblemFile],
                      planner: KStarPlanner, plan_cache: PlanCache, *, reference_text: str | None = None,
                      task: TaskState | None = None) -> EquivalenceReport:
    """Compare D' (`generated`) with D (`reference`) on `problems`."""
    started = time.perf_counter()
    ref_text = reference_text if reference_text is not None else reference.to_pddl()
    gen_text = generated.to_pddl()

    total = len(problems) + 1
    done = [0]

    def plan_problem(problem: ProblemFile) -> tuple[PlannerResult, PlannerResult]:
        ref = plan_cache.plans(ref_text, problem.text, task=task, label=f"reference/{problem.name}")
        gen = planner.plan(gen_text, problem.text, task=task, label=f"generated/{problem.name}")
        if task is not None:
            done[0] += 1
            task.report(done[0], total, f"planned {problem.name}")
        return ref, gen

    if task is not None:
        task.report(0, total, "planning with K*")

    with ThreadPoolExecutor(max_workers=max(1, len(problems))) as pool:
        results = list(pool.map(plan_problem, problems))
    planned = time.perf_counter()
    if task is not None and task.cancelled:
        raise Cancelled()

    stats = tuple(ProblemStats(p.name, len(r.plans), len(g.plans), g.status.value, g.wall_time_s)
                  for p, (r, g) in zip(problems, results))
    timings = {"plan_s": planned - started}

    for problem, (ref, _) in zip(problems, results):
        if ref.status is not PlannerStatus.SOLVED:
            return EquivalenceReport(None, error=f"the reference domain could not be planned on {problem.name}: "
                                                 f"{ref.message}", problems=stats, timings=timings)
    for problem, (_, gen) in zip(problems, results):
        if gen.status in (PlannerStatus.UNSOLVABLE, PlannerStatus.TIMEOUT):
            return EquivalenceReport(Subclass.NO_PLAN, Counterexample(problem.name, "generated-in-reference",
                                                                      planner_status=gen.status.value),
                                     problems=stats, timings=timings)
        if gen.status is PlannerStatus.CANCELLED:
            raise Cancelled()
        if gen.status is not PlannerStatus.SOLVED:
            return EquivalenceReport(None, error=f"the planner failed on the generated domain ({problem.name}): "
                                                 f"{gen.message}", problems=stats, timings=timings)

    checks = (
        (Subclass.NP_APP, "generated-in-reference", reference, 1),
        (Subclass.OP_APP, "reference-in-generated", generated, 0),
    )
    for subclass, direction, judge, which in checks:
        for problem, pair in zip(problems, results):
            validator = PlanValidator(judge, problem.problem)
            for plan in pair[which].plans:
                verdict = validator.validate(plan)
                if not verdict.valid:
                    timings["validate_s"] = time.perf_counter() - planned
                    return EquivalenceReport(subclass, Counterexample(problem.name, direction, _show(plan), verdict),
                                             problems=stats, timings=timings)
    timings["validate_s"] = time.perf_counter() - planned
    if task is not None:
        task.report(total, total, "plans cross-validated")
    return EquivalenceReport(Subclass.EQUIVALENT, problems=stats, timings=timings)
