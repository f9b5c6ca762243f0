"""Heuristic domain equivalence (METHOD 6): cross-validate top-k plans of D and D' on every problem.

Decided in this order, each with a counterexample a person can read:
NoPlan (D' has no plan for some problem), then NPApp (a D' plan is invalid in D),
then OPApp (a D plan is invalid in D'); otherwise Equivalent. Both directions are validated
fully, not pairwise.

The problems are planned in parallel. A proven NoPlan decides the verdict, so it cancels the
planner runs still going, and it wins over another problem's planner error (that error could
only have left the verdict open). A failure that raises cancels the sibling runs before it
propagates; so does a cancel of the caller's task.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import ErrorKind, ErrorRecord, error_fields, error_from_fields
from domain_drafter.core.model import Domain
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.planning.kstar import KStarPlanner, PlannerResult, PlannerStatus
from domain_drafter.planning.kstar_input import kstar_input
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.validator import PlanValidation, PlanValidator, plan_validation_from_dict

_NO_PLAN = (PlannerStatus.UNSOLVABLE, PlannerStatus.TIMEOUT)


class Direction(str, enum.Enum):
    """Which plans were validated in which domain (str-valued: JSON keeps the same strings)."""

    GENERATED_IN_REFERENCE = "generated-in-reference"   # NPApp (and NoPlan's counterexample)
    REFERENCE_IN_GENERATED = "reference-in-generated"   # OPApp

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Counterexample:
    """Why D' differs from D: on which problem, which plan, and what failed where."""

    problem: str
    direction: Direction
    plan: tuple[str, ...] = ()
    validation: PlanValidation | None = None
    planner_status: PlannerStatus | None = None  # for NoPlan: UNSOLVABLE or TIMEOUT

    @property
    def message(self) -> str:
        if self.planner_status is not None:
            if self.planner_status is PlannerStatus.TIMEOUT:
                return f"on problem {self.problem}, the planner timed out in the generated domain"
            return f"on problem {self.problem}, the generated domain has no plan"
        owner, judge = (("generated", "reference") if self.direction is Direction.GENERATED_IN_REFERENCE
                        else ("reference", "generated"))
        detail = self.validation.message if self.validation is not None else ""
        return f"on problem {self.problem}, a plan of the {owner} domain fails in the {judge} domain: {detail}"

    def to_dict(self) -> dict:
        return {"problem": self.problem, "direction": self.direction.value, "plan": list(self.plan),
                "validation": self.validation.to_dict() if self.validation is not None else None,
                "planner_status": self.planner_status.value if self.planner_status is not None else None,
                "message": self.message}


@dataclass(frozen=True)
class ProblemStats:
    problem: str
    reference_plans: int
    generated_plans: int
    generated_status: PlannerStatus
    planner_s: float

    def to_dict(self) -> dict:
        return {"problem": self.problem, "reference_plans": self.reference_plans,
                "generated_plans": self.generated_plans, "generated_status": self.generated_status.value,
                "planner_s": self.planner_s}


@dataclass(frozen=True)
class EquivalenceReport:
    """The plan-based verdict. `subclass` is None only when `error` says why no verdict could be given."""

    subclass: Subclass | None
    counterexample: Counterexample | None = None
    error: ErrorRecord | None = None
    problems: tuple[ProblemStats, ...] = field(default=())
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def timed_out(self) -> bool:
        return self.counterexample is not None and self.counterexample.planner_status is PlannerStatus.TIMEOUT

    @property
    def message(self) -> str:
        if self.error:
            return self.error.message
        if self.subclass is Subclass.EQUIVALENT:
            n = sum(p.reference_plans + p.generated_plans for p in self.problems)
            count = len(self.problems)
            return f"all {n} plans validate in both domains on {count} problem{'' if count == 1 else 's'}"
        return self.counterexample.message if self.counterexample else ""

    def to_dict(self) -> dict:
        return {
            "subclass": self.subclass.value if self.subclass else None,
            "message": self.message, **error_fields(self.error), "timed_out": self.timed_out,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "problems": [p.to_dict() for p in self.problems], "timings": dict(self.timings),
        }


def equivalence_from_dict(data: dict) -> EquivalenceReport:
    """Rebuild a report from `to_dict()` output (the verdict cache and results stores use this).

    Raises KeyError, TypeError or ValueError on data of another shape (callers treat it as absent).
    """
    cx = data.get("counterexample")
    counterexample = None
    if cx:
        validation = plan_validation_from_dict(cx["validation"]) if cx.get("validation") else None
        status = cx.get("planner_status")
        counterexample = Counterexample(cx["problem"], Direction(cx["direction"]), tuple(cx.get("plan", ())),
                                        validation, PlannerStatus(status) if status is not None else None)
    problems = tuple(ProblemStats(p["problem"], int(p["reference_plans"]), int(p["generated_plans"]),
                                  PlannerStatus(p["generated_status"]), float(p["planner_s"]))
                     for p in data.get("problems", ()) if _exact_keys(p, ProblemStats))
    return EquivalenceReport(
        Subclass.from_name(data["subclass"]) if data.get("subclass") else None,
        counterexample, error_from_fields(data), problems, dict(data.get("timings", {})))


def _exact_keys(entry: object, cls: type) -> bool:
    """A stored entry must have exactly the fields of `cls`: a row from another version is not guessed at."""
    if not isinstance(entry, dict) or set(entry) != set(cls.__dataclass_fields__):
        raise TypeError(f"a stored {cls.__name__} has other fields than this version knows")
    return True


def _show(plan: Sequence[Sequence[str]]) -> tuple[str, ...]:
    return tuple(f"({' '.join(step)})" for step in plan)


@dataclass(frozen=True)
class _Planned:
    """One problem's planner results; `generated` is SKIPPED when the reference gave no plans."""

    reference: PlannerResult
    generated: PlannerResult


def _skipped(reason: str) -> PlannerResult:
    return PlannerResult(PlannerStatus.SKIPPED, (), 0.0, None, (), reason, "")


def check_equivalence(reference: Domain, generated: Domain, problems: Sequence[ProblemFile],
                      planner: KStarPlanner, plan_cache: PlanCache, *, reference_text: str | None = None,
                      task: TaskState | None = None) -> EquivalenceReport:
    """Compare D' (`generated`) with D (`reference`) on `problems`."""
    started = time.perf_counter()
    texts = kstar_input(reference, generated, problems, reference_text)
    # Cancelled with the caller's task, and on its own when the verdict is decided or a worker fails.
    local = task.child() if task is not None else TaskState()
    total = len(problems) + 1
    done = [0]

    def plan_problem(problem: ProblemFile, problem_text: str) -> _Planned:
        ref = plan_cache.plans(texts.reference, problem_text, task=local, label=f"reference/{problem.name}")
        if ref.status is not PlannerStatus.SOLVED:
            return _Planned(ref, _skipped("the reference gave no plans"))
        gen = planner.plan(texts.generated, problem_text, task=local, label=f"generated/{problem.name}")
        if gen.status in _NO_PLAN:
            local.cancel()  # NoPlan is decided; no other problem can change that
        if task is not None:
            done[0] += 1
            task.report(done[0], total, f"planned {problem.name}")
        return _Planned(ref, gen)

    if task is not None:
        task.report(0, total, "planning with K*")
    pool = ThreadPoolExecutor(max_workers=max(1, len(problems)))
    try:
        futures = [pool.submit(plan_problem, p, t) for p, t in zip(problems, texts.problems)]
        finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for future in finished:
            if future.exception() is not None:
                raise future.exception()  # type: ignore[misc]
        results = [f.result() for f in futures]
    except BaseException:
        local.cancel()  # the sibling runs stop within a poll interval; then the pool is joined
        raise
    finally:
        pool.shutdown(wait=True)
    planned = time.perf_counter()
    if task is not None and task.cancelled:
        raise Cancelled()

    stats = tuple(ProblemStats(p.name, len(r.reference.plans), len(r.generated.plans), r.generated.status,
                               r.generated.wall_time_s) for p, r in zip(problems, results))
    timings = {"plan_s": planned - started}

    # A proven NoPlan on any problem decides, whatever went wrong elsewhere.
    for problem, r in zip(problems, results):
        if r.generated.status in _NO_PLAN:
            return EquivalenceReport(Subclass.NO_PLAN, Counterexample(problem.name, Direction.GENERATED_IN_REFERENCE,
                                                                      planner_status=r.generated.status),
                                     problems=stats, timings=timings)
    for problem, r in zip(problems, results):
        if r.reference.status is not PlannerStatus.SOLVED:
            why = f"the reference domain could not be planned on {problem.name}: {r.reference.message}"
            return EquivalenceReport(None, error=ErrorRecord(ErrorKind.PLANNER, why, problem.name),
                                     problems=stats, timings=timings)
    for problem, r in zip(problems, results):
        if r.generated.status is not PlannerStatus.SOLVED:
            why = f"the planner failed on the generated domain ({problem.name}): {r.generated.message}"
            return EquivalenceReport(None, error=ErrorRecord(ErrorKind.PLANNER, why, problem.name),
                                     problems=stats, timings=timings)

    checks = (
        (Subclass.NP_APP, Direction.GENERATED_IN_REFERENCE, reference, "generated"),
        (Subclass.OP_APP, Direction.REFERENCE_IN_GENERATED, generated, "reference"),
    )
    for subclass, direction, judge, which in checks:
        for problem, r in zip(problems, results):
            validator = PlanValidator(judge, problem.problem)
            for plan in getattr(r, which).plans:
                verdict = validator.validate(plan)
                if not verdict.valid:
                    timings["validate_s"] = time.perf_counter() - planned
                    return EquivalenceReport(subclass, Counterexample(problem.name, direction, _show(plan), verdict),
                                             problems=stats, timings=timings)
    timings["validate_s"] = time.perf_counter() - planned
    if task is not None:
        task.report(total, total, "plans cross-validated")
    return EquivalenceReport(Subclass.EQUIVALENT, problems=stats, timings=timings)
