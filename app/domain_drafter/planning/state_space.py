"""Breadth-first exploration of a domain's reachable states, and the state-by-state comparison of two domains.

`explore` enumerates the states reachable from a problem's initial state (goal ignored), in
breadth-first order, each with its parent and the step that reached it, so the first state
where two domains part also gives the shortest plan prefix to it. `ActionPairs` holds the
ground actions to compare (the reference's and the generated domain's groundings of the same
actions, keyed by plan step) and finds the first explored state where a pair behaves
differently: applicable in one domain only, or with another successor.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain_drafter.core.model import Domain, Literal
from domain_drafter.planning.grounding import AtomIndex, GroundAction, Key, SuccessorIndex, bits, show_step


@dataclass
class ReachableStates:
    """States reachable in one domain from one problem's init, breadth-first; `complete` if none is left out."""

    atoms: list[tuple[str, ...]]          # the atom index the state bits refer to (a prefix of the index used)
    states: list[int]
    parent: list[int]                     # -1 for the initial state
    via: list[str]                        # the step "(a x y)" from the parent ("" for the initial state)
    complete: bool
    stopped: str = ""                     # why not complete: "state budget 200000" or "time limit 20 s"
    explore_s: float = 0.0

    def prefix(self, state: int) -> tuple[str, ...]:
        """The plan steps from the initial state to state number `state`."""
        steps: list[str] = []
        while state > 0:
            steps.append(self.via[state])
            state = self.parent[state]
        return tuple(reversed(steps))


def explore(actions: Sequence[GroundAction], index: AtomIndex, init: int, *, budget: int,
            deadline: float | None = None, goal: tuple[int, int] | None = None) -> tuple[ReachableStates, int | None]:
    """BFS from `init` over `actions`, at most `budget` states (and until `deadline`, a perf_counter time).

    With `goal` (positive mask, negative mask) the search stops at the first goal state and
    returns its number as the second value (None if no reachable state is a goal state).
    """
    started = time.perf_counter()
    successors = SuccessorIndex(actions)
    states, parent, via = [init], [-1], [""]
    seen = {init: 0}
    queue = deque([0])
    labels: dict[Key, str] = {}
    stopped = ""
    checks = 0
    while queue:
        n = queue.popleft()
        s = states[n]
        if goal is not None and s & goal[0] == goal[0] and not s & goal[1]:
            return ReachableStates(list(index.atoms), states, parent, via, False, "goal reached",
                                   time.perf_counter() - started), n
        for g in successors.applicable(s):
            t = (s & ~g.delete) | g.add
            if t in seen:
                continue
            if len(states) >= budget:
                stopped = f"state budget {budget} reached"
                break
            seen[t] = len(states)
            states.append(t)
            parent.append(n)
            label = labels.get(g.key)
            if label is None:
                label = labels[g.key] = show_step(g.key)
            via.append(label)
            queue.append(len(states) - 1)
        if stopped:
            break
        checks += 1
        if deadline is not None and checks % 256 == 0 and time.perf_counter() > deadline:
            stopped = "time limit reached"
            break
    complete = not stopped
    return ReachableStates(list(index.atoms), states, parent, via, complete, stopped,
                           time.perf_counter() - started), None


def goal_masks(index: AtomIndex, goal: Iterable[Literal]) -> tuple[int, int]:
    goal = list(goal)
    return (index.mask((l.atom.predicate, *l.atom.args) for l in goal if l.positive),
            index.mask((l.atom.predicate, *l.atom.args) for l in goal if not l.positive))


@dataclass(frozen=True, slots=True)
class ActionPair:
    """One plan step and what it is in each domain (None: not applicable there in any reachable state)."""

    key: Key
    reference: GroundAction | None
    generated: GroundAction | None


@dataclass(frozen=True)
class Difference:
    """The two domains part at explored state `state` on `pair`."""

    state: int
    pair: ActionPair
    kind: str                 # "only-reference", "only-generated" or "effect"
    reference_after: int | None = None
    generated_after: int | None = None


def _same(a: GroundAction | None, b: GroundAction | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.pre, a.neg, a.add, a.delete) == (b.pre, b.neg, b.add, b.delete)


class ActionPairs:
    """The groundings of the compared actions in both domains, indexed by one precondition atom each side."""

    def __init__(self, reference: Iterable[GroundAction], generated: Iterable[GroundAction],
                 weights: dict[Key, int] | None = None, groundings: int | None = None):
        """`weights`: a pair that stands for several groundings behaving alike counts that many times in
        the score; `groundings`: the score's number of groundings, when more than the pairs given."""
        ref = {g.key: g for g in reference}
        gen = {g.key: g for g in generated}
        keys = list(ref) + [k for k in gen if k not in ref]
        # every grounding of either side, equal ones included (the score's x)
        self.groundings = len(keys) if groundings is None else groundings
        self.pairs = [ActionPair(k, ref.get(k), gen.get(k)) for k in keys if not _same(ref.get(k), gen.get(k))]
        self.weights = [weights.get(p.key, 1) for p in self.pairs] if weights else None
        self.by_atom: dict[int, list[int]] = {}
        self.always: list[int] = []
        self._filed_twice: set[int] = set()
        for i, pair in enumerate(self.pairs):
            keys = {(g.pre & -g.pre).bit_length() - 1 if g.pre else -1
                    for g in (pair.reference, pair.generated) if g is not None}
            if len(keys) > 1 and -1 not in keys:
                self._filed_twice.add(i)
            elif len(keys) > 1:               # one side always a candidate: file the pair there only
                keys = {-1}
            for key in sorted(keys):
                if key < 0:
                    self.always.append(i)
                else:
                    self.by_atom.setdefault(key, []).append(i)

        self.filed = 0                    # the atoms some pair is filed under, as a mask
        for atom in self.by_atom:
            self.filed |= 1 << atom

    def __len__(self) -> int:
        return len(self.pairs)

    def difference_at(self, number: int, state: int) -> Difference | None:
        """The first pair (in pair order) that behaves differently in `state`, or None."""
        best = -1
        pairs = self.pairs
        by_atom = self.by_atom
        for i in self.always:
            if (best < 0 or i < best) and _differs(pairs[i], state):
                best = i
        for atom in bits(state & self.filed):
            for i in by_atom[atom]:
                if (best < 0 or i < best) and _differs(pairs[i], state):
                    best = i
        return compare(pairs[best], number, state) if best >= 0 else None

    def first_difference(self, space: ReachableStates,
                         deadline: float | None = None) -> tuple[Difference | None, int]:
        """The first explored state (breadth-first, so the shallowest) where some pair differs.

        Also returns how many states were compared: fewer than explored only when `deadline`
        (a perf_counter time) stopped the comparison.
        """
        if not self.pairs:
            return None, len(space.states)
        for number, state in enumerate(space.states):
            if deadline is not None and number % 512 == 511 and time.perf_counter() > deadline:
                return None, number
            found = self.difference_at(number, state)
            if found is not None:
                return found, number + 1
        return None, len(space.states)


    def count_differences(self, space: ReachableStates, deadline: float | None = None) -> tuple[int, int]:
        """How many (state, pair) combinations differ over the explored states (METHOD 6b).

        Returns (states counted, differing combinations): fewer states than explored only when
        `deadline` (a perf_counter time) stopped the count. Pairs equal in both domains never differ.
        """
        if not self.pairs:
            return len(space.states), 0
        pairs, by_atom, always, twice = self.pairs, self.by_atom, self.always, self._filed_twice
        weights = self.weights or [1] * len(pairs)
        filed = self.filed
        differing = 0
        for number, state in enumerate(space.states):
            if deadline is not None and number % 512 == 511 and time.perf_counter() > deadline:
                return number, differing
            for i in always:
                if _differs(pairs[i], state):
                    differing += weights[i]
            seen: set[int] = set()
            for atom in bits(state & filed):
                for i in by_atom[atom]:
                    if i in twice:
                        if i in seen:
                            continue
                        seen.add(i)
                    if _differs(pairs[i], state):
                        differing += weights[i]
        return len(space.states), differing


def _differs(pair: ActionPair, state: int) -> bool:
    ref, gen = pair.reference, pair.generated
    in_ref = ref is not None and state & ref.pre == ref.pre and not state & ref.neg
    in_gen = gen is not None and state & gen.pre == gen.pre and not state & gen.neg
    if in_ref != in_gen:
        return True
    return in_ref and ((state & ~ref.delete) | ref.add) != ((state & ~gen.delete) | gen.add)  # type: ignore[union-attr]


def compare(pair: ActionPair, number: int, state: int) -> Difference | None:
    ref, gen = pair.reference, pair.generated
    in_ref = ref is not None and ref.applicable(state)
    in_gen = gen is not None and gen.applicable(state)
    if in_ref != in_gen:
        return Difference(number, pair, "only-reference" if in_ref else "only-generated")
    if in_ref and gen is not None and ref is not None:
        after_ref, after_gen = ref.apply(state), gen.apply(state)
        if after_ref != after_gen:
            return Difference(number, pair, "effect", after_ref, after_gen)
    return None


def compared_names(reference: Domain, generated: Domain, actions: Sequence[str] | None) -> list[str]:
    """The action names to compare: `actions`, or every name in either domain (whole-domain compare)."""
    if actions is not None:
        return [a.lower() for a in actions]
    return list(dict.fromkeys([a.name for a in reference.actions] + [a.name for a in generated.actions]))
