"""Whole-domain comparison: is a candidate domain equivalent to the reference on the reference's problems?

The same plan-based check as for one action (METHOD 6), applied to a domain where any
number of actions may differ. On a difference, the counterexample plan is replayed in both
domains side by side; the first step where they part names the action to blame (before that
step both states are equal, so only an action that differs can make them part).

In the proven mode (the default) the state-space proof (METHOD 6a) runs beside the plans over
all the actions that differ at once: the first reachable state where any of them behaves
otherwise is its counterexample, and its last step names the action to blame. Its verdict
decides where it finished; it adds to the plans and the replay, it does not replace them.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from domain_drafter.core.are import AreReport, action_reconstruction_error
from domain_drafter.core.bundle import DomainBundle, ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import DomainError, ErrorRecord, error_fields
from domain_drafter.core.model import EQUALITY, ActionSchema, Atom, Domain, canonical_action
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.equivalence import Counterexample, EquivalenceReport, check_equivalence
from domain_drafter.planning.fd_search import FastDownwardSearch
from domain_drafter.planning.kstar import KStarPlanner, PlannerStatus, parse_step
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import EquivalenceMode, ProofCounterexample, ProofReport
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.validator import PlanValidator

Step = tuple[str, ...]


class DomainVerdict(enum.Enum):
    """The whole-domain verdict."""

    EQUIVALENT = "Equivalent"
    DIFFERENT = "Different"
    INCOMPLETE = "Incomplete"      # the candidate lacks some of the reference's actions


class ActionStatus(enum.Enum):
    SAME = "same"
    CHANGED = "changed"
    MISSING = "missing"            # in the reference only
    EXTRA = "extra"                # in the candidate only


@dataclass(frozen=True)
class ActionDiff:
    """How one action of the candidate relates to the reference's action of that name."""

    name: str
    status: ActionStatus
    are: AreReport | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status.value, "are": self.are.to_dict() if self.are else None}


@dataclass(frozen=True)
class Divergence:
    """The first step of a plan where the two domains part, and the action to blame."""

    problem: str
    plan: tuple[str, ...]
    step: int                      # 1-based
    action: str
    reason: str                    # "precondition" or "effect"
    message: str

    def to_dict(self) -> dict:
        return dataclasses.asdict(self) | {"plan": list(self.plan)}


@dataclass(frozen=True)
class DomainComparison:
    """The verdict on a candidate domain, with the evidence behind it."""

    verdict: DomainVerdict
    equivalence: EquivalenceReport
    actions: tuple[ActionDiff, ...]
    divergence: Divergence | None = None
    timings: dict = field(default_factory=dict, compare=False)
    proof: ProofReport | None = None     # METHOD 6a over every differing action (None in paper mode)

    @property
    def proven(self) -> bool:
        """The proof finished with a verdict (then it is the verdict)."""
        return self.proof is not None and self.proof.proven and self.proof.subclass is not None

    @property
    def subclass(self) -> Subclass | None:
        if self.proven:
            assert self.proof is not None
            return self.proof.subclass
        return self.equivalence.subclass

    @property
    def error(self) -> ErrorRecord | None:
        return self.equivalence.error

    @property
    def counterexample(self) -> Counterexample | None:
        return self.equivalence.counterexample

    def names(self, status: ActionStatus) -> tuple[str, ...]:
        return tuple(a.name for a in self.actions if a.status is status)

    @property
    def missing(self) -> tuple[str, ...]:
        return self.names(ActionStatus.MISSING)

    @property
    def changed(self) -> tuple[str, ...]:
        return self.names(ActionStatus.CHANGED)

    @property
    def are_total(self) -> int:
        return sum(a.are.total for a in self.actions if a.are is not None)

    @property
    def message(self) -> str:
        if self.error:
            return self.error.message
        parts = []
        verdict = ""
        if self.subclass is Subclass.EQUIVALENT and self.proven:
            verdict = self.proof.message if self.proof is not None else ""
        elif self.subclass is Subclass.EQUIVALENT:
            verdict = self._said()
            if self.proof is not None and not self.proof.proven:
                verdict = f"Equivalent (heuristic: {verdict}; unproven: {self.proof.reason or 'the proof did not finish'})"
        elif self.proven and self.equivalence.subclass is Subclass.EQUIVALENT and self.proof is not None:
            verdict = f"{self.subclass.value}, proven (the plans alone missed it): {_proof_said(self.proof)}"
        elif self.subclass is not None:
            verdict = f"{self.subclass.value}: {self._said()}"
        if self.verdict is DomainVerdict.INCOMPLETE:
            place = "their" if len(self.missing) > 1 else "its"
            verdict = (f"the candidate has no {', '.join(self.missing)}; with the reference's in {place} place, "
                       f"{verdict}")
        parts.append(verdict)
        if self.divergence is not None:
            parts.append(f"blame '{self.divergence.action}': {self.divergence.message}")
        return "; ".join(p for p in parts if p)

    def _said(self) -> str:
        """The equivalence verdict in words, naming the candidate (not a 'generated' action) as such."""
        cx = self.counterexample
        if cx is None or self.subclass is Subclass.EQUIVALENT:
            return self.equivalence.message
        if cx.planner_status is not None:
            timed_out = cx.planner_status == PlannerStatus.TIMEOUT.value
            return (f"on problem {cx.problem}, the planner " + ("timed out in the candidate domain" if timed_out
                                                                else "finds no plan in the candidate domain"))
        owner, judge = (("candidate", "reference") if cx.direction == "generated-in-reference"
                        else ("reference", "candidate"))
        detail = cx.validation.message if cx.validation is not None else ""
        return f"on problem {cx.problem}, a plan of the {owner} domain fails in the {judge} domain: {detail}"

    def to_dict(self) -> dict:
        return {"verdict": self.verdict.value, "subclass": self.subclass.value if self.subclass else None,
                "message": self.message, **error_fields(self.error), "missing": list(self.missing),
                "changed": list(self.changed), "are_total": self.are_total,
                "actions": [a.to_dict() for a in self.actions],
                "divergence": self.divergence.to_dict() if self.divergence else None,
                "equivalence": self.equivalence.to_dict(), "proof": self.proof.to_dict() if self.proof else None,
                "timings": dict(self.timings)}


def _proof_said(proof: ProofReport) -> str:
    """The proof's counterexample in words, naming the candidate (not a 'generated' domain) as such."""
    cx = proof.counterexample
    if cx is None:
        return proof.message
    s = cx.state
    where = f"after {' '.join(s.prefix)}" if s.prefix else "in the initial state"
    valid_in = "candidate" if cx.valid_in == "generated" else "reference"
    failing = cx.generated_validation if cx.valid_in == "reference" else cx.reference_validation
    return (f"on problem {s.problem}, {where}, {s.step} parts the domains: the plan is valid in the {valid_in} "
            f"domain only ({failing.message})")


def action_diffs(reference: Domain, candidate: Domain) -> tuple[ActionDiff, ...]:
    """Per action: same, changed (with its ARE), missing from the candidate, or extra in it."""
    out: list[ActionDiff] = []
    for ref in reference.actions:
        cand = candidate.action_map.get(ref.name)
        if cand is None:
            out.append(ActionDiff(ref.name, ActionStatus.MISSING))
            continue
        same = canonical_action(ref) == canonical_action(cand)
        out.append(ActionDiff(ref.name, ActionStatus.SAME if same else ActionStatus.CHANGED,
                              action_reconstruction_error(ref, cand)))
    out.extend(ActionDiff(a.name, ActionStatus.EXTRA) for a in candidate.actions if a.name not in reference.action_map)
    return tuple(out)


def check_problems_fit(candidate: Domain, problems: Sequence[ProblemFile]) -> None:
    """The reference's problems must be stated in the candidate's vocabulary; DomainError naming the problem if not."""
    for pf in problems:
        objects = {**candidate.constant_map, **pf.problem.object_map}
        for obj in pf.problem.objects:
            if obj.type != "object" and obj.type not in candidate.types:
                raise DomainError(f"object '{obj.name}' has type '{obj.type}', which the candidate domain does "
                                  "not declare", where=pf.path)
        for atom in sorted(pf.problem.init) + [l.atom for l in pf.problem.goal]:
            signature = candidate.predicate_map.get(atom.predicate)
            if signature is None:
                raise DomainError(f"{atom} uses '{atom.predicate}', which the candidate domain does not declare",
                                  where=pf.path, hint="a comparison plans the reference's problems in both domains")
            if len(atom.args) != signature.arity:
                raise DomainError(f"{atom} has {len(atom.args)} arguments, but the candidate's "
                                  f"'{atom.predicate}' takes {signature.arity}", where=pf.path)
            for arg, param in zip(atom.args, signature.parameters):
                obj = objects.get(arg)
                if obj is not None and not candidate.types.is_subtype(obj.type, param.type):
                    raise DomainError(f"in {atom}, '{arg}' is a {obj.type}, but the candidate's "
                                      f"'{atom.predicate}' expects a {param.type}", where=pf.path)


def completed(reference: Domain, candidate: Domain) -> Domain:
    """The candidate under the reference's name, with the reference's actions for those it lacks."""
    missing = tuple(a for a in reference.actions if a.name not in candidate.action_map)
    return dataclasses.replace(candidate, name=reference.name, actions=candidate.actions + missing)


def compare_domains(reference: DomainBundle, candidate: Domain, planner: KStarPlanner, plan_cache: PlanCache,
                    *, task: TaskState | None = None, options=None, states: StateCache | None = None,
                    search: FastDownwardSearch | None = None) -> DomainComparison:
    """Judge `candidate` against `reference` on the reference's problems (METHOD 6, whole domain).

    `options` (an EvaluationOptions; default: proven) picks the mode, the state budget and the
    proof's time limit; `states` caches the reference's reachable states (default: beside the plans),
    `search` is the witness planner past the budget. An Evaluator has all three: pass its own.
    """
    problems = reference.require_problems()
    check_problems_fit(candidate, problems)
    diffs = action_diffs(reference.domain, candidate)
    judged = completed(reference.domain, candidate)
    reference_text = reference.domain.to_pddl()
    report = check_equivalence(reference.domain, judged, problems, planner, plan_cache,
                               reference_text=reference_text, task=task)
    proof = None
    if options is None or options.equivalence is EquivalenceMode.PROVEN:
        settings = (ProofSettings(options.state_budget, options.proof_time_limit_s) if options is not None
                    else ProofSettings())
        differing = [d.name for d in diffs if d.status in (ActionStatus.CHANGED, ActionStatus.EXTRA)]
        proof = prove_equivalence(reference.domain, judged, problems, actions=differing or None,
                                  reference_text=reference_text, settings=settings,
                                  states=states if states is not None else StateCache(plan_cache.folder / "states"),
                                  search=search, task=task)
    divergence = None
    if report.subclass in (Subclass.NP_APP, Subclass.OP_APP) and report.counterexample is not None:
        problem = _problem(problems, report.counterexample.problem)
        plan = tuple(parse_step(s) for s in report.counterexample.plan)
        divergence = first_divergence(reference.domain, judged, problem, plan)
    elif report.subclass is Subclass.NO_PLAN and report.counterexample is not None:
        # the candidate has no plan, so some reference plan fails in it: replay that one
        problem = _problem(problems, report.counterexample.problem)
        plans = plan_cache.plans(reference_text, problem.text, task=task).plans
        validator = PlanValidator(judged, problem.problem)
        witness = next((p for p in plans if not validator.validate(p).valid), None)
        if witness is not None:
            divergence = first_divergence(reference.domain, judged, problem, witness)
    if divergence is None and proof is not None and proof.counterexample is not None:
        divergence = _proof_divergence(reference.domain, judged, problems, proof.counterexample)
    timings = dict(report.timings) | {k if k.startswith("proof") else f"proof_{k}": v
                                      for k, v in (proof.timings if proof else {}).items()}
    comparison = DomainComparison(DomainVerdict.DIFFERENT, report, diffs, divergence, timings, proof)
    if any(d.status is ActionStatus.MISSING for d in diffs):
        verdict = DomainVerdict.INCOMPLETE
    elif comparison.subclass is Subclass.EQUIVALENT:
        verdict = DomainVerdict.EQUIVALENT
    else:
        verdict = DomainVerdict.DIFFERENT
    return dataclasses.replace(comparison, verdict=verdict)


def _proof_divergence(reference: Domain, candidate: Domain, problems: Sequence[ProblemFile],
                      cx: ProofCounterexample) -> Divergence | None:
    """The proof's plan replayed like any counterexample: the domains part at its last step."""
    plan = tuple(parse_step(s) for s in cx.plan)
    return first_divergence(reference, candidate, _problem(problems, cx.state.problem), plan)


def _problem(problems: Sequence[ProblemFile], name: str) -> ProblemFile:
    return next(p for p in problems if p.name == name)


# ---------------------------------------------------------------- replaying a plan in both domains

def first_divergence(reference: Domain, candidate: Domain, problem: ProblemFile,
                     plan: Sequence[Step]) -> Divergence | None:
    """Replay `plan` in both domains from the problem's initial state; the first step where they part."""
    objects = {**{c.name: c.type for c in reference.constants}, **{c.name: c.type for c in candidate.constants},
               **{o.name: o.type for o in problem.problem.objects}}
    state = {(a.predicate, *a.args) for a in problem.problem.init}
    shown_plan = tuple(f"({' '.join(s)})" for s in plan)
    for number, step in enumerate(plan, start=1):
        call = f"({' '.join(step)})"
        ref_next, ref_why = _apply(reference, step, state, objects)
        cand_next, cand_why = _apply(candidate, step, state, objects)
        name = step[0] if step else ""
        if ref_next is None and cand_next is None:
            return None  # fails in both alike: not a difference between the domains
        if ref_next is None or cand_next is None:
            where, why = ("reference", ref_why) if ref_next is None else ("candidate", cand_why)
            other = "candidate" if where == "reference" else "reference"
            return Divergence(problem.name, shown_plan, number, name, "precondition",
                              f"step {number} {call} is possible in the {other} domain but not in the {where} "
                              f"domain: {why}")
        if ref_next != cand_next:
            only_cand = sorted(cand_next - ref_next)
            only_ref = sorted(ref_next - cand_next)
            said = []
            if only_cand:
                said.append(f"{' '.join(map(_show, only_cand))} hold{'s' if len(only_cand) == 1 else ''} "
                            "only in the candidate domain")
            if only_ref:
                said.append(f"{' '.join(map(_show, only_ref))} hold{'s' if len(only_ref) == 1 else ''} "
                            "only in the reference domain")
            return Divergence(problem.name, shown_plan, number, name, "effect",
                              f"after step {number} {call}, " + " and ".join(said))
        state = ref_next
    return None


def _show(atom: tuple[str, ...]) -> str:
    return f"({' '.join(atom)})"


def _apply(domain: Domain, step: Step, state: set, objects: dict[str, str]) -> tuple[set | None, str]:
    """The state after `step`, or None and why it is not possible."""
    action: ActionSchema | None = domain.action_map.get(step[0]) if step else None
    if action is None:
        return None, f"the domain has no action '{step[0] if step else ''}'"
    args = step[1:]
    if len(args) != len(action.parameters):
        return None, f"'{action.name}' takes {len(action.parameters)} arguments"
    for arg, param in zip(args, action.parameters):
        if arg not in objects or not domain.types.is_subtype(objects[arg], param.type):
            return None, f"'{arg}' is no {param.type}"
    binding = dict(zip(action.parameter_names, args))

    def ground(atom: Atom) -> tuple[str, ...]:
        return (atom.predicate, *(binding.get(a, a) for a in atom.args))

    unmet = []
    for literal in action.precondition:
        atom = ground(literal.atom)
        holds = (len(atom) == 3 and atom[1] == atom[2]) if literal.atom.predicate == EQUALITY else atom in state
        if holds != literal.positive:
            unmet.append(_show(atom) if literal.positive else f"(not {_show(atom)})")
    if unmet:
        return None, f"precondition{'s' if len(unmet) > 1 else ''} {' '.join(unmet)} not satisfied"
    after = set(state) - {ground(a) for a in action.delete}
    return after | {ground(a) for a in action.add}, ""

