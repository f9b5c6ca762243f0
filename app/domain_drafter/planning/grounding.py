"""Ground actions of a domain on a problem, compiled once into bit masks over an atom index.

Semantics are the validator's (`planning/validator.py`): objects are the problem's objects
plus the domain's constants; a parameter takes the objects whose type is a subtype of its
type (`either` included, as `core/types.py` reads it); `=` compares object names; a step
deletes first, then adds. A state is a Python int, bit i set when atom i holds.

Atoms of predicates the explored domain never changes ("static") are decided at grounding
time from the initial state: in every reachable state they hold exactly as in init. So a
ground action keeps only its fluent preconditions, and a grounding whose static part fails
does not exist (it is inapplicable everywhere).

Parameters a domain leaves untyped (`object`) are bounded by the types the problem implies
(`argument_domains.py`): `ground_domain` never grounds them on objects that no reachable state
lets them bind, so an untyped domain grounds about as small as its typed twin. Typed
parameters keep their declared types, so typed domains ground exactly as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from domain_drafter.core.errors import DrafterError, ErrorKind
from domain_drafter.core.model import EQUALITY, OBJECT, ActionSchema, Atom, Domain, Problem
from domain_drafter.planning.argument_domains import argument_domains

GroundAtom = tuple[str, ...]      # ("on", "a", "b")
Key = tuple[str, ...]             # ("stack", "a", "b"): the ground action as a plan step


class GroundingLimit(DrafterError):
    """An action has more groundings than the explorer's limit (the caller falls back)."""

    kind = ErrorKind.LIMIT


class AtomIndex:
    """Ground atoms numbered in the order first seen; bit i of a state is atom i."""

    def __init__(self, atoms: Iterable[GroundAtom] = ()):
        self.atoms: list[GroundAtom] = []
        self.ids: dict[GroundAtom, int] = {}
        for atom in atoms:
            self.id(atom)

    def id(self, atom: GroundAtom) -> int:
        found = self.ids.get(atom)
        if found is None:
            found = self.ids[atom] = len(self.atoms)
            self.atoms.append(atom)
        return found

    def mask(self, atoms: Iterable[GroundAtom]) -> int:
        m = 0
        for atom in atoms:
            m |= 1 << self.id(atom)
        return m

    def decode(self, mask: int) -> list[GroundAtom]:
        return [self.atoms[i] for i in bits(mask)]


def bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def show_atom(atom: GroundAtom) -> str:
    return f"({' '.join(atom)})"


def lift_atom(atom: str, key: Key, domain: Domain) -> str:
    """A ground atom "(clear b)" of the step `key`, written over the parameters of the domain's action where an
    object is bound to one (by position, the first parameter bound to it): "(clear ?x)"; other objects stay."""
    schema = domain.action_map.get(key[0])
    if schema is None:
        return atom
    names: dict[str, str] = {}
    for param, obj in zip(schema.parameters, key[1:]):
        names.setdefault(obj, param.name if param.name.startswith("?") else f"?{param.name}")
    words = atom.replace("(", " ( ").replace(")", " ) ").split()
    return " ".join(names.get(w, w) for w in words).replace("( ", "(").replace(" )", ")")


def show_step(key: Key) -> str:
    return f"({' '.join(key)})"


@dataclass(frozen=True, slots=True)
class GroundAction:
    """One ground action: fluent precondition masks and effect masks (static parts already decided)."""

    key: Key
    pre: int
    neg: int
    add: int
    delete: int

    def applicable(self, state: int) -> bool:
        return state & self.pre == self.pre and not state & self.neg

    def apply(self, state: int) -> int:
        return (state & ~self.delete) | self.add


def problem_objects(domain: Domain, problem: Problem) -> dict[str, str]:
    """Object name -> type, the domain's constants and the problem's objects (as the validator reads them)."""
    return {**{c.name: c.type for c in domain.constants}, **{o.name: o.type for o in problem.objects}}


def init_atoms(problem: Problem) -> frozenset[GroundAtom]:
    return frozenset((a.predicate, *a.args) for a in problem.init)


_Template = tuple[str, tuple[int | str, ...]]


def _template(atom: Atom, index: dict[str, int]) -> _Template:
    return atom.predicate, tuple(index.get(x, x) for x in atom.args)


def _bind(template: _Template, args: tuple[str, ...]) -> GroundAtom:
    pred, slots = template
    return (pred, *[args[s] if isinstance(s, int) else s for s in slots])


def _last_slot(slots: tuple[int | str, ...]) -> int:
    return max((s for s in slots if isinstance(s, int)), default=-1)


class Grounder:
    """Grounds the actions of domains on one problem, deciding static atoms by `fluents`.

    `fluents` are the predicates the explored domain (D) changes: in the states reachable in D,
    every other atom holds exactly when it holds initially. Several domains (D and D') are
    grounded with one Grounder so that their masks share one `AtomIndex`.
    """

    def __init__(self, types_domain: Domain, problem: Problem, fluents: frozenset[str],
                 index: AtomIndex | None = None, limit: int = 1_000_000, infer_types: bool = True):
        self.problem = problem
        self.fluents = fluents
        self.init = init_atoms(problem)
        self.index = index or AtomIndex(sorted(self.init))
        self.objects = problem_objects(types_domain, problem)
        self.types = types_domain.types
        self.limit = limit
        self.infer_types = infer_types    # off: untyped parameters range over every object (the old path)
        self._candidates: dict[str, tuple[str, ...]] = {}
        self._compiled_actions: dict[int, tuple[ActionSchema, tuple]] = {}

    def init_state(self) -> int:
        return self.index.mask(self.init)

    def candidates(self, type_name: str) -> tuple[str, ...]:
        found = self._candidates.get(type_name)
        if found is None:
            found = tuple(o for o, t in self.objects.items() if self.types.is_subtype(t, type_name))
            self._candidates[type_name] = found
        return found

    def _compiled(self, action: ActionSchema) -> tuple[list[list[tuple[str, object]]], list[_Template],
                                                       list[_Template], list[_Template], list[_Template]]:
        """(static and equality checks per depth at which their last parameter is bound, and the fluent
        precondition, negative precondition, add and delete templates) of `action`, compiled once."""
        found = self._compiled_actions.get(id(action))
        if found is not None and found[0] is action:
            return found[1]
        index = {p.name: i for i, p in enumerate(action.parameters)}
        checks: list[list[tuple[str, object]]] = [[] for _ in range(max(len(action.parameters), 1))]
        pre, neg = [], []
        for lit in action.precondition:
            t = _template(lit.atom, index)
            if lit.atom.predicate == EQUALITY and len(lit.atom.args) == 2:
                checks[max(_last_slot(t[1]), 0)].append(("eq" if lit.positive else "ne", t[1]))
            elif lit.atom.predicate not in self.fluents:
                checks[max(_last_slot(t[1]), 0)].append(("in" if lit.positive else "out", t))
            else:
                (pre if lit.positive else neg).append(t)
        add = [_template(a, index) for a in dict.fromkeys(l.atom for l in action.effect if l.positive)]
        delete = [_template(a, index) for a in dict.fromkeys(l.atom for l in action.effect if not l.positive)]
        compiled = (checks, pre, neg, add, delete)
        self._compiled_actions[id(action)] = (action, compiled)
        return compiled

    def ground_one(self, action: ActionSchema, args: tuple[str, ...]) -> GroundAction:
        """The ground action `action(args)`, its static preconditions not checked (the caller has)."""
        _, pre, neg, add, delete = self._compiled(action)
        mask = self.index.mask
        return GroundAction((action.name, *args), mask(_bind(t, args) for t in pre), mask(_bind(t, args) for t in neg),
                            mask(_bind(t, args) for t in add), mask(_bind(t, args) for t in delete))

    def ground(self, action: ActionSchema, domains: list[tuple[str, ...]] | None = None) -> list[GroundAction]:
        """Every grounding of `action` whose static and equality preconditions hold, in a stable order.

        `domains` (per parameter, a subset of its type's objects in their order) bounds the parameters.
        """
        arity = len(action.parameters)
        checks, pre, neg, add, delete = self._compiled(action)
        domains = domains if domains is not None else [self.candidates(p.type) for p in action.parameters]
        out: list[GroundAction] = []
        mask = self.index.mask

        def ok(depth: int, args: tuple[str, ...]) -> bool:
            for kind, data in checks[depth]:
                if kind in ("eq", "ne"):
                    a, b = (args[s] if isinstance(s, int) else s for s in data)  # type: ignore[union-attr]
                    if (a == b) != (kind == "eq"):
                        return False
                elif (_bind(data, args) in self.init) != (kind == "in"):  # type: ignore[arg-type]
                    return False
            return True

        def emit(args: tuple[str, ...]) -> None:
            if len(out) >= self.limit:
                raise GroundingLimit(f"action '{action.name}' has more than {self.limit} groundings")
            out.append(GroundAction((action.name, *args), mask(_bind(t, args) for t in pre),
                                    mask(_bind(t, args) for t in neg), mask(_bind(t, args) for t in add),
                                    mask(_bind(t, args) for t in delete)))

        if arity == 0:
            if ok(0, ()):
                emit(())
            return out

        def extend(depth: int, args: tuple[str, ...]) -> None:
            for obj in domains[depth]:
                bound = args + (obj,)
                if ok(depth, bound):
                    if depth + 1 == arity:
                        emit(bound)
                    else:
                        extend(depth + 1, bound)

        extend(0, ())
        return out

    def ground_domain(self, domain: Domain) -> list[GroundAction]:
        """Every grounding of every action that may apply in a state reachable from the initial state
        (untyped parameters bounded by the inferred types; see the module docstring)."""
        if not self.infer_types or not any(p.type == OBJECT for a in domain.actions for p in a.parameters):
            return [g for action in domain.actions for g in self.ground(action)]
        declared = {a.name: [self.candidates(p.type) for p in a.parameters] for a in domain.actions}
        inferred = argument_domains(domain, declared, self.init)
        out: list[GroundAction] = []
        for action in domain.actions:
            domains = [found if p.type == OBJECT else typed for p, typed, found
                       in zip(action.parameters, declared[action.name], inferred[action.name])]
            out += self.ground(action, domains)
        return out


class SuccessorIndex:
    """Ground actions filed under one precondition atom each, so a state only tries actions that may apply."""

    def __init__(self, actions: Iterable[GroundAction]):
        self.by_atom: dict[int, list[GroundAction]] = {}
        self.always: list[GroundAction] = []
        for g in actions:
            if g.pre:
                self.by_atom.setdefault((g.pre & -g.pre).bit_length() - 1, []).append(g)
            else:
                self.always.append(g)

    def applicable(self, state: int) -> Iterator[GroundAction]:
        by_atom = self.by_atom
        for g in self.always:
            if not state & g.neg:
                yield g
        for i in bits(state):
            for g in by_atom.get(i, ()):
                if state & g.pre == g.pre and not state & g.neg:
                    yield g
