"""What holds in every reachable state of a domain's actions: at-most-one and exactly-one groups, proven.

A group invariant (Helmert 2009, "Concise finite-domain representations for PDDL planning tasks",
lifted mutex groups) is a set of parts, each a predicate whose arguments are the invariant's
parameters, save at most one "counted" argument that ranges over all objects of its type. For each
binding of the parameters, at most one atom of the group holds ("each ball is in at most one of
(at ?b ?r) for some room, (carry ?b ?g) for some gripper"); exactly-one groups have exactly one.

Candidates are grown as in Fast Downward's translator: start from one part per fluent predicate and
counted position; where an action adds an atom of the group, the atoms it deletes are the parts that
could balance it. Each candidate is then proven on every problem, grounded (our own check, not the
translator's): true in the initial state, and inductive, i.e. for every ground action and every state
where the invariant holds and the action applies, it holds afterwards (the check is exact per action:
a precondition atom of the group fixes the one true atom, otherwise any atom of the group not
excluded by a negated precondition may be the true one). So an invariant is proven for the objects
of the given problems, which are the states every judge of ours explores.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from domain_drafter.core.model import EQUALITY, ActionSchema, Domain, Problem
from domain_drafter.planning.grounding import GroundAction, GroundAtom, Grounder, GroundingLimit

MAX_PARTS = 4               # parts of one candidate
MAX_CANDIDATES = 400        # candidates tried per domain
GROUNDING_LIMIT = 200_000   # ground actions per action schema while proving


@dataclass(frozen=True)
class Part:
    """A predicate of the group: per argument, the invariant parameter it is (0, 1, ...) or None (counted)."""

    predicate: str
    slots: tuple[int | None, ...]

    @property
    def order(self) -> tuple[str, tuple[int, ...]]:
        return self.predicate, tuple(-1 if s is None else s for s in self.slots)

    @property
    def counted(self) -> int | None:
        return next((i for i, s in enumerate(self.slots) if s is None), None)

    def key_of(self, args: Sequence[str], params: int) -> tuple[str, ...] | None:
        """The parameter binding of the group the ground atom with `args` belongs to (None: it cannot match)."""
        if len(args) != len(self.slots):
            return None
        key: list[str | None] = [None] * params
        for arg, slot in zip(args, self.slots):
            if slot is None:
                continue
            if key[slot] is not None and key[slot] != arg:
                return None
            key[slot] = arg
        return tuple(key) if all(k is not None for k in key) else None  # type: ignore[return-value]

    def text(self, names: Sequence[str]) -> str:
        words = [names[s] if s is not None else "*" for s in self.slots]
        return f"({' '.join((self.predicate, *words))})"


@dataclass(frozen=True)
class Invariant:
    """A proven group: at most one (or exactly one) of its atoms holds, per binding of its parameters."""

    parts: tuple[Part, ...]
    params: int
    param_types: tuple[str, ...]
    exactly_one: bool

    @property
    def key(self) -> str:
        """A stable name, the one a dismissal records: "(at ?0 *) (carry ?0 *)"."""
        return " ".join(p.text([f"?{i}" for i in range(self.params)]) for p in self.parts)

    @cached_property
    def predicates(self) -> frozenset[str]:
        return frozenset(p.predicate for p in self.parts)

    def describe(self, domain: Domain) -> str:
        """In words: exactly one of (at ?b ?r) for some room, (carry ?b ?g) for some gripper holds, for each ball ?b."""
        names = [f"?{t[:1] or 'x'}{i + 1 if self.params > 1 else ''}" for i, t in enumerate(self.param_types)]
        parts = []
        for part in self.parts:
            counted = part.counted
            words = list(part.slots)
            shown = []
            for i, slot in enumerate(words):
                if slot is None:
                    sig = domain.predicate_map.get(part.predicate)
                    kind = sig.parameters[i].type if sig and i < len(sig.parameters) else "object"
                    shown.append(f"?{kind[:1]}{'_' if kind[:1] in (n[1:2] for n in names) else ''}")
                else:
                    shown.append(names[slot])
            text = f"({' '.join((part.predicate, *shown))})"
            if counted is not None:
                sig = domain.predicate_map.get(part.predicate)
                kind = sig.parameters[counted].type if sig and counted < len(sig.parameters) else "object"
                text += f" for some {kind}"
            parts.append(text)
        each = " and ".join(f"each {t} {n}" for t, n in zip(self.param_types, names))
        how = "exactly one" if self.exactly_one else "at most one"
        return f"{how} of {', '.join(parts)} holds" + (f", for {each}" if each else "")


@dataclass(frozen=True)
class DomainInvariants:
    """What the actions of a domain (all but `without`) keep on its problems."""

    invariants: tuple[Invariant, ...]
    static: tuple[str, ...]          # declared predicates no considered action changes
    adders: frozenset[str]           # predicates some considered action adds
    deleters: frozenset[str]         # predicates some considered action deletes
    without: str | None = None
    fixed: tuple[str, ...] = ()      # the fixed relations among `static` (`fixed_relations`)
    lasting: tuple[str, ...] = ()    # goal predicates no considered action deletes (`lasting_goals`)

    def lines(self, domain: Domain) -> list[str]:
        out = [inv.describe(domain) for inv in self.invariants]
        out += [f"({p} ...) never changes" for p in self.static]
        return out


def other_actions(domain: Domain, without: str | None) -> Domain:
    """`domain` with the action `without` left out (the actions whose invariants judge it)."""
    if without is None:
        return domain
    kept = tuple(a for a in domain.actions if a.name != without.lower())
    from dataclasses import replace

    return replace(domain, actions=kept)


def _normal(parts: Iterable[Part], params: int) -> tuple[Part, ...]:
    """The candidate's canonical form: the least sorted tuple over all renamings of its parameters."""
    parts = list(parts)
    best: tuple[Part, ...] | None = None
    for perm in itertools.permutations(range(params)):
        renamed = tuple(sorted((Part(p.predicate, tuple(None if s is None else perm[s] for s in p.slots))
                                for p in parts), key=lambda p: p.order))
        if best is None or [p.order for p in renamed] < [p.order for p in best]:
            best = renamed
    return best or ()


def _seeds(domain: Domain, fluents: Iterable[str]) -> list[tuple[tuple[Part, ...], int]]:
    out = []
    for name in sorted(fluents):
        sig = domain.predicate_map.get(name)
        if sig is None:
            continue
        n = sig.arity
        out.append(((Part(name, tuple(range(n))),), n))
        for counted in range(n):
            slots, k = [], 0
            for i in range(n):
                if i == counted:
                    slots.append(None)
                else:
                    slots.append(k)
                    k += 1
            out.append(((Part(name, tuple(slots)),), n - 1))
    return out


def _lifted_binding(part: Part, args: Sequence[str], params: int) -> dict[int, str] | None:
    if len(args) != len(part.slots):
        return None
    bound: dict[int, str] = {}
    for arg, slot in zip(args, part.slots):
        if slot is not None and bound.setdefault(slot, arg) != arg:
            return None
    return bound if len(bound) == params else None


def _refinements(parts: tuple[Part, ...], params: int, action: ActionSchema) -> Iterable[tuple[Part, ...]]:
    """Candidates with one more part: an atom `action` deletes, bound like an atom of the group it adds."""
    if len(parts) >= MAX_PARTS:
        return
    have = set(parts)
    for added in action.add:
        for part in parts:
            if part.predicate != added.predicate:
                continue
            bound = _lifted_binding(part, added.args, params)
            if bound is None:
                continue
            by_term = {term: slot for slot, term in bound.items()}
            if len(by_term) != len(bound):
                continue
            for deleted in action.delete:
                if deleted.predicate == EQUALITY:
                    continue
                slots = tuple(by_term.get(a) for a in deleted.args)
                if sum(1 for s in slots if s is None) > 1 or {s for s in slots if s is not None} != set(range(params)):
                    continue
                if len([s for s in slots if s is not None]) != params:
                    continue
                new = Part(deleted.predicate, slots)
                if new not in have:
                    yield (*parts, new)


class _Checker:
    """Proves candidates on one problem: the ground actions, the group atoms, the initial state."""

    def __init__(self, domain: Domain, problem: Problem):
        self.domain = domain
        self.grounder = Grounder(domain, problem, domain.fluent_predicates, limit=GROUNDING_LIMIT)
        self.actions: list[GroundAction] = self.grounder.ground_domain(domain)
        self.init = self.grounder.init_state()

    def _members(self, part: Part, key: tuple[str, ...]) -> list[GroundAtom]:
        counted = part.counted
        base = [key[s] if s is not None else "" for s in part.slots]
        if counted is None:
            return [(part.predicate, *base)]
        sig = self.domain.predicate_map[part.predicate]
        out = []
        for obj in self.grounder.candidates(sig.parameters[counted].type):
            args = list(base)
            args[counted] = obj
            out.append((part.predicate, *args))
        return out

    def group_mask(self, parts: Sequence[Part], key: tuple[str, ...]) -> int:
        return self.grounder.index.mask(a for p in parts for a in self._members(p, key))

    def keys_of(self, parts: Sequence[Part], params: int, mask: int) -> set[tuple[str, ...]]:
        keys = set()
        for atom in self.grounder.index.decode(mask):
            for part in parts:
                if part.predicate == atom[0]:
                    key = part.key_of(atom[1:], params)
                    if key is not None:
                        keys.add(key)
        return keys

    def all_keys(self, parts: Sequence[Part], params: int) -> set[tuple[str, ...]]:
        keys: set[tuple[str, ...]] = set()
        for part in parts:
            sig = self.domain.predicate_map[part.predicate]
            types: list[str | None] = [None] * params
            for i, slot in enumerate(part.slots):
                if slot is not None:
                    types[slot] = sig.parameters[i].type
            pools = [self.grounder.candidates(t or "object") for t in types]
            keys.update(itertools.product(*pools))
        return keys

    def failing(self, parts: Sequence[Part], params: int, exact: bool) -> tuple[bool, set[str]]:
        """(holds initially, the actions that can break it). Exact: exactly one, else at most one."""
        masks: dict[tuple[str, ...], int] = {}

        def group(key: tuple[str, ...]) -> int:
            m = masks.get(key)
            if m is None:
                m = masks[key] = self.group_mask(parts, key)
            return m

        init_ok = True
        keys = self.all_keys(parts, params) if exact else self.keys_of(parts, params, self.init)
        for key in keys:
            n = (self.init & group(key)).bit_count()
            if n > 1 or (exact and n != 1):
                init_ok = False
                break
        broken: set[str] = set()
        for g in self.actions:
            if g.key[0] in broken:
                continue
            touched = g.add | (g.delete if exact else 0)
            for key in self.keys_of(parts, params, touched):
                if not _keeps(g, group(key), exact):
                    broken.add(g.key[0])
                    break
        return init_ok, broken


def _keeps(g: GroundAction, group: int, exact: bool) -> bool:
    """Whether `g`, applied in any state where the group has at most (exact: exactly) one atom, keeps that."""
    known = g.pre & group
    if known.bit_count() >= 2 or known & g.neg:
        return True                        # never applies in such a state
    added = g.add & group
    befores = [known] if known else [1 << i for i in _bits(group & ~g.neg)] + ([] if exact else [0])
    for before in befores:
        after = (before & ~g.delete) | added
        n = after.bit_count()
        if n > 1 or (exact and n != 1):
            return False
    return True


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def find_invariants(domain: Domain, problems: Sequence[Problem], without: str | None = None) -> DomainInvariants:
    """The group invariants of `domain`'s actions (leaving out `without`), proven on every problem in `problems`."""
    others = other_actions(domain, without)
    fluents = others.fluent_predicates
    static = tuple(p.name for p in domain.predicates if p.name not in fluents)
    adders = frozenset(l.atom.predicate for a in others.actions for l in a.effect if l.positive)
    deleters = frozenset(l.atom.predicate for a in others.actions for l in a.effect if not l.positive)
    fixed = fixed_relations(others, static, problems)
    lasting = lasting_goals(others, problems)
    try:
        checkers = [_Checker(others, p) for p in problems]
    except GroundingLimit:
        return DomainInvariants((), static, adders, deleters, without, fixed, lasting)
    if not checkers:
        return DomainInvariants((), static, adders, deleters, without, fixed, lasting)
    queue = [(_normal(parts, n), n) for parts, n in _seeds(domain, fluents)]
    seen = {q for q in queue}
    proven: list[tuple[tuple[Part, ...], int]] = []
    tried = 0
    while queue and tried < MAX_CANDIDATES:
        parts, n = queue.pop(0)
        tried += 1
        init_ok, broken = True, set()
        for checker in checkers:
            ok, bad = checker.failing(parts, n, exact=False)
            init_ok &= ok
            broken |= bad
        if init_ok and not broken:
            proven.append((parts, n))
        if not init_ok:
            continue                       # more parts never make a group that is already too full smaller
        # every action that adds an atom of the group may balance it by what it deletes (a proven group too:
        # a larger one that also holds says more)
        predicates = {p.predicate for p in parts}
        for action in others.actions:
            if not any(a.predicate in predicates for a in action.add):
                continue
            for new in _refinements(parts, n, action):
                cand = (_normal(new, n), n)
                if cand not in seen:
                    seen.add(cand)
                    queue.append(cand)
    kept = []
    for parts, n in proven:
        if len(parts) == 1 and parts[0].counted is None:
            continue                       # one atom per group: at most one always holds
        if any(m == n and set(parts) < set(_any_renaming(other, n, parts)) for other, m in proven):
            continue                       # implied by a larger group
        exact = True
        for checker in checkers:
            ok, bad = checker.failing(parts, n, exact=True)
            exact = exact and ok and not bad
        kept.append(Invariant(parts, n, _param_types(domain, parts, n), exact))
    kept += _fixed_groups(domain, fixed, checkers)
    return DomainInvariants(tuple(kept), static, adders, deleters, without, fixed, lasting)


def fixed_relations(others: Domain, static: Iterable[str], problems: Sequence[Problem]) -> tuple[str, ...]:
    """The predicates of `static` (no action of `others` changes them) that no problem's goal names: the problems'
    map (logistics' in-city, miconic's origin). None while some action of `others` is still empty (a domain
    drafted action by action): "no other action changes it" says nothing until the others are written (gripper's
    `carry`, while only pick is drafted). A predicate a goal names is one some action must change."""
    if any(not a.effect for a in others.actions):
        return ()
    goals = {literal.atom.predicate for problem in problems for literal in problem.goal}
    return tuple(p for p in static if p not in goals)


def lasting_goals(others: Domain, problems: Sequence[Problem]) -> tuple[str, ...]:
    """The predicates some problem's goal names that no action of `others` deletes: progress toward a goal that,
    once made, lasts (miconic's served, blocksworld's on while unstack is the action judged). None while some
    action of `others` is still empty (see `fixed_relations`)."""
    if any(not a.effect for a in others.actions):
        return ()
    deleted = {literal.atom.predicate for a in others.actions for literal in a.effect if not literal.positive}
    goals = dict.fromkeys(literal.atom.predicate for problem in problems for literal in problem.goal if literal.positive)
    return tuple(p for p in goals if p not in deleted)


def _fixed_groups(domain: Domain, fixed: Sequence[str], checkers: Sequence[_Checker]) -> list[Invariant]:
    """The exactly-one groups of the fixed relations (`fixed_relations`), as every initial state has them
    ("each place is in exactly one city", "each passenger has exactly one origin"): nothing but the action being
    judged could break them. Only groups with a counted argument and a key (a function of the key: one group per
    place, per passenger), and only exactly-one: the initial states can hold at most one by chance (no passenger
    served yet), and one global group by chance too (track-building's problems each start with one track, which
    build-track adds to)."""
    out = []
    for parts, n in _seeds(domain, fixed):
        if parts[0].counted is None or n == 0:
            continue
        parts = _normal(parts, n)
        if all(checker.failing(parts, n, exact=True)[0] for checker in checkers):
            out.append(Invariant(parts, n, _param_types(domain, parts, n), True))
    return out


def _any_renaming(other: tuple[Part, ...], n: int, parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """`other` renamed so that it contains as many of `parts` as any renaming does."""
    best, hits = other, -1
    for perm in itertools.permutations(range(n)):
        renamed = tuple(Part(p.predicate, tuple(None if s is None else perm[s] for s in p.slots)) for p in other)
        h = len(set(renamed) & set(parts))
        if h > hits:
            best, hits = renamed, h
    return best


def _param_types(domain: Domain, parts: Sequence[Part], n: int) -> tuple[str, ...]:
    types: list[str] = ["object"] * n
    for part in reversed(parts):
        sig = domain.predicate_map[part.predicate]
        for i, slot in enumerate(part.slots):
            if slot is not None:
                types[slot] = sig.parameters[i].type
    return tuple(types)


def literal_words(literal: str) -> tuple[str, ...]:
    """The words of a lifted literal as written: "(not (at ?b ?r))" -> ("not", "at", "?b", "?r")."""
    return tuple(literal.replace("(", " ").replace(")", " ").split())


def exclusive_preconditions(invariants: DomainInvariants, literals: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The pairs of positive precondition literals (as written, e.g. by the action grammar) that no reachable
    state of the other actions makes true together: two parts of one proven group, bound to the same group by the
    action's parameters in every grounding ("(holding ?x)" and "(ontable ?x)": at most one of (ontable ?0),
    (on ?0 *), (holding ?0) holds for each block). An action whose precondition holds both can never apply for the
    first time, so never at all (its own effects come after). Literals on one predicate are left out: bound to
    equal objects they are one atom. Each pair once, in the order given."""
    parsed = [(lit, words) for lit in dict.fromkeys(literals)
              if (words := literal_words(lit)) and words[0] not in ("not", EQUALITY)]
    out = []
    for i, (a, wa) in enumerate(parsed):
        for b, wb in parsed[i + 1:]:
            if wa[0] == wb[0]:
                continue
            if any(_same_group(inv, wa, wb) for inv in invariants.invariants):
                out.append((a, b))
    return tuple(out)


def unbalanced_deletes(invariants: DomainInvariants, literals: Iterable[str]) -> tuple[str, ...]:
    """The delete literals of an effect (as written, e.g. by the action grammar) that no add among `literals` can
    balance: the deleted atom is part of a proven exactly-one group, and no positive literal puts another atom of
    the same group (bound alike by the action's parameters) in its place. "(not (at-robby ?room))" in gripper's
    pick: exactly one (at-robby *) holds, and pick's parameters name no room but ?room, so the delete either does
    nothing or leaves the robot nowhere. Such a literal is never part of a right answer: where the atom holds the
    group is left empty, where it does not the delete changes nothing. In the order given."""
    written = list(dict.fromkeys(literals))
    adds = [w for lit in written if (w := literal_words(lit)) and w[0] not in ("not", EQUALITY)]
    out = []
    for lit in written:
        words = literal_words(lit)
        if len(words) < 2 or words[0] != "not" or words[1] == EQUALITY:
            continue
        atom = words[1:]
        if any(_unbalanced(inv, atom, adds) for inv in invariants.invariants if inv.exactly_one):
            out.append(lit)
    return tuple(out)


def _unbalanced(inv: Invariant, atom: Sequence[str], adds: Sequence[Sequence[str]]) -> bool:
    """Whether `atom` is in a group of `inv` that none of `adds` (other atoms) can refill."""
    others = [_keys(inv, add) for add in adds if tuple(add) != tuple(atom)]
    return any(not any(key in keys for keys in others) for key in _keys(inv, atom))


def _same_group(inv: Invariant, a: Sequence[str], b: Sequence[str]) -> bool:
    return bool(_keys(inv, a) & _keys(inv, b))


def _keys(inv: Invariant, words: Sequence[str]) -> set[tuple[str, ...]]:
    """The groups of `inv` the lifted atom `words` ("at", "?b", "?r") belongs to, by their parameter binding."""
    return {key for part in inv.parts if part.predicate == words[0]
            if (key := part.key_of(words[1:], inv.params)) is not None}
