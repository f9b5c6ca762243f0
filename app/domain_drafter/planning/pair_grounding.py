"""The groundings the proof compares (METHOD 6a), no more than the reachable states can tell apart.

The proof compares, at every reachable state of the reference D, the reference's and the
answer's grounding of the same action for every binding x. Most bindings of an answer that
dropped its static preconditions on an untyped domain ("(plane ?a)") can never apply; grounding
them all is exact but can mean millions of ground actions. Three exact reductions:

1. The reference's groundings are kept whole (as before; the reference has its kinds or types).
2. An answer's binding x that is not a reference grounding is compared against "never
   applicable". It is left out only when the answer's x is never applicable either: a static
   precondition fails in the initial state, or a positive fluent precondition atom is outside
   `possible`, the atoms true in some reachable state of D (all explored states, or the atoms
   a delete-free relaxation reaches). Such a pair agrees in every reachable state. A binding
   the answer can apply and the reference cannot is always kept: it is the counterexample.
3. A parameter of the answer that occurs in no precondition literal ("free": the kind that
   bound it was dropped, and it occurs only in the effects) cannot change whether the answer
   applies. For each binding y of the other parameters, all free completions z with (y, z) no
   reference grounding behave alike: each pair differs exactly where the answer's y applies.
   One representative, the first such z in grounding order, stands for all of them and carries
   their number as its weight (the agreement score counts each). The first difference found is
   the same as with every completion grounded.

The pairs keep the order of grounding every binding (parameters in order, objects in their
type's order), so the first difference reported does not depend on these reductions; the
score's number of groundings is counted as before: every binding whose static and equality
preconditions hold in either domain.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence

from domain_drafter.core.model import EQUALITY, ActionSchema, Domain
from domain_drafter.planning.argument_domains import narrowed, positions_of
from domain_drafter.planning.grounding import (
    AtomIndex,
    GroundAction,
    GroundAtom,
    Grounder,
    GroundingLimit,
    Key,
    bits,
)
from domain_drafter.planning.state_space import ActionPairs, ReachableStates

Args = list  # a binding under construction: an object per parameter, None where not bound yet


def possible_atoms(space: ReachableStates, actions: Callable[[], Sequence[GroundAction]], index: AtomIndex,
                   init: int) -> frozenset[GroundAtom]:
    """The atoms true in some state reachable in D: the explored states' when the exploration is complete,
    else those a delete-free relaxation of `actions()` (D's ground actions over `index`) reaches from `init`."""
    if space.complete:
        ever = 0
        for s in space.states:
            ever |= s
        return frozenset(space.atoms[i] for i in bits(ever))
    ground = actions()
    return frozenset(index.atoms[i] for i in bits(_relaxed(ground, init)))


def _relaxed(actions: Sequence[GroundAction], init: int) -> int:
    reached, pending = init, list(actions)
    while True:
        left = [g for g in pending if g.pre & reached != g.pre]
        for g in pending:
            if g.pre & reached == g.pre:
                reached |= g.add
        if len(left) == len(pending):
            return reached
        pending = left


def ground_pairs(grounder: Grounder, reference: Domain, generated: Domain, names: Sequence[str],
                 possible: frozenset[GroundAtom] | None = None) -> ActionPairs:
    """The pairs to compare for `names` (an action missing on one side is inapplicable there), reduced as the
    module docstring says; without `possible`, only static preconditions prune the answer's bindings."""
    ref: list[GroundAction] = []
    gen: list[GroundAction] = []
    weights: dict[Key, int] = {}
    groundings = 0
    for name in names:
        ref_action, gen_action = reference.action_map.get(name), generated.action_map.get(name)
        ref_part = grounder.ground(ref_action) if ref_action is not None else []
        ref += ref_part
        groundings += len(ref_part)
        if gen_action is not None:
            found, weight, static, shared = _Answer(grounder, gen_action, possible).ground([g.key for g in ref_part])
            gen += found
            weights.update(weight)
            groundings += static - shared
    return ActionPairs(ref, gen, weights, groundings)


def every_pair(grounder: Grounder, reference: Domain, generated: Domain, names: Sequence[str]) -> ActionPairs:
    """Every binding whose static preconditions hold grounded on both sides, no reduction: the proof as it was
    before these reductions, kept as the baseline they are checked and measured against."""
    ref = [g for n in names if n in reference.action_map for g in grounder.ground(reference.action_map[n])]
    gen = [g for n in names if n in generated.action_map for g in grounder.ground(generated.action_map[n])]
    return ActionPairs(ref, gen)


class _Answer:
    """One answer action's bindings, checked literal by literal as soon as their parameters are bound."""

    def __init__(self, grounder: Grounder, action: ActionSchema, possible: frozenset[GroundAtom] | None):
        self.grounder, self.action, self.possible = grounder, action, possible
        params = action.parameters
        self.index = {p.name: i for i, p in enumerate(params)}
        self.declared = [grounder.candidates(p.type) for p in params]
        self.rank = [{o: j for j, o in enumerate(c)} for c in self.declared]
        mentioned = {self.index[a] for lit in action.precondition for a in lit.atom.args if a in self.index}
        self.bound = [i for i in range(len(params)) if i in mentioned]
        self.free = [i for i in range(len(params)) if i not in mentioned]
        self.static: list[tuple[str, tuple, frozenset[int]]] = []     # eq / ne / in / out checks
        self.fluent: list[tuple[str, tuple, frozenset[int]]] = []     # positive fluent atoms ("reach")
        for lit in action.precondition:
            slots = tuple(self.index.get(a, a) for a in lit.atom.args)
            used = frozenset(s for s in slots if isinstance(s, int))
            if lit.atom.predicate == EQUALITY and len(slots) == 2:
                self.static.append(("eq" if lit.positive else "ne", slots, used))
            elif lit.atom.predicate not in grounder.fluents:
                self.static.append(("in" if lit.positive else "out", (lit.atom.predicate, slots), used))
            elif lit.positive:
                self.fluent.append(("reach", (lit.atom.predicate, slots), used))

    def ground(self, ref_keys: list[Key]) -> tuple[list[GroundAction], dict[Key, int], int, int]:
        """(ground actions in grounding order, weights of representatives, bindings whose static preconditions
        hold, how many of those are reference groundings)."""
        checks = self.static + (self.fluent if self.possible is not None else [])
        init_positions = positions_of(a for a in self.grounder.init if a[0] not in self.grounder.fluents)
        if self.possible is None:
            domains = narrowed(self.action, self.declared, init_positions, set(p for p, _ in init_positions))
        else:
            positions = positions_of(itertools.chain(self.grounder.init, self.possible))
            domains = narrowed(self.action, self.declared, positions)
        arity = len(self.declared)
        in_ref = list(dict.fromkeys(k[1:] for k in ref_keys if len(k) == arity + 1))   # another arity: no match
        ref_by_bound: dict[tuple, set[tuple]] = {}
        for args in in_ref:
            ref_by_bound.setdefault(tuple(args[i] for i in self.bound), set()).add(tuple(args[i] for i in self.free))
        free_domains = [self.declared[i] for i in self.free]
        completions = math.prod(len(d) for d in free_domains)
        chosen: list[tuple[tuple[str, ...], int]] = []
        for args in self._solutions(self.bound, domains, checks):
            taken = ref_by_bound.get(tuple(args[i] for i in self.bound), set())
            weight = completions - sum(1 for z in taken if all(o in self.rank[i] for i, o in zip(self.free, z)))
            if weight <= 0:
                continue
            z = next(z for z in itertools.product(*free_domains) if z not in taken)
            for i, o in zip(self.free, z):
                args[i] = o
            chosen.append((tuple(args), weight))
            self._check_limit(len(chosen))
        shared = 0
        for args in in_ref:
            if all(o in self.rank[i] for i, o in enumerate(args)) and _holds(self.static, list(args), self.grounder.init):
                chosen.append((args, 1))
                shared += 1
                self._check_limit(len(chosen))
        chosen.sort(key=lambda c: tuple(self.rank[i][o] for i, o in enumerate(c[0])))
        out = [self.grounder.ground_one(self.action, args) for args, _ in chosen]
        weights = {g.key: w for g, (_, w) in zip(out, chosen) if w > 1}
        return out, weights, self._count_static(init_positions), shared

    def _check_limit(self, count: int) -> None:
        if count > self.grounder.limit:
            raise GroundingLimit(f"action '{self.action.name}' has more than {self.grounder.limit} groundings")

    def _count_static(self, init_positions: dict) -> int:
        """The bindings (over the declared types) whose static and equality preconditions hold."""
        constrained = sorted({i for _, _, used in self.static for i in used})
        rest = math.prod(len(self.declared[i]) for i in range(len(self.declared)) if i not in constrained)
        if not rest:
            return 0
        domains = narrowed(self.action, self.declared, init_positions, {p for p, _ in init_positions})
        return rest * sum(1 for _ in self._solutions(constrained, domains, self.static))

    def _solutions(self, order: list[int], domains: list[tuple[str, ...]], checks: list) -> Iterator[Args]:
        """The bindings of the parameters `order` (in that order; the others None) that pass `checks`, each
        check made as soon as its parameters are bound (every check's parameters are among `order`)."""
        init, possible = self.grounder.init, self.possible
        depth = {slot: d for d, slot in enumerate(order)}
        at: list[list] = [[] for _ in range(max(len(order), 1))]
        for check in checks:
            at[max((depth[s] for s in check[2]), default=0)].append(check)
        args: Args = [None] * len(self.declared)
        if not order:
            if _holds(at[0], args, init, possible):
                yield list(args)
            return

        def extend(d: int) -> Iterator[Args]:
            slot = order[d]
            for obj in domains[slot]:
                args[slot] = obj
                if _holds(at[d], args, init, possible):
                    if d + 1 == len(order):
                        yield list(args)
                    else:
                        yield from extend(d + 1)
            args[slot] = None

        yield from extend(0)


def _holds(checks: Iterable[tuple[str, tuple, frozenset[int]]], args: Args, init: frozenset[GroundAtom],
           possible: frozenset[GroundAtom] | None = None) -> bool:
    for kind, data, _ in checks:
        if kind in ("eq", "ne"):
            a, b = (args[s] if isinstance(s, int) else s for s in data)
            if (a == b) != (kind == "eq"):
                return False
        else:
            pred, slots = data
            atom = (pred, *[args[s] if isinstance(s, int) else s for s in slots])
            if kind == "reach":
                if possible is not None and atom not in possible:
                    return False
            elif (atom in init) != (kind == "in"):
                return False
    return True
