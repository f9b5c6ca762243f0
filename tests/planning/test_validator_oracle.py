"""Our plan validator against an independent oracle: unified-planning's sequential plan validator.

For every bundled domain the corpus is every K* plan (k=100) of both problems plus a few hundred
deterministic mutants of them (deleted, swapped, repeated, inserted and appended steps, replaced
arguments of the same or another type, unknown objects and actions, wrong arities, truncations,
and chains of these). Each plan gets a verdict from both validators and they must agree, not only
on valid/invalid but also on where and why the plan fails. Both run over the same corpus in the
same process, which also gives the speed ratio.

UP cannot even build an action instance with an unknown action or object, a wrong arity or a
wrongly-typed argument; such a plan counts as invalid for UP, and ours must reject it at that step
(or earlier) with UNKNOWN_ACTION / WRONG_ARITY / UNKNOWN_OBJECT / WRONG_TYPE.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import pytest
import unified_planning.shortcuts as up_shortcuts
from unified_planning.engines import SequentialPlanValidator, ValidationResultStatus
from unified_planning.engines.results import FailedValidationReason
from unified_planning.exceptions import UPTypeError, UPValueError
from unified_planning.io import PDDLReader
from unified_planning.plans import ActionInstance, SequentialPlan

from domain_drafter.core.bundle import DomainBundle, ProblemFile, load_bundled
from domain_drafter.core.model import Domain, Problem
from domain_drafter.planning.validator import FailureKind, PlanValidation, PlanValidator

SEED = 20240611
MUTANTS_PER_DOMAIN = 400       # distinct mutants per domain, over its two problems
MIN_PLANS_PER_DOMAIN = 300
MIN_SPEED_RATIO = 10.0
STATIC_KINDS = {FailureKind.UNKNOWN_ACTION, FailureKind.WRONG_ARITY, FailureKind.UNKNOWN_OBJECT,
                FailureKind.WRONG_TYPE}
DOMAIN_NAMES = sorted(b.name for b in load_bundled())

Plan = tuple[tuple[str, ...], ...]


# ---------------------------------------------------------------------------------------------
# The corpus


class _Mutator:
    """Seeded mutations of plans of one problem; object and type facts come from the PDDL model."""

    def __init__(self, domain: Domain, problem: Problem, rng: random.Random):
        self.domain = domain
        self.rng = rng
        typed = [(c.name, c.type) for c in domain.constants] + [(o.name, o.type) for o in problem.objects]
        self.objects = [name for name, _ in typed]
        self.type_of = dict(typed)
        self.actions = list(domain.actions)

    def _fitting(self, type_name: str) -> list[str]:
        return [o for o in self.objects if self.domain.types.is_subtype(self.type_of[o], type_name)]

    def random_step(self) -> tuple[str, ...]:
        """A ground action; mostly well-typed, sometimes with arbitrary objects."""
        action = self.rng.choice(self.actions)
        well_typed = self.rng.random() < 0.8
        args = []
        for p in action.parameters:
            pool = self._fitting(p.type) if well_typed else self.objects
            args.append(self.rng.choice(pool or self.objects))
        return (action.name, *args)

    def mutate(self, plan: Plan) -> Plan:
        steps = list(plan)
        rng = self.rng
        kind = rng.choices(
            ["delete", "swap", "repeat", "insert", "append", "truncate", "same_type", "other_type",
             "unknown_object", "unknown_action", "arity"],
            weights=[14, 14, 8, 10, 10, 8, 14, 10, 3, 3, 3])[0]
        if not steps and kind not in ("insert", "append"):
            kind = "append"
        if kind == "delete":
            del steps[rng.randrange(len(steps))]
        elif kind == "swap":
            i, j = rng.randrange(len(steps)), rng.randrange(len(steps))
            steps[i], steps[j] = steps[j], steps[i]
        elif kind == "repeat":
            i = rng.randrange(len(steps))
            steps.insert(rng.randint(i, len(steps)), steps[i])
        elif kind == "insert":
            steps.insert(rng.randint(0, len(steps)), self.random_step())
        elif kind == "append":
            steps.append(self.random_step())
        elif kind == "truncate":
            steps = steps[:rng.randrange(len(steps))]
        elif kind in ("same_type", "other_type", "unknown_object"):
            i = rng.randrange(len(steps))
            step = list(steps[i])
            if len(step) > 1:
                k = rng.randrange(1, len(step))
                old = step[k]
                if kind == "unknown_object":
                    step[k] = "ghost-" + old
                else:
                    same = kind == "same_type"
                    pool = [o for o in self.objects if o != old
                            and (self.type_of[o] == self.type_of.get(old)) == same]
                    step[k] = rng.choice(pool or self.objects)
                steps[i] = tuple(step)
        elif kind == "unknown_action":
            i = rng.randrange(len(steps))
            steps[i] = (steps[i][0] + "-twice", *steps[i][1:])
        elif kind == "arity":
            i = rng.randrange(len(steps))
            steps[i] = steps[i][:-1] if rng.random() < 0.5 and len(steps[i]) > 1 \
                else (*steps[i], rng.choice(self.objects))
        return tuple(steps)


@dataclass
class _Case:
    problem: ProblemFile
    plan: Plan
    source: str          # "kstar" or "mutant"


def _corpus(bundle: DomainBundle, kstar: dict[str, tuple[Plan, ...]]) -> list[_Case]:
    rng = random.Random(f"{SEED}:{bundle.name}")
    cases: list[_Case] = []
    seen: set[tuple[str, Plan]] = set()
    for pf in bundle.problems:
        for plan in kstar[pf.name]:
            seen.add((pf.name, plan))
            cases.append(_Case(pf, plan, "kstar"))
    mutators = {pf.name: _Mutator(bundle.domain, pf.problem, rng) for pf in bundle.problems}
    made, attempts = 0, 0
    while made < MUTANTS_PER_DOMAIN and attempts < 100 * MUTANTS_PER_DOMAIN:
        attempts += 1
        pf = rng.choice(bundle.problems)
        plan = rng.choice(kstar[pf.name])
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            plan = mutators[pf.name].mutate(plan)
        if (pf.name, plan) not in seen:
            seen.add((pf.name, plan))
            cases.append(_Case(pf, plan, "mutant"))
            made += 1
    return cases


# ---------------------------------------------------------------------------------------------
# The oracle


@dataclass(frozen=True)
class _UpVerdict:
    valid: bool
    unbuildable_step: int | None = None     # 1-based: the first step UP cannot even build
    inapplicable_step: int | None = None    # 1-based: the first step whose preconditions fail
    goal_failed: bool = False


def _up_verdict(up_problem, validator: SequentialPlanValidator, plan: Plan) -> _UpVerdict:
    instances = []
    for number, (name, *args) in enumerate(plan, start=1):
        try:
            instances.append(ActionInstance(up_problem.action(name), [up_problem.object(a) for a in args]))
        except (UPValueError, UPTypeError, AssertionError):   # unknown name, wrong type, wrong arity
            return _UpVerdict(False, unbuildable_step=number)
    result = validator.validate(up_problem, SequentialPlan(instances))
    if result.status is ValidationResultStatus.VALID:
        return _UpVerdict(True)
    if result.reason is FailedValidationReason.INAPPLICABLE_ACTION:
        step = next(i for i, ai in enumerate(instances, start=1) if ai is result.inapplicable_action)
        return _UpVerdict(False, inapplicable_step=step)
    assert result.reason is FailedValidationReason.UNSATISFIED_GOALS, result
    return _UpVerdict(False, goal_failed=True)


def _disagreement(ours: PlanValidation, theirs: _UpVerdict) -> str | None:
    """Why the two verdicts disagree, or None if they agree on validity, failing step and kind."""
    if bool(ours) != theirs.valid:
        return f"ours says {ours.status.value}, UP says {'valid' if theirs.valid else 'invalid'}"
    if theirs.valid:
        return None
    if theirs.unbuildable_step is not None:
        if ours.step is None or ours.step > theirs.unbuildable_step:
            return f"UP cannot build step {theirs.unbuildable_step}, ours fails later: {ours.message}"
        if ours.step == theirs.unbuildable_step and ours.kind not in STATIC_KINDS:
            return f"UP cannot build step {ours.step}, ours says {ours.kind}"
        return None
    if ours.kind in STATIC_KINDS:
        return f"UP builds every step, ours says {ours.message}"
    if theirs.inapplicable_step is not None:
        if (ours.kind, ours.step) != (FailureKind.PRECONDITION, theirs.inapplicable_step):
            return f"UP: step {theirs.inapplicable_step} inapplicable; ours: {ours.message}"
        return None
    if ours.kind is not FailureKind.GOAL:
        return f"UP: goal not reached; ours: {ours.message}"
    return None


# ---------------------------------------------------------------------------------------------
# One run of both validators over the whole corpus, shared by the tests below


@dataclass
class _DomainRun:
    plans: int = 0
    kstar: int = 0
    mutants: int = 0
    valid: int = 0
    invalid: int = 0
    up_unbuildable: int = 0
    agreements: int = 0
    disagreements: list[str] = field(default_factory=list)
    ours_s: float = 0.0
    up_s: float = 0.0


@pytest.fixture(scope="module")
def oracle_runs(kstar_plans) -> dict[str, _DomainRun]:
    up_shortcuts.get_environment().credits_stream = None
    reader = PDDLReader()
    up_validator = SequentialPlanValidator()
    runs: dict[str, _DomainRun] = {}
    for bundle in load_bundled():
        run = runs[bundle.name] = _DomainRun()
        cases = _corpus(bundle, {pf.name: kstar_plans[bundle.name, pf.name] for pf in bundle.problems})
        ours_by_problem = {pf.name: PlanValidator(bundle.domain, pf.problem) for pf in bundle.problems}
        up_by_problem = {pf.name: reader.parse_problem(str(bundle.path), str(pf.path)) for pf in bundle.problems}

        start = time.perf_counter()
        ours = [ours_by_problem[c.problem.name].validate(c.plan) for c in cases]
        run.ours_s = time.perf_counter() - start
        start = time.perf_counter()
        theirs = [_up_verdict(up_by_problem[c.problem.name], up_validator, c.plan) for c in cases]
        run.up_s = time.perf_counter() - start

        for case, o, t in zip(cases, ours, theirs):
            run.plans += 1
            run.kstar += case.source == "kstar"
            run.mutants += case.source == "mutant"
            run.valid += t.valid
            run.invalid += not t.valid
            run.up_unbuildable += t.unbuildable_step is not None
            why = _disagreement(o, t)
            if why is None:
                run.agreements += 1
            else:
                run.disagreements.append(f"{bundle.name}/{case.problem.name} {case.plan}: {why}")
    return runs


@pytest.mark.parametrize("domain_name", DOMAIN_NAMES)
def test_agrees_with_unified_planning(oracle_runs, domain_name):
    run = oracle_runs[domain_name]
    assert run.disagreements == [], "\n".join(run.disagreements[:20])
    assert run.agreements == run.plans
    assert run.plans >= MIN_PLANS_PER_DOMAIN
    assert run.mutants >= MIN_PLANS_PER_DOMAIN
    # the corpus exercises both verdicts and every way UP has of saying "invalid"
    assert run.valid >= run.kstar > 0
    assert run.invalid >= MIN_PLANS_PER_DOMAIN // 2
    assert run.up_unbuildable > 0


def test_every_kstar_plan_is_valid_for_both(oracle_runs, kstar_plans):
    total = sum(len(p) for p in kstar_plans.values())
    assert sum(r.kstar for r in oracle_runs.values()) == total
    assert sum(r.valid for r in oracle_runs.values()) >= total


def test_corpus_is_deterministic(kstar_plans):
    bundle = next(b for b in load_bundled() if b.name == "gripper")
    kstar = {pf.name: kstar_plans[bundle.name, pf.name] for pf in bundle.problems}
    first = [(c.problem.name, c.plan) for c in _corpus(bundle, kstar)]
    second = [(c.problem.name, c.plan) for c in _corpus(bundle, kstar)]
    assert first == second
    assert len(set(first)) == len(first)


def test_ours_is_much_faster_than_unified_planning(oracle_runs, capsys):
    plans = sum(r.plans for r in oracle_runs.values())
    ours = sum(r.ours_s for r in oracle_runs.values())
    theirs = sum(r.up_s for r in oracle_runs.values())
    ratio = theirs / ours
    lines = [f"{'domain':<16}{'plans':>7}{'k*':>6}{'mutants':>9}{'valid':>7}{'invalid':>9}{'UP-unbuilt':>11}"
             f"{'agree':>7}{'ours ms':>9}{'UP ms':>9}"]
    for name, r in sorted(oracle_runs.items()):
        lines.append(f"{name:<16}{r.plans:>7}{r.kstar:>6}{r.mutants:>9}{r.valid:>7}{r.invalid:>9}"
                     f"{r.up_unbuildable:>11}{r.agreements:>7}{1000 * r.ours_s:>9.1f}{1000 * r.up_s:>9.1f}")
    lines.append(f"total: {plans} plans, ours {1000 * ours:.1f} ms ({1e6 * ours / plans:.1f} us/plan), "
                 f"UP {1000 * theirs:.1f} ms ({1e6 * theirs / plans:.1f} us/plan): ours is {ratio:.0f}x faster")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert ratio >= MIN_SPEED_RATIO, lines[-1]
