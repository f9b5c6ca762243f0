"""The type hierarchy of a domain, and `(either ...)` type expressions.

A type is written either as a plain name (`truck`) or as `(either a b ...)`. We keep the
expression as text, canonical (members sorted, duplicates dropped, lower-case), so that a
parameter's type stays a plain, hashable, printable string everywhere (model, D', prompts),
and the few places that reason about types ask this module what the members are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property

OBJECT = "object"
_EITHER_PREFIX = "(either "


def either_type(members: Iterable[str]) -> str:
    """The canonical type expression for a union: `truck` for one member, `(either airplane truck)` for more."""
    unique = sorted(dict.fromkeys(m.lower() for m in members))
    if not unique:
        raise ValueError("an either type needs at least one member")
    return unique[0] if len(unique) == 1 else f"{_EITHER_PREFIX}{' '.join(unique)})"


def type_members(type_expr: str) -> tuple[str, ...]:
    """The member names of a type expression: `(either a b)` -> ('a', 'b'); `a` -> ('a',)."""
    if type_expr.startswith(_EITHER_PREFIX) and type_expr.endswith(")"):
        return tuple(type_expr[len(_EITHER_PREFIX):-1].split())
    return (type_expr,)


def is_either(type_expr: str) -> bool:
    return type_expr.startswith(_EITHER_PREFIX)


def type_phrase(type_expr: str) -> str:
    """The type in words for descriptions: `truck`, or `truck or airplane`."""
    members = type_members(type_expr)
    return members[0] if len(members) == 1 else ", ".join(members[:-1]) + " or " + members[-1]


class TypeHierarchy:
    """Declared types and their parents; `object` is the implicit root. Each type has one parent.

    Immutable after construction; hashable by its edges so domains stay value-like. Queries
    (subtypes, supertypes) walk a plain parent map; the one graph question, whether a user's
    declaration has a cycle, goes to networkx, imported only when a domain file is read (a
    bundle-cache hit never imports it).
    """

    def __init__(self, parents: Mapping[str, str | None] | Iterable[tuple[str, str | None]] = ()):
        items = parents.items() if isinstance(parents, Mapping) else parents
        self._parent: dict[str, str] = {}
        order: list[str] = []
        for child, parent in items:
            self._parent[child] = parent or OBJECT
            order.append(child)
        self._order = tuple(dict.fromkeys(order))

    @property
    def declared(self) -> tuple[str, ...]:
        """Types as declared, in declaration order (without the implicit `object`)."""
        return self._order

    def parent(self, type_name: str) -> str | None:
        return self._parent.get(type_name)

    def __contains__(self, type_expr: str) -> bool:
        """True if every member of the type expression is declared (or `object`)."""
        return all(t in self._ancestors for t in type_members(type_expr))

    @cached_property
    def _ancestors(self) -> dict[str, frozenset[str]]:
        # Parents need no declaration of their own (`truck - vehicle` declares `vehicle`).
        out: dict[str, frozenset[str]] = {t: frozenset({t, OBJECT}) for t in self._parent.values()}
        out[OBJECT] = frozenset({OBJECT})
        for start in self._parent:
            seen = [start]
            node = self._parent[start]
            while node not in seen and node != OBJECT:
                seen.append(node)
                node = self._parent.get(node, OBJECT)
            out[start] = frozenset(seen) | {OBJECT}
        return out

    def is_subtype(self, sub: str, sup: str) -> bool:
        """True if every object of type `sub` is also of type `sup`.

        Both may be `(either ...)` expressions: each member of `sub` must be a subtype of some
        member of `sup` (everything is an `object`).
        """
        sup_members = type_members(sup)
        if OBJECT in sup_members:
            return True
        return all(any(s == t or t in self._ancestors.get(s, ()) for t in sup_members)
                   for s in type_members(sub))

    def supertypes(self, type_name: str) -> frozenset[str]:
        """`type_name` and all its ancestors, `object` included."""
        return self._ancestors.get(type_name, frozenset({type_name, OBJECT}))

    @cached_property
    def cycles(self) -> list[list[str]]:
        """Cycles in the declaration (an error in the domain file), each listed once, from its first-declared type."""
        import networkx as nx

        graph = nx.DiGraph((child, parent) for child, parent in self._parent.items() if parent != OBJECT)
        rank = {t: i for i, t in enumerate(self._order)}
        found = []
        for cycle in nx.simple_cycles(graph):
            first = min(range(len(cycle)), key=lambda i: rank.get(cycle[i], len(rank)))
            found.append(cycle[first:] + cycle[:first])
        return sorted(found, key=lambda c: rank.get(c[0], len(rank)))

    def to_pddl(self) -> str:
        groups: dict[str, list[str]] = {}
        for child in self._order:
            groups.setdefault(self.parent(child) or OBJECT, []).append(child)
        return " ".join(f"{' '.join(children)} - {parent}" for parent, children in groups.items())

    def _key(self) -> tuple[tuple[str, str | None], ...]:
        return tuple((t, self.parent(t)) for t in self._order)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeHierarchy) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TypeHierarchy({dict(self._key())!r})"
