"""The PDDL texts handed to K*, with `(either ...)` types compiled away exactly.

K*'s translator (Fast Downward's) reads `?v - (either truck airplane)` without complaint but
then requires a type predicate no object has: every such action silently becomes
inapplicable. So for K* only, each union type used by an action parameter becomes a static
predicate, `(either_airplane_or_truck ?v)`, added to the action's precondition (the
parameter itself is typed `object`), and every problem gets that predicate's facts for the
objects and constants of a member type. Predicate signatures lose their `either` (K* does
not check atom argument types; our own checks already did). The set of applicable ground
actions is exactly the one of the typed action, so plans are those of the domain as written;
they are validated against the original domains, which know `either`.

Domains without `either` are passed through as written (same texts, same cache keys).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.model import OBJECT, ActionSchema, Atom, Domain, Literal, PredicateSignature, TypedName
from domain_drafter.core.types import is_either, type_members


@dataclass(frozen=True)
class KStarInput:
    """Texts for K*: the reference domain, the generated domain, and each problem (in order)."""

    reference: str
    generated: str
    problems: tuple[str, ...]


def either_types(domain: Domain) -> set[str]:
    """The `(either ...)` types of the domain's action parameters."""
    return {p.type for a in domain.actions for p in a.parameters if is_either(p.type)}


def _has_either(domain: Domain) -> bool:
    return bool(either_types(domain)) or any(is_either(p.type) for s in domain.predicates for p in s.parameters)


def kstar_input(reference: Domain, generated: Domain, problems: Sequence[ProblemFile],
                reference_text: str | None = None) -> KStarInput:
    """What K* reads for this comparison; the texts as written when neither domain uses `either`."""
    if not (_has_either(reference) or _has_either(generated)):
        return KStarInput(reference_text if reference_text is not None else reference.to_pddl(),
                          generated.to_pddl(), tuple(p.text for p in problems))
    unions = sorted(either_types(reference) | either_types(generated))
    taken = {p.name for p in reference.predicates} | {p.name for p in generated.predicates}
    names: dict[str, str] = {}
    for union in unions:
        name = "either_" + "_or_".join(type_members(union))
        while name in taken:
            name += "_"
        names[union] = name
        taken.add(name)
    texts = []
    for problem in problems:
        objects = (*reference.constants, *problem.problem.objects)
        facts = {Atom(names[u], (o.name,)) for u in unions for o in objects
                 if reference.types.is_subtype(o.type, u)}
        texts.append(replace(problem.problem, init=problem.problem.init | facts).to_pddl())
    return KStarInput(_compile(reference, names).to_pddl(), _compile(generated, names).to_pddl(), tuple(texts))


def _compile(domain: Domain, names: dict[str, str]) -> Domain:
    predicates = tuple(PredicateSignature(s.name, tuple(_plain(p) for p in s.parameters)) for s in domain.predicates)
    predicates += tuple(PredicateSignature(name, (TypedName("?x", OBJECT),)) for name in names.values())
    actions = tuple(_compile_action(a, names) for a in domain.actions)
    return Domain(domain.name, domain.requirements, domain.types, domain.constants, predicates, actions)


def _compile_action(action: ActionSchema, names: dict[str, str]) -> ActionSchema:
    guards = tuple(Literal(Atom(names[p.type], (p.name,))) for p in action.parameters if p.type in names)
    if not guards:
        return action
    return ActionSchema(action.name, tuple(_plain(p) for p in action.parameters), guards + action.precondition,
                        action.effect)


def _plain(param: TypedName) -> TypedName:
    return TypedName(param.name, OBJECT) if is_either(param.type) else param
