"""Formulas and plans over one problem: a plan replayed, and a formula made into a planner task.

`replay` gives the state after an executable plan; `variable_types` the types a formula's variables
range over; `formula_task` the domain plus one goal action whose precondition is the formula, so that
Fast Downward's plan to its goal atom is a plan to a state satisfying the formula. Used by the tests'
prover (domain_tests.py, tests_exploration.py) and by the counterexample cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from domain_drafter.core.domain_tests import Step
from domain_drafter.core.formulas import Formula
from domain_drafter.core.model import (
    EQUALITY,
    OBJECT,
    ActionSchema,
    Atom,
    Domain,
    Literal,
    PredicateSignature,
    Problem,
    TypedName,
)

GOAL_ACTION = "dd-test-goal"
GOAL_PREDICATE = "dd-test-reached"


def ground_atom(atom: Atom, binding: dict[str, str]) -> Atom:
    """`atom` with its variables replaced by their values in `binding`."""
    return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def replay(domain: Domain, problem: Problem, plan: Sequence[Step]) -> frozenset[Atom]:
    """The state after an executable plan (deletes first, then adds, as the validator does)."""
    state = set(problem.init)
    for step in plan:
        action = domain.action_map[step[0]]
        binding = dict(zip(action.parameter_names, step[1:]))
        state -= {ground_atom(a, binding) for a in action.delete}
        state |= {ground_atom(a, binding) for a in action.add}
    return frozenset(state)


def variable_types(domain: Domain, formula: Formula) -> dict[str, list[str]]:
    """The types each variable must have: those of the predicate arguments it fills (a variable ranges over
    the objects that fit every place it is used; one used only in `=` ranges over all objects)."""
    out: dict[str, list[str]] = {v: [] for v in formula.variables}
    for lit in formula.literals:
        signature = domain.predicate_map.get(lit.atom.predicate)
        if signature is None:
            continue
        for arg, param in zip(lit.atom.args, signature.parameters):
            if arg in out and param.type not in out[arg]:
                out[arg].append(param.type)
    return out


def _parameter_type(domain: Domain, types: list[str]) -> str:
    """The most specific of `types` (all of them fit an object of it), for the planner task's parameter."""
    for t in types:
        if all(domain.types.is_subtype(t, other) for other in types):
            return t
    return types[0] if types else OBJECT


def formula_task(domain: Domain, problem: Problem, formula: Formula) -> tuple[Domain, Problem]:
    """The domain plus one action whose precondition is the formula (its variables its parameters): a plan
    to the new goal atom is a plan to a state satisfying the formula, for some binding of the variables."""
    types = variable_types(domain, formula)
    params = tuple(TypedName(v, _parameter_type(domain, types[v])) for v in formula.variables)
    goal = Literal(Atom(GOAL_PREDICATE))
    action = ActionSchema(GOAL_ACTION, params, formula.literals, (goal,))
    requirements = set(domain.requirements)
    if any(not lit.positive for lit in formula.literals):
        requirements.add("negative-preconditions")
    if any(lit.atom.predicate == EQUALITY for lit in formula.literals):
        requirements.add("equality")
    extended = Domain(domain.name, frozenset(requirements), domain.types, domain.constants,
                      (*domain.predicates, PredicateSignature(GOAL_PREDICATE, ())), (*domain.actions, action))
    return extended, replace(problem, domain_name=domain.name, goal=(goal,))
