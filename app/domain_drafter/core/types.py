"""The type hierarchy of a domain, as a networkx digraph from each type to its parent."""

from __future__ import annotations

from functools import cached_property
from typing import Iterable, Mapping

import networkx as nx

OBJECT = "object"


class TypeHierarchy:
    """Declared types and their supertypes; `object` is the implicit root.

    Immutable after construction; hashable by its edges so domains stay value-like.
    """

    def __init__(self, parents: Mapping[str, str | None] | Iterable[tuple[str, str | None]] = ()):
        items = parents.items() if isinstance(parents, Mapping) else parents
        graph = nx.DiGraph()
        graph.add_node(OBJECT)
        order: list[str] = []
        for child, parent in items:
            graph.add_edge(child, parent or OBJECT)
            order.append(child)
        self._graph = graph
        self._order = tuple(dict.fromkeys(order))

    @property
    def declared(self) -> tuple[str, ...]:
        """Types as declared, in declaration order (without the implicit `object`)."""
        return self._order

    def parent(self, type_name: str) -> str | None:
        succ = list(self._graph.successors(type_name)) if type_name in self._graph else []
        return succ[0] if succ else None

    def __contains__(self, type_name: str) -> bool:
        return type_name in self._graph

    @cached_property
    def _ancestors(self) -> dict[str, frozenset[str]]:
        return {t: frozenset(nx.descendants(self._graph, t)) | {t} for t in self._graph.nodes}

    def is_subtype(self, sub: str, sup: str) -> bool:
        """True if `sub` is `sup` or one of its descendants (everything is an `object`)."""
        if sup == OBJECT or sub == sup:
            return True
        return sup in self._ancestors.get(sub, frozenset())

    def supertypes(self, type_name: str) -> frozenset[str]:
        """`type_name` and all its ancestors, `object` included."""
        return self._ancestors.get(type_name, frozenset({type_name, OBJECT}))

    @cached_property
    def cycles(self) -> list[list[str]]:
        """Cycles in the declaration (an error in the domain file)."""
        return [c for c in nx.simple_cycles(self._graph)]

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
