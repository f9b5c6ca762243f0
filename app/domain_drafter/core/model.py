"""Value-like PDDL model: typed STRIPS domains, problems and action schemas.

Names are stored lower-case (PDDL is case-insensitive). Variables keep their `?`.
Everything is frozen and hashable, so models can be cache keys and compared directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from domain_drafter.core.types import TypeHierarchy

OBJECT = "object"
EQUALITY = "="


@dataclass(frozen=True, order=True)
class Atom:
    """A predicate applied to terms: `(on ?x ?y)`, `(at ball1 rooma)`, `(= ?a ?b)`."""

    predicate: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"({' '.join((self.predicate, *self.args))})"

    def rename(self, mapping: Mapping[str, str]) -> Atom:
        return Atom(self.predicate, tuple(mapping.get(a, a) for a in self.args))


@dataclass(frozen=True, order=True)
class Literal:
    """An atom or its negation."""

    atom: Atom
    positive: bool = True

    def __str__(self) -> str:
        return str(self.atom) if self.positive else f"(not {self.atom})"


@dataclass(frozen=True)
class TypedName:
    """A parameter (`?x - block`) or an object/constant (`a - block`)."""

    name: str
    type: str = OBJECT

    @property
    def is_variable(self) -> bool:
        return self.name.startswith("?")


@dataclass(frozen=True)
class PredicateSignature:
    """A declared predicate: its name and typed parameters."""

    name: str
    parameters: tuple[TypedName, ...] = ()

    @property
    def arity(self) -> int:
        return len(self.parameters)

    def __str__(self) -> str:
        return f"({' '.join((self.name, *typed_list(self.parameters)))})"


@dataclass(frozen=True)
class ActionSchema:
    """A STRIPS action: conjunctive precondition (with negations) and add/delete effects."""

    name: str
    parameters: tuple[TypedName, ...]
    precondition: tuple[Literal, ...] = ()
    effect: tuple[Literal, ...] = ()

    @cached_property
    def pre_pos(self) -> frozenset[Atom]:
        return frozenset(l.atom for l in self.precondition if l.positive)

    @cached_property
    def pre_neg(self) -> frozenset[Atom]:
        return frozenset(l.atom for l in self.precondition if not l.positive)

    @cached_property
    def add(self) -> frozenset[Atom]:
        return frozenset(l.atom for l in self.effect if l.positive)

    @cached_property
    def delete(self) -> frozenset[Atom]:
        return frozenset(l.atom for l in self.effect if not l.positive)

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def to_pddl(self, indent: str = "  ") -> str:
        """Canonical PDDL text of the action (stable order: as written, duplicates dropped)."""
        pre = _conjunction(self.precondition)
        eff = _conjunction(self.effect)
        return (
            f"{indent}(:action {self.name}\n"
            f"{indent}  :parameters ({' '.join(typed_list(self.parameters))})\n"
            f"{indent}  :precondition {pre}\n"
            f"{indent}  :effect {eff})"
        )


@dataclass(frozen=True)
class Domain:
    """A typed STRIPS domain."""

    name: str
    requirements: frozenset[str]
    types: TypeHierarchy
    constants: tuple[TypedName, ...]
    predicates: tuple[PredicateSignature, ...]
    actions: tuple[ActionSchema, ...]

    @cached_property
    def predicate_map(self) -> dict[str, PredicateSignature]:
        return {p.name: p for p in self.predicates}

    @cached_property
    def constant_map(self) -> dict[str, TypedName]:
        return {c.name: c for c in self.constants}

    @cached_property
    def action_map(self) -> dict[str, ActionSchema]:
        return {a.name: a for a in self.actions}

    def action(self, name: str) -> ActionSchema:
        """The action called `name` (case-insensitive); KeyError if none."""
        return self.action_map[name.lower()]

    @cached_property
    def fluent_predicates(self) -> frozenset[str]:
        """Predicates some action adds or deletes; the others are static."""
        return frozenset(l.atom.predicate for a in self.actions for l in a.effect)

    def has_requirement(self, requirement: str) -> bool:
        return requirement.lstrip(":") in self.requirements

    def with_action(self, action: ActionSchema, replacing: str | None = None) -> Domain:
        """A copy of this domain where `replacing` (default: the same name) is replaced by `action`."""
        target = (replacing or action.name).lower()
        actions = tuple(action if a.name == target else a for a in self.actions)
        return Domain(self.name, self.requirements, self.types, self.constants, self.predicates, actions)

    def to_pddl(self) -> str:
        """The domain as PDDL text, readable by K* and by our own parser."""
        lines = [f"(define (domain {self.name})"]
        if self.requirements:
            lines.append(f"  (:requirements {' '.join(':' + r for r in sorted(self.requirements))})")
        if self.types.declared:
            lines.append(f"  (:types {self.types.to_pddl()})")
        if self.constants:
            lines.append(f"  (:constants {' '.join(typed_list(self.constants))})")
        lines.append("  (:predicates")
        lines.extend(f"    {p}" for p in self.predicates)
        lines.append("  )")
        lines.extend(a.to_pddl() for a in self.actions)
        lines.append(")")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Problem:
    """A problem: typed objects, a set of true initial atoms, a conjunctive goal."""

    name: str
    domain_name: str
    objects: tuple[TypedName, ...]
    init: frozenset[Atom]
    goal: tuple[Literal, ...]

    @cached_property
    def object_map(self) -> dict[str, TypedName]:
        return {o.name: o for o in self.objects}

    def to_pddl(self) -> str:
        init = "\n".join(f"    {a}" for a in sorted(self.init))
        return (
            f"(define (problem {self.name})\n  (:domain {self.domain_name})\n"
            f"  (:objects {' '.join(typed_list(self.objects))})\n"
            f"  (:init\n{init}\n  )\n"
            f"  (:goal {_conjunction(self.goal)})\n)\n"
        )


def canonical_action(action: ActionSchema) -> str:
    """A text that is equal for actions differing only in whitespace, conjunct order and parameter names.

    Parameter types are kept exactly (an `(either ...)` is already canonical), so a widened
    or narrowed parameter is another action.
    """
    names = {p.name: f"?p{i}" for i, p in enumerate(action.parameters)}

    def lits(literals: Iterable[Literal]) -> list[str]:
        return sorted({str(Literal(l.atom.rename(names), l.positive)) for l in literals})

    params = " ".join(f"{names[p.name]}-{p.type}" for p in action.parameters)
    return f"{action.name}|{params}|{' '.join(lits(action.precondition))}|{' '.join(lits(action.effect))}"


def typed_list(items: Iterable[TypedName]) -> list[str]:
    """`?x ?y - block ?r - room` style, grouping consecutive items of one type (a trailing `object` implied)."""
    out: list[str] = []
    items = list(items)
    for i, item in enumerate(items):
        out.append(item.name)
        last = i + 1 == len(items)
        last_of_group = last or items[i + 1].type != item.type
        # An untyped group may stay bare only at the end: `?x ?y - block` would make ?x a block.
        if last_of_group and (item.type != OBJECT or not last):
            out.extend(["-", item.type])
    return out


def _conjunction(literals: Iterable[Literal]) -> str:
    seen: dict[Literal, None] = dict.fromkeys(literals)
    return f"(and {' '.join(map(str, seen))})" if seen else "(and)"
