"""Exact shortcuts before any exploration: differences that cannot change a single transition.

Each rule keeps the action's transitions under the validator's semantics (delete, then add):
- an add of a positive precondition atom (it is true before and stays true), with any delete of it;
- a delete of an atom that a negated precondition requires false (it stays false);
- a delete of an atom the action also adds (the add wins);
- a negated precondition on a predicate no action of D changes, whose atom no problem's init
  holds (true in every reachable state of every problem).
After these, two actions equal up to parameter names, conjunct order and duplicates
(`core/model.py canonical_action`) have the same groundings with the same transitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.model import EQUALITY, ActionSchema, Atom, Domain, canonical_action


class NeverTrue:
    """Which atom patterns hold in no reachable state: D never changes the predicate, and no problem's
    init has an atom matching the pattern (a repeated variable must bind one object, a constant itself)."""

    def __init__(self, reference: Domain, problems: Sequence[ProblemFile]):
        self._static = {p.name for p in reference.predicates} - set(reference.fluent_predicates)
        self._init: dict[str, list[tuple[str, ...]]] = {}
        for problem in problems:
            for atom in problem.problem.init:
                self._init.setdefault(atom.predicate, []).append(atom.args)

    def __call__(self, atom: Atom) -> bool:
        if atom.predicate not in self._static:
            return False
        return not any(_matches(atom.args, args) for args in self._init.get(atom.predicate, ()))


def _matches(pattern: tuple[str, ...], args: tuple[str, ...]) -> bool:
    if len(pattern) != len(args):
        return False
    bound: dict[str, str] = {}
    for slot, value in zip(pattern, args):
        if slot.startswith("?"):
            if bound.setdefault(slot, value) != value:
                return False
        elif slot != value:
            return False
    return True


def normalise(action: ActionSchema, never_true: Callable[[Atom], bool]) -> ActionSchema:
    """The action without the parts that change no transition (see the module docstring)."""
    pre = [l for l in dict.fromkeys(action.precondition)
           if l.positive or l.atom.predicate == EQUALITY or not never_true(l.atom)]
    pos = {l.atom for l in pre if l.positive}
    neg = {l.atom for l in pre if not l.positive}
    add = {l.atom for l in action.effect if l.positive}
    effect = []
    for lit in dict.fromkeys(action.effect):
        if lit.positive and lit.atom in pos:
            continue
        if not lit.positive and (lit.atom in neg or lit.atom in add):
            continue
        effect.append(lit)
    return ActionSchema(action.name, action.parameters, tuple(pre), tuple(effect))


def same_transitions(reference: ActionSchema, generated: ActionSchema, never_true: Callable[[Atom], bool]) -> bool:
    return canonical_action(normalise(reference, never_true)) == canonical_action(normalise(generated, never_true))


def shortcut_reason(reference: Domain, generated: Domain, names: Sequence[str],
                    problems: Sequence[ProblemFile]) -> str | None:
    """Why the compared actions are equivalent without exploring, or None if no shortcut applies."""
    absent = NeverTrue(reference, problems)
    plain = True
    for name in names:
        ref, gen = reference.action_map.get(name), generated.action_map.get(name)
        if ref is None or gen is None:
            return None
        if canonical_action(ref) == canonical_action(gen):
            continue
        if not same_transitions(ref, gen, absent):
            return None
        plain = False
    what = "the action is" if len(names) == 1 else f"all {len(names)} actions are"
    if plain:
        return f"{what} equal to the reference up to parameter names, conjunct order and duplicates"
    return (f"{what} equal to the reference up to parts that change no transition "
            "(a re-added precondition, a no-op delete, or a negated precondition no state makes false)")
