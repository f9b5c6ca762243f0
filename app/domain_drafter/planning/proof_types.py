"""Proven verdicts as data (METHOD 6a): how a verdict was established, and the distinguishing state.

`ProofReport` is what the state-space proof (`planning/proof.py`) returns; the consumers
(benchmark, reports, GUI, CLI) read only these types. Every `ProofCounterexample` carries
the validation of its plan in both domains: valid in exactly one of them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import ErrorRecord, error_fields, error_from_fields
from domain_drafter.planning.options import EquivalenceMode  # noqa: F401 - re-exported: consumers import it here
from domain_drafter.planning.validator import PlanValidation, plan_validation_from_dict


class ProofMethod(str, enum.Enum):
    """How the verdict was established."""

    SHORTCUT = "shortcut"        # equal up to renaming/order/duplicates, or a no-op difference
    EXPLORATION = "exploration"  # all reachable states enumerated and compared
    PLANNER = "planner"          # witness planning task: plan found / unsolvability proven
    HEURISTIC = "heuristic"      # proof not finished (budget/time-out): the paper's plans only

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class DistinguishingState:
    """A reachable state s of a problem where the two actions part on one grounding."""

    problem: str
    prefix: tuple[str, ...]      # plan steps "(a x y)" from the problem's init to s
    step: str                    # the ground action "(a x)" where the domains part
    atoms: tuple[str, ...]       # the atoms of s that matter (failing precondition / differing effect)
    reference: str               # what the reference domain does there, in words
    generated: str               # what the generated domain does there, in words
    kind: str = "applicability"  # "applicability" or "effect"
    issues: tuple[str, ...] = ()  # what is wrong with the generated action there: "missing precondition (clear ?x)"
    # the issues that say to take a literal out, as (section, literal over the action's parameters):
    # ("effect", "(not (at ?truck ?place))"); only those whose objects each stand for one parameter
    removals: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict:
        return {"problem": self.problem, "prefix": list(self.prefix), "step": self.step, "atoms": list(self.atoms),
                "reference": self.reference, "generated": self.generated, "kind": self.kind,
                "issues": list(self.issues), "removals": [list(r) for r in self.removals]}


@dataclass(frozen=True)
class ProofCounterexample:
    """A problem (P's objects and init, a constructed goal) and a plan valid in exactly one domain."""

    state: DistinguishingState
    plan: tuple[str, ...]        # prefix + step
    goal: tuple[str, ...]        # the constructed goal literals
    problem_pddl: str            # a complete PDDL problem (P's objects + init, that goal)
    valid_in: str                # "reference" or "generated"
    reference_validation: PlanValidation
    generated_validation: PlanValidation

    @property
    def message(self) -> str:
        other = "generated" if self.valid_in == "reference" else "reference"
        failing = self.generated_validation if other == "generated" else self.reference_validation
        where = f" after {' '.join(self.state.prefix)}" if self.state.prefix else " in the initial state"
        return (f"on problem {self.state.problem},{where}, {self.state.step} parts the domains: "
                f"the plan is valid in the {self.valid_in} domain only; in the {other} domain, {failing.message}")

    def to_dict(self) -> dict:
        return {"state": self.state.to_dict(), "plan": list(self.plan), "goal": list(self.goal),
                "problem_pddl": self.problem_pddl, "valid_in": self.valid_in,
                "reference_validation": self.reference_validation.to_dict(),
                "generated_validation": self.generated_validation.to_dict(), "message": self.message}


@dataclass(frozen=True)
class ProblemScore:
    """The agreement on one problem: explored states times groundings, and how many of those pairs agree."""

    problem: str
    states: int                  # reachable states of the reference counted
    groundings: int              # groundings of the action in either domain
    agreeing: int                # (state, grounding) pairs that behave alike in both domains
    complete: bool = True        # every reachable state counted (False: the budget or the clock stopped it)
    solvable: bool | None = None  # the answer's domain reaches this problem's goal (None: not decided)

    @property
    def pairs(self) -> int:
        return self.states * self.groundings

    def to_dict(self) -> dict:
        return {"problem": self.problem, "states": self.states, "groundings": self.groundings,
                "agreeing": self.agreeing, "pairs": self.pairs, "complete": self.complete, "solvable": self.solvable}


@dataclass(frozen=True)
class AgreementScore:
    """METHOD 6b: the share of (reachable state, grounding) pairs on which the answer behaves as the reference.

    1.0 exactly when the proof says Equivalent on the explored problems. A search heuristic and a
    progress measure, never a verdict. `shortcut`: decided equal without exploring (no pairs counted).
    """

    problems: tuple[ProblemScore, ...] = ()
    shortcut: bool = False

    @property
    def pairs(self) -> int:
        return sum(p.pairs for p in self.problems)

    @property
    def agreeing(self) -> int:
        return sum(p.agreeing for p in self.problems)

    @property
    def value(self) -> float:
        pairs = self.pairs
        return 1.0 if pairs == 0 else self.agreeing / pairs

    @property
    def complete(self) -> bool:
        return all(p.complete for p in self.problems)

    @property
    def solvable(self) -> int:
        """Problems whose goal the answer's domain is known to reach."""
        return sum(1 for p in self.problems if p.solvable)

    @property
    def percent(self) -> str:
        """'91%', never '100%' for a pair short of all of them (and never '0%' for one agreeing pair)."""
        if self.pairs == 0 or self.agreeing == self.pairs:
            return "100%"
        value = 100.0 * self.agreeing / self.pairs
        if value >= 99.5 or value < 0.5:
            return f"{min(max(value, 0.1), 99.9):.1f}%"
        return f"{value:.0f}%"

    @property
    def words(self) -> str:
        """'agrees on 91% of 1,240 state-action pairs; 1 of 2 problems solvable'."""
        if self.shortcut:
            return "agrees on every state-action pair (equal up to renaming and order)"
        text = f"agrees on {self.percent} of {self.pairs:,} state-action pairs"
        if not self.complete:
            text += " (of the states explored before the budget)"
        decided = [p for p in self.problems if p.solvable is not None]
        if decided and self.solvable < len(self.problems):
            text += f"; {self.solvable} of {len(self.problems)} problems solvable"
        return text

    def to_dict(self) -> dict:
        return {"value": self.value, "pairs": self.pairs, "agreeing": self.agreeing, "complete": self.complete,
                "solvable": self.solvable, "shortcut": self.shortcut, "words": self.words,
                "problems": [p.to_dict() for p in self.problems]}


def score_from_dict(data: dict | None) -> AgreementScore | None:
    if not data:
        return None
    problems = tuple(ProblemScore(str(p["problem"]), int(p["states"]), int(p["groundings"]), int(p["agreeing"]),
                                  bool(p.get("complete", True)), p.get("solvable"))
                     for p in data.get("problems", ()))
    return AgreementScore(problems, bool(data.get("shortcut", False)))


@dataclass(frozen=True)
class ProofReport:
    """The proven verdict. `subclass` is None only on an error (then `reason` says what went wrong)."""

    subclass: Subclass | None    # EQUIVALENT, NO_PLAN, NP_APP, OP_APP (None on error)
    method: ProofMethod
    proven: bool                 # False only for HEURISTIC (and errors)
    states: int                  # reachable states compared (all problems)
    problems: int
    counterexample: ProofCounterexample | None = None
    reason: str = ""             # e.g. why unproven: "state budget 200000 reached after ..."
    timings: dict = field(default_factory=dict, compare=False)
    error: ErrorRecord | None = None
    noplan_problem: str | None = None   # for NoPlan: the problem whose goal D' cannot reach
    score: AgreementScore | None = None  # METHOD 6b, beside the verdict (None: not computed)

    @property
    def message(self) -> str:
        if self.error:
            return self.error.message
        plural = "" if self.problems == 1 else "s"
        if self.method is ProofMethod.HEURISTIC:
            name = self.subclass.value if self.subclass else "No verdict"
            return f"{name} (heuristic, not proven): {self.reason}"
        if self.subclass is Subclass.EQUIVALENT:
            if self.method is ProofMethod.SHORTCUT:
                return f"Equivalent, proven: {self.reason}"
            if self.method is ProofMethod.EXPLORATION:
                return f"Equivalent, proven: {self.states} reachable states of {self.problems} problem{plural} compared"
            return f"Equivalent, proven: {self.reason}"
        if self.subclass is Subclass.NO_PLAN:
            detail = f": {self.reason}" if self.reason else ""
            where = ""
            cx = self.counterexample
            if cx is not None and cx.state.problem != self.noplan_problem:   # say where the state shown is from
                where = f" (the distinguishing state shown is on problem {cx.state.problem})"
            return (f"NoPlan, proven: on problem {self.noplan_problem}, the generated domain has no plan{detail}"
                    f"{where}")
        if self.counterexample is not None:
            return f"{self.subclass.value if self.subclass else 'Different'}, proven: {self.counterexample.message}"
        return self.reason

    def to_dict(self) -> dict:
        return {"subclass": self.subclass.value if self.subclass else None, "method": self.method.value,
                "proven": self.proven, "states": self.states, "problems": self.problems,
                "counterexample": self.counterexample.to_dict() if self.counterexample else None,
                "reason": self.reason, "timings": dict(self.timings), **error_fields(self.error),
                "noplan_problem": self.noplan_problem, "message": self.message,
                "score": self.score.to_dict() if self.score is not None else None}


def proof_from_dict(data: dict) -> ProofReport:
    """Rebuild a report from `to_dict()` output; KeyError/TypeError/ValueError on data of another shape."""
    cx = data.get("counterexample")
    counterexample = None
    if cx:
        s = cx["state"]
        state = DistinguishingState(str(s["problem"]), tuple(s["prefix"]), str(s["step"]), tuple(s["atoms"]),
                                    str(s["reference"]), str(s["generated"]), str(s.get("kind", "applicability")),
                                    tuple(str(i) for i in s.get("issues", ())),
                                    tuple((str(a), str(b)) for a, b in s.get("removals", ())))
        counterexample = ProofCounterexample(state, tuple(cx["plan"]), tuple(cx["goal"]), str(cx["problem_pddl"]),
                                             str(cx["valid_in"]),
                                             plan_validation_from_dict(cx["reference_validation"]),
                                             plan_validation_from_dict(cx["generated_validation"]))
    if not isinstance(data["proven"], bool) or not isinstance(data["states"], int):
        raise TypeError("a stored proof has fields of another type than this version writes")
    return ProofReport(Subclass.from_name(data["subclass"]) if data.get("subclass") else None,
                       ProofMethod(data["method"]), data["proven"], data["states"], int(data["problems"]),
                       counterexample, str(data.get("reason", "")), dict(data.get("timings", {})),
                       error_from_fields(data), data.get("noplan_problem"), score_from_dict(data.get("score")))
