"""Types inferred from a problem: which objects can fill each argument of an action in some reachable state.

Untyped domains (the older planning competitions' style) give every parameter the type
`object`; the kinds are unary predicates of the initial state ("(plane ?a)"), or only implied
by the fluents ("(fuel ?a ?l)" holds only for planes). Grounding such an action over every
object is exact but huge. `argument_domains` bounds each parameter instead, by a fixpoint
over argument positions: a position of a predicate holds the objects that initial atoms put
there, and whatever an action that may apply adds there; an action's parameter ranges over
the objects every positive precondition atom allows at its position. The bound is sound: in
every state reachable from the initial state, each true atom's objects lie in its positions'
sets (by induction over the steps), so an action bound outside its domains is inapplicable
in every reachable state. Negative literals and equalities never narrow a parameter.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from domain_drafter.core.model import EQUALITY, ActionSchema, Domain

Position = tuple[str, int]          # (predicate, argument number)


def positions_of(atoms: Iterable[tuple[str, ...]]) -> dict[Position, set[str]]:
    """Each (predicate, argument) position with the objects that `atoms` put there."""
    out: dict[Position, set[str]] = {}
    for atom in atoms:
        for i, obj in enumerate(atom[1:]):
            out.setdefault((atom[0], i), set()).add(obj)
    return out


def narrowed(action: ActionSchema, candidates: list[tuple[str, ...]], positions: dict[Position, set[str]],
             predicates: Container[str] | None = None) -> list[tuple[str, ...]]:
    """`candidates` (per parameter, in order) kept to the objects each positive precondition atom allows
    (only atoms of `predicates`, when given)."""
    index = {p.name: i for i, p in enumerate(action.parameters)}
    allowed: list[set[str] | None] = [None] * len(candidates)
    for lit in action.precondition:
        if not lit.positive or lit.atom.predicate == EQUALITY or \
                (predicates is not None and lit.atom.predicate not in predicates):
            continue
        for i, arg in enumerate(lit.atom.args):
            slot = index.get(arg)
            if slot is None:
                continue
            there = positions.get((lit.atom.predicate, i), set())
            allowed[slot] = there if allowed[slot] is None else allowed[slot] & there  # type: ignore[operator]
    return [c if a is None else tuple(o for o in c if o in a) for c, a in zip(candidates, allowed)]


def argument_domains(domain: Domain, candidates: dict[str, list[tuple[str, ...]]],
                     init: Iterable[tuple[str, ...]]) -> dict[str, list[tuple[str, ...]]]:
    """Per action name, each parameter's objects (a subset of `candidates`, in its order) that some
    reachable state can bind it to. Actions that can never apply get an empty domain somewhere."""
    positions = positions_of(init)
    domains: dict[str, list[tuple[str, ...]]] = {}
    changed = True
    while changed:
        changed = False
        for action in domain.actions:
            found = narrowed(action, candidates[action.name], positions)
            domains[action.name] = found
            if any(not d for d in found):
                continue
            index = {p.name: i for i, p in enumerate(action.parameters)}
            for lit in action.effect:
                if not lit.positive:
                    continue
                for i, arg in enumerate(lit.atom.args):
                    slot = index.get(arg)
                    new = set(found[slot]) if slot is not None else {arg}
                    there = positions.setdefault((lit.atom.predicate, i), set())
                    if not new <= there:
                        there |= new
                        changed = True
    return domains
