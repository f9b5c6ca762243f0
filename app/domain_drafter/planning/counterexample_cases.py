"""Test cases from a counterexample: what the reference does where the two domains part, kept in tests.toml.

`counterexample_case` writes the reference's behaviour at the distinguishing state as a case that
the reference passes and the answer that produced the counterexample fails:
* the reference refuses the step: a `plan_fails` case, the prefix and the step, failing at that step
  on the precondition the reference names;
* the reference applies the step and the answer refuses it: a `plan` case, the plan must work
  (`reaches_goal = false` unless it reaches the problem's goal);
* both apply it with other effects: a `plan` case whose goal is the differing atoms as the reference
  leaves them.

`never_choice` is the state the answer reaches there, with the atoms the reference's state lacks, and
`never_formula` lifts the atoms an author picks to variables for a `never` case.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from domain_drafter.core.domain_tests import Case, CaseKind, Step, free_case_name
from domain_drafter.core.formulas import Formula, read_atoms, read_formula, read_step
from domain_drafter.core.model import EQUALITY, Atom, Domain, Literal, Problem
from domain_drafter.planning.domain_tests import replay
from domain_drafter.planning.proof_types import ProofCounterexample
from domain_drafter.planning.validator import FailureKind, PlanValidator


def _steps(plan: Sequence[str]) -> tuple[Step, ...]:
    return tuple(read_step(step) for step in plan)


def _reference_literals(reference: Domain, problem: Problem, steps: Sequence[Step],
                        atoms: Sequence[str]) -> tuple[Literal, ...]:
    """Each atom as the reference leaves it after `steps`: true, or negated."""
    after = replay(reference, problem, steps)
    return tuple(Literal(atom, atom in after) for atom in read_atoms(" ".join(atoms)))


def counterexample_case(cx: ProofCounterexample, reference: Domain, problem: Problem, action: str,
                        taken: Collection[str] = ()) -> Case:
    """The case that keeps what the reference does at `cx`'s distinguishing state, on `problem` (the
    counterexample's own problem, as its tests file names it), named `<action>-<what>-on-<problem>-N`,
    free among `taken`."""
    state = cx.state
    steps = _steps(cx.plan)
    described = f"kept from a counterexample of {action}: in the reference domain, {state.step} is {state.reference}"
    fields: dict = {"plan": steps, "description": described}
    if state.kind == "applicability" and cx.valid_in == "generated":   # the reference refuses the step
        kind, what = CaseKind.PLAN_FAILS, "fails"
        check = cx.reference_validation
        fields["at_step"] = len(steps)
        if check.kind is FailureKind.PRECONDITION and check.atoms:
            fields["precondition"] = read_formula(check.atoms[0]).literals[0]
    elif state.kind == "effect":
        kind, what = CaseKind.PLAN, "effects"
        fields["formula"] = Formula(_reference_literals(reference, problem, steps, state.atoms))
    else:                                                               # the answer refuses a step it must allow
        kind, what = CaseKind.PLAN, "works"
        fields["reaches_goal"] = PlanValidator(reference, problem).validate(steps).valid
    name = free_case_name(f"{action}-{what}-on-{state.problem}", taken)
    return Case(name, kind, state.problem, **fields)


@dataclass(frozen=True)
class NeverChoice:
    """The state the answer reaches at the distinguishing step (after it, where the answer applies it),
    and its atoms that the reference's state there lacks: the first to pick for a `never` case."""

    problem: str
    atoms: tuple[str, ...]
    differing: tuple[str, ...]


def _executable(domain: Domain, problem: Problem, steps: Sequence[Step]) -> bool:
    return PlanValidator(domain, replace(problem, goal=())).validate(steps).valid


def never_choice(cx: ProofCounterexample, reference: Domain, generated: Domain, problem: Problem) -> NeverChoice:
    """Where the answer refuses the step, its state is the distinguishing state itself, which the reference
    reaches too: nothing differs."""
    steps = _steps(cx.plan)
    if not _executable(generated, problem, steps):
        state = replay(generated, problem, steps[:-1])
        return NeverChoice(cx.state.problem, tuple(str(a) for a in sorted(state)), ())
    reached = replay(generated, problem, steps)
    ours = replay(reference, problem, steps if _executable(reference, problem, steps) else steps[:-1])
    return NeverChoice(cx.state.problem, tuple(str(a) for a in sorted(reached)),
                       tuple(str(a) for a in sorted(reached - ours)))


def never_formula(atoms: Sequence[str], domain: Domain, problem: Problem) -> str:
    """The atoms as a `never` state: each object a variable (`b` -> `?b`), the domain's constants kept, and
    two variables that could name one object told apart, as the objects were."""
    constants = {c.name for c in domain.constants}
    types = {o.name: o.type for o in problem.objects}
    names: dict[str, str] = {}
    lifted = []
    for atom in read_atoms(" ".join(atoms)):
        args = tuple(a if a in constants else names.setdefault(a, f"?{a}") for a in atom.args)
        lifted.append(Literal(Atom(atom.predicate, args)))
    is_a = domain.types.is_subtype
    for left, right in itertools.combinations(names, 2):
        a, b = types.get(left, "object"), types.get(right, "object")
        if is_a(a, b) or is_a(b, a):
            lifted.append(Literal(Atom(EQUALITY, (names[left], names[right])), False))
    return str(Formula(tuple(lifted)))
