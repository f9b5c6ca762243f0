"""Invariant findings: what the domain's other actions say about one action, with no reference.

Nine kinds, each shown with a reachable state of the domain with the action in place (explored
breadth-first on every problem, so the state comes with the shortest plan prefix to it):

- breaks-invariant: after the action, a group the other actions keep at exactly one atom has two
  (or none). Which groups bind the action (our rule, so that a new action may rightly do what the
  others never did): only exactly-one groups, where every problem starts with one atom per group and
  every other action moves it within the group, never creates or loses one (at-most-one groups that
  start empty, such as miconic's boarded/served, may only record that nothing happened yet). An
  action that makes two hold is flagged only when the atom it adds is one the other actions also
  delete (the group is a cycle they move through: gripper's carry and at; heavy-pack's packed is
  never undone, so a second packed item is no breach). An action that leaves none is flagged only
  when the atom it deletes, which another action also adds, has a counted argument (a value among several,
  as a ball's room) or is one it does not require (gripper's pick that also deletes (free right)); an item
  that stops being "nothing-above" in heavy-pack, as stack requires, is not lost.
- never-applies: no grounding applies in any reachable state of any problem (exploration complete).
- changes-nothing: it applies, and every application leaves the state as it was.
- changes-fixed-relation: it adds or deletes an atom of a relation (two or more arguments) that no other
  action changes and no problem's goal names, such as logistics' in-city or miconic's above and origin: the
  problems' map, which the other actions only read (planning/invariants.fixed_relations: only once every
  other action is written). Flagged at the first reachable state where the atom really changes (restating
  one that holds is no change). A new action may rightly change one (a road built): dismiss it then.
- undoes-goal: it deletes an atom it does not require, of a predicate a problem's goal names that no other
  action deletes (planning/invariants.lasting_goals: miconic's served), at the first reachable state where
  such an atom held: progress toward the goal that the domain otherwise never takes back. Every bundled
  action that deletes such an atom requires it first (unstack's on, pick's at).
- adds-nothing: every change it makes, in every reachable state of every problem, another action makes
  from the same state (a move-agent written as a copy of move-train): the domain can do nothing more with
  it than without it, so it does not do what its description asks. Needs every problem explored completely.
- overlaps: in some state the other actions reach on their own, it does exactly what another action does from
  there, with its objects all different (a walk that forgets (not (isHill ?to)) walks onto a hill as climb climbs): usually it asks too little
  in its precondition. Where two of its parameters meet, a macro action degenerates into one of its parts (a
  transfer from a room to the same room is a drop): no overlap there. No two actions of the bundled domains ever
  do the same thing from the same state; a new action may (dismiss it then).
- treats-alike-differently: two objects the domain cannot tell apart (swapping them leaves a problem's initial
  state and goal as they are, and no other action names either) where it applies with one in a parameter and,
  in no reachable state, with the other (gripper's drop that asks for (free right): it drops from left only).
  Only when the problem is explored completely.
- bypasses: it adds atoms of a predicate that another action adds, and with it in place no problem needs
  that action any more: every goal is reached without it (a miconic board that also serves the passenger: depart
  is never needed). Not when it is a macro: where each change it makes that no other action makes in one step (the
  first few per problem) the other actions can make in some steps (gripper's new transfer, a move and a drop in one, makes drop unneeded, rightly).
  With each of the 32 bundled actions in place, every other action is needed by some problem. Said only of an
  answer with no other finding (a breach it makes is the thing to fix first).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

from domain_drafter.core.model import ActionSchema, Atom, Domain, Literal, Problem
from domain_drafter.planning.grounding import GroundAction, Grounder, GroundingLimit, lift_atom, show_atom
from domain_drafter.planning.invariants import DomainInvariants, Invariant, Part, find_invariants
from domain_drafter.planning.state_space import explore, goal_masks

STATE_BUDGET = 50_000        # states explored per problem
TIME_LIMIT_S = 2.0           # seconds of exploration per problem
SAMPLED_CHANGES = 3          # bypasses: changes per problem the other actions must make in steps for a macro


class FindingKind(Enum):
    BREAKS_INVARIANT = "breaks-invariant"
    NEVER_APPLIES = "never-applies"
    CHANGES_NOTHING = "changes-nothing"
    CHANGES_FIXED_RELATION = "changes-fixed-relation"
    UNDOES_GOAL = "undoes-goal"
    ADDS_NOTHING = "adds-nothing"
    OVERLAPS = "overlaps"
    TREATS_ALIKE_DIFFERENTLY = "treats-alike-differently"
    BYPASSES = "bypasses"


class Severity(Enum):
    ERROR = "error"          # the action is of no use on any problem
    WARNING = "warning"      # may be intended: a new action may change what held before (dismiss it then)


@dataclass(frozen=True)
class InvariantFinding:
    """One finding on an action, with the reachable state that shows it."""

    kind: FindingKind
    severity: Severity
    action: str
    message: str
    key: str                                  # what a dismissal names: "breaks (at ?0 *) (carry ?0 *)"
    problem: str | None = None
    prefix: tuple[str, ...] = ()              # the plan steps to the state before `step`
    step: str | None = None                   # the action's grounding, applied there
    atoms: tuple[str, ...] = ()               # the atoms that show it (both hold / the group left empty)
    invariant: str | None = None
    fix: str | None = None
    state: tuple[str, ...] = ()               # the state `step` is applied in (sorted atoms)
    # the fix as edits of the action, where it is one: ("add" | "remove", "precondition" | "effect", literal)
    edits: tuple[tuple[str, str, str], ...] = ()

    def to_dict(self) -> dict:
        return {"kind": self.kind.value, "severity": self.severity.value, "action": self.action,
                "message": self.message, "key": self.key, "problem": self.problem, "prefix": list(self.prefix),
                "step": self.step, "atoms": list(self.atoms), "invariant": self.invariant, "fix": self.fix,
                "state": list(self.state), "edits": [list(e) for e in self.edits]}


@dataclass(frozen=True)
class InvariantReport:
    """The findings on one action (those dismissed apart), and what the others keep."""

    action: str
    findings: tuple[InvariantFinding, ...]
    dismissed: tuple[InvariantFinding, ...] = ()
    invariants: tuple[str, ...] = ()          # the binding invariants in words
    complete: bool = True                     # every problem explored completely
    notes: tuple[str, ...] = field(default=())

    def with_dismissed(self, keys: Iterable[str]) -> InvariantReport:
        """The same findings, those whose key is in `keys` kept apart (after the author dismissed or restored one)."""
        keys = set(keys)
        found = (*self.findings, *self.dismissed)
        return dataclasses.replace(self, findings=tuple(f for f in found if f.key not in keys),
                                   dismissed=tuple(f for f in found if f.key in keys))

    def to_dict(self) -> dict:
        return {"action": self.action, "findings": [f.to_dict() for f in self.findings],
                "dismissed": [f.to_dict() for f in self.dismissed], "invariants": list(self.invariants),
                "complete": self.complete, "notes": list(self.notes)}


@lru_cache(maxsize=64)
def invariants_without(domain: Domain, problems: tuple[Problem, ...], action: str) -> DomainInvariants:
    """The invariants of `domain`'s actions other than `action` on `problems` (cached: they never change)."""
    return find_invariants(domain, problems, without=action)


def _binds_over(inv: Invariant, part: Part, keeper: DomainInvariants) -> bool:
    return inv.exactly_one and part.predicate in keeper.deleters


def _binds_under(inv: Invariant, part: Part, keeper: DomainInvariants, required: bool) -> bool:
    """A delete binds an exactly-one group where another action adds the atom back, and the atom is a value among
    several (a counted argument) or one the action deletes without requiring it (gripper's pick with one gripper
    that also deletes (free right))."""
    return (inv.exactly_one and part.predicate in keeper.adders
            and (part.counted is not None or not required))


@dataclass
class _Watch:
    """A group one grounding touches, and which way it may break it."""

    inv: int
    key: tuple[str, ...]
    mask: int
    over: bool


class _Groups:
    """The binding groups of the invariants on one problem's atom index."""

    def __init__(self, domain: Domain, grounder: Grounder, keeper: DomainInvariants):
        self.domain = domain
        self.grounder = grounder
        self.keeper = keeper
        self.invs = keeper.invariants
        self._masks: dict[tuple[int, tuple[str, ...]], int] = {}

    def mask(self, i: int, key: tuple[str, ...]) -> int:
        found = self._masks.get((i, key))
        if found is None:
            inv = self.invs[i]
            atoms = []
            for part in inv.parts:
                base = [key[s] if s is not None else "" for s in part.slots]
                counted = part.counted
                if counted is None:
                    atoms.append((part.predicate, *base))
                    continue
                kind = self._type(part.predicate, counted)
                for obj in self.grounder.candidates(kind):
                    args = list(base)
                    args[counted] = obj
                    atoms.append((part.predicate, *args))
            found = self._masks[(i, key)] = self.grounder.index.mask(atoms)
        return found

    def _type(self, predicate: str, position: int) -> str:
        sig = self.domain.predicate_map.get(predicate)
        return sig.parameters[position].type if sig is not None and position < sig.arity else "object"

    def watches(self, g: GroundAction) -> list[_Watch]:
        out: list[_Watch] = []
        index = self.grounder.index
        for over, mask in ((True, g.add), (False, g.delete)):
            for atom in index.decode(mask):
                for i, inv in enumerate(self.invs):
                    for part in inv.parts:
                        if part.predicate != atom[0]:
                            continue
                        binds = (_binds_over(inv, part, self.keeper) if over else
                                 _binds_under(inv, part, self.keeper, bool(index.mask([atom]) & g.pre)))
                        key = part.key_of(atom[1:], inv.params) if binds else None
                        if key is not None:
                            out.append(_Watch(i, key, self.mask(i, key), over))
        return out


def _group_words(inv: Invariant, key: tuple[str, ...]) -> str:
    return ", ".join(p.text(key) for p in inv.parts)


def _broke(domain: Domain, schema: ActionSchema, inv: Invariant, w: _Watch, problem: str, prefix: tuple[str, ...],
           g: GroundAction, before: int, after: int, index_atoms: Sequence[tuple[str, ...]]) -> InvariantFinding:
    step = f"({' '.join(g.key)})"
    where = " ".join((*prefix, step))
    state = tuple(sorted(show_atom(index_atoms[i]) for i in _bits(before)))
    rule = f"every other action keeps this true: {inv.describe(domain)}"
    key = f"breaks {inv.key}"
    if w.over:
        held = [show_atom(index_atoms[i]) for i in _bits(after & w.mask)]
        old = [show_atom(index_atoms[i]) for i in _bits(before & w.mask & ~g.add)]
        both = " and ".join(held) + (" both hold" if len(held) == 2 else " all hold")
        fix, edits = None, ()
        added = [show_atom(index_atoms[i]) for i in _bits(g.add & w.mask & ~before)]
        kept = [show_atom(index_atoms[i]) for i in _bits(g.add & g.delete & w.mask)]
        if len(added) > 1:
            fix = f"add only one of {' and '.join(lift_atom(a, g.key, domain) for a in added)} to the effect"
        elif kept:        # deleted and added again: the add wins, so the atom stays
            fix = f"do not add {lift_atom(kept[0], g.key, domain)}: the effect deletes it and adds it back"
            edits = (("remove", "effect", lift_atom(kept[0], g.key, domain)),)
        # the atom that held before, or else an atom of the group the precondition could ask for and delete
        loose = [p.text(w.key) for p in inv.parts if p.counted is None]
        for atom in [*old, *(a for a in loose if a not in held)] if fix is None else ():
            lifted = lift_atom(atom, g.key, domain)
            if all(w.startswith("?") or w in domain.constant_map for w in lifted.strip("()").split()[1:]):
                in_pre = any(str(l.atom) == lifted for l in schema.precondition if l.positive)
                fix = (f"add (not {lifted}) to the effect" if in_pre
                       else f"add {lifted} to the precondition and (not {lifted}) to the effect")
                edits = ((("add", "precondition", lifted),) if not in_pre else ()) + (("add", "effect", f"(not {lifted})"),)
                break
        if fix is None and old:
            fix = f"make sure no other atom of that group holds before it ({old[0]} here)"
        message = f"on problem {problem}, after {where}: {both}; {rule}" + (f", so {fix}" if fix else "")
        return InvariantFinding(FindingKind.BREAKS_INVARIANT, Severity.WARNING, schema.name, message, key, problem,
                                prefix, step, tuple(held), inv.describe(domain), fix, state, edits)
    lost = [show_atom(index_atoms[i]) for i in _bits(before & w.mask)]
    unasked = [show_atom(index_atoms[i]) for i in _bits(before & w.mask & g.delete & ~g.pre)]
    fix = (f"take (not {lift_atom(unasked[0], g.key, domain)}) out of the effect" if unasked
           else "add one of them to the effect")
    edits = (("remove", "effect", f"(not {lift_atom(unasked[0], g.key, domain)})"),) if unasked else ()
    message = (f"on problem {problem}, after {where}: none of {_group_words(inv, w.key)} holds "
               f"(it deletes {' '.join(lost)}); {rule}, so {fix}")
    return InvariantFinding(FindingKind.BREAKS_INVARIANT, Severity.WARNING, schema.name, message, key, problem,
                            prefix, step, tuple(lost), inv.describe(domain), fix, state, edits)


def _changed_fixed(domain: Domain, schema: ActionSchema, problem: str, prefix: tuple[str, ...], g: GroundAction,
                   before: int, after: int, fixed: int, index_atoms: Sequence[tuple[str, ...]]) -> InvariantFinding:
    step = f"({' '.join(g.key)})"
    added = [show_atom(index_atoms[i]) for i in _bits(after & ~before & fixed)]
    deleted = [show_atom(index_atoms[i]) for i in _bits(before & ~after & fixed)]
    atom = (added or deleted)[0]
    lifted = lift_atom(atom, g.key, domain)
    what = f"{atom} {'becomes true' if added else 'stops holding'}"
    predicate = atom.strip("()").split()[0]
    message = (f"on problem {problem}, after {' '.join((*prefix, step))}: {what}; no other action changes "
               f"({predicate} ...), a fixed relation of the problems, so take "
               f"{lifted if added else f'(not {lifted})'} out of the effect")
    state = tuple(sorted(show_atom(index_atoms[i]) for i in _bits(before)))
    return InvariantFinding(FindingKind.CHANGES_FIXED_RELATION, Severity.WARNING, schema.name, message,
                            f"changes {predicate}", problem, prefix, step, (atom,), None,
                            f"take {lifted if added else f'(not {lifted})'} out of the effect", state,
                            (("remove", "effect", lifted if added else f"(not {lifted})"),))


def _undid_goal(domain: Domain, schema: ActionSchema, problem: str, prefix: tuple[str, ...], g: GroundAction,
                before: int, lost: int, index_atoms: Sequence[tuple[str, ...]]) -> InvariantFinding:
    step = f"({' '.join(g.key)})"
    atom = show_atom(index_atoms[next(iter(_bits(lost)))])
    lifted = lift_atom(atom, g.key, domain)
    predicate = atom.strip("()").split()[0]
    message = (f"on problem {problem}, after {' '.join((*prefix, step))}: {atom} stops holding, although it does "
               f"not require it; a goal names ({predicate} ...) and no other action ever deletes it, so what was "
               f"reached would be lost: take (not {lifted}) out of the effect")
    state = tuple(sorted(show_atom(index_atoms[i]) for i in _bits(before)))
    return InvariantFinding(FindingKind.UNDOES_GOAL, Severity.WARNING, schema.name, message, f"undoes {predicate}",
                            problem, prefix, step, (atom,), None, f"take (not {lifted}) out of the effect", state,
                            (("remove", "effect", f"(not {lifted})"),))


def _added_nothing(schema: ActionSchema, names: str, covering: set[str] | None) -> InvariantFinding:
    if covering:
        other = sorted(covering)[0]
        who, key = f"({other} ...) makes it too", f"repeats {other}"
    else:
        who, key = "another action makes it too", "repeats others"
    message = (f"({schema.name} ...) adds nothing to the domain: in every reachable state of {names}, each change it "
               f"makes {who}, from the same state to the same state; write what its description asks that the "
               "other actions cannot do")
    return InvariantFinding(FindingKind.ADDS_NOTHING, Severity.WARNING, schema.name, message, key)


class _ByChange:
    """The other ground actions by an atom they add and by an atom they delete: those that can make a change."""

    def __init__(self, others: Sequence[GroundAction]):
        self.adding: dict[int, list[GroundAction]] = {}
        self.deleting: dict[int, list[GroundAction]] = {}
        for h in others:
            for i in _bits(h.add):
                self.adding.setdefault(i, []).append(h)
            for i in _bits(h.delete):
                self.deleting.setdefault(i, []).append(h)

    def making(self, state: int, after: int) -> list[GroundAction]:
        """The actions that could turn `state` into `after`: those adding (else deleting) one atom that changed."""
        gained = after & ~state
        if gained:
            return self.adding.get((gained & -gained).bit_length() - 1, [])
        lost = state & ~after
        return self.deleting.get((lost & -lost).bit_length() - 1, [])


class _Repeats:
    """Whether every change the action makes another action also makes (from the same state, to the same state),
    which other actions make all of them, and the first change another action also makes (an overlap). Gives up
    (claims nothing more) past its deadline."""

    def __init__(self) -> None:
        self.possible = True              # every change seen so far is another action's too
        self.seen = False
        self.covering: set[str] | None = None
        self.overlap: tuple[str, tuple[str, ...], GroundAction, GroundAction, int] | None = None
        self.late = False

    def check(self, others: _ByChange, state: int, after: int, deadline: float, *, problem: str,
              prefix: Callable[[], tuple[str, ...]], g: GroundAction, clean: bool) -> None:
        if self.late or (not self.possible and self.overlap is not None):
            return
        if time.perf_counter() > deadline:
            self.late, self.possible = True, False
            return
        same = [h for h in others.making(state, after) if h.applicable(state) and h.apply(state) == after]
        self.seen = True
        names = {h.key[0] for h in same}
        self.covering = names if self.covering is None else self.covering & names
        self.possible = self.possible and bool(names)
        # an overlap counts only where the action's objects are all different: a macro action degenerates into one
        # of its parts where two of its parameters meet (a transfer from a room to the same room is a drop)
        # and only in a state the other actions reach on their own (`clean`: no step of this action on the way to
        # it), not in one its own breach made (a transfer that leaves the robot in two rooms "drops" in the second)
        if same and self.overlap is None and clean and len(set(g.key[1:])) == len(g.key) - 1:
            self.overlap = (problem, prefix(), g, same[0], state)


def _overlapped(domain: Domain, schema: ActionSchema, found: tuple[str, tuple[str, ...], GroundAction, GroundAction,
                int], index_atoms: Sequence[tuple[str, ...]]) -> InvariantFinding:
    problem, prefix, g, h, before = found
    step, theirs = f"({' '.join(g.key)})", f"({' '.join(h.key)})"
    other = domain.action_map.get(h.key[0])
    asked = {str(lit) for lit in schema.precondition}
    apart: list[tuple[str, str]] = []     # (what the other requires, its opposite), over this action's parameters
    if other is not None:
        binding = {p.name: obj for p, obj in zip(other.parameters, h.key[1:])}
        for lit in other.precondition:
            lifted = lift_atom(str(lit.atom.rename(binding)), g.key, domain)
            text, opposite = (lifted, f"(not {lifted})") if lit.positive else (f"(not {lifted})", lifted)
            if text not in asked and opposite not in asked and "?" in lifted:
                apart.append((text, opposite))
    fix = f"add {apart[0][1]} to the precondition" if apart else None
    hint = (f"; {theirs} requires {apart[0][0]}, which it does not ask: if that tells them apart, {fix}" if apart
            else "; tell them apart in its precondition")
    message = (f"on problem {problem}, after {' '.join((*prefix, step))}: {step} changes the state exactly as "
               f"{theirs} does from it{hint}")
    state = tuple(sorted(show_atom(index_atoms[i]) for i in _bits(before)))
    return InvariantFinding(FindingKind.OVERLAPS, Severity.WARNING, schema.name, message, f"overlaps {h.key[0]}",
                            problem, prefix, step, (), None, fix, state,
                            (("add", "precondition", apart[0][1]),) if apart else ())


def _named_by_others(domain: Domain, mine: set[str]) -> set[str]:
    """The objects (constants) the actions not named in `mine` name in their preconditions and effects."""
    named: set[str] = set()
    for other in domain.actions:
        if other.name not in mine:
            for lit in (*other.precondition, *other.effect):
                named.update(x for x in lit.atom.args if not x.startswith("?"))
    return named


def _alike(problem: Problem, a: str, b: str) -> bool:
    """Swapping `a` and `b` leaves the problem's initial state and goal as they are."""
    swap = {a: b, b: a}
    if {atom.rename(swap) for atom in problem.init} != set(problem.init):
        return False
    goal = set(problem.goal)
    return {dataclasses.replace(lit, atom=lit.atom.rename(swap)) for lit in goal} == goal


def _treated_differently(domain: Domain, schema: ActionSchema, problem: Problem, grounder: Grounder,
                         live: dict[tuple[int, str], tuple[str, ...]], named: set[str]) -> InvariantFinding | None:
    """The first parameter and pair of objects alike in `problem` where the action applies with one (`live`: the
    plan prefix and step where it first did) and never with the other."""
    objects = {o.name: o.type for o in (*domain.constants, *problem.objects)}
    for i, param in enumerate(schema.parameters):
        values = [o for o in grounder.candidates(param.type) if o not in named]
        used = [o for o in values if (i, o) in live]
        unused = [o for o in values if (i, o) not in live]
        for a in used:
            for b in unused:
                if objects.get(a) != objects.get(b) or not _alike(problem, a, b):
                    continue
                *prefix, step = live[(i, a)]
                names = [o for o in (a, b) if any(o in lit.atom.args for lit in (*schema.precondition, *schema.effect))]
                fix = (f"write a parameter where it names {' and '.join(names)}" if names
                       else f"treat {a} and {b} alike")
                message = (f"on problem {problem.name}: with {param.name} = {a} it applies (after "
                           f"{' '.join((*prefix, step))}), with {param.name} = {b} in no reachable state, although "
                           f"{a} and {b} are alike in all the domain knows (swapping them leaves the initial state and "
                           f"the goal as they are, and no other action names either), so {fix}")
                return InvariantFinding(FindingKind.TREATS_ALIKE_DIFFERENTLY, Severity.WARNING, schema.name, message,
                                        f"treats alike differently {param.name}", problem.name, tuple(prefix), step,
                                        (), None, fix)
    return None


def _literal(text: str) -> Literal:
    """The literal of an edit, "(not (at ?obj ?room))" or "(at ?obj ?room)" (as the findings write them)."""
    words = text.replace("(", " ( ").replace(")", " ) ").split()
    if len(words) > 3 and words[1] == "not":
        return Literal(Atom(words[3], tuple(words[4:-2])), positive=False)
    return Literal(Atom(words[1], tuple(words[2:-1])))


def apply_edits(schema: ActionSchema, edits: Iterable[tuple[str, str, str]]) -> ActionSchema:
    """`schema` with a finding's edits made: literals added to or taken out of its precondition or effect."""
    sections = {"precondition": list(schema.precondition), "effect": list(schema.effect)}
    for op, section, text in edits:
        literal, target = _literal(text), sections[section]
        if op == "add" and literal not in target:
            target.append(literal)
        elif op == "remove":
            target[:] = [x for x in target if x != literal]
    return dataclasses.replace(schema, precondition=tuple(sections["precondition"]), effect=tuple(sections["effect"]))


def edited_by_findings(schema: ActionSchema, findings: Iterable[InvariantFinding]
                       ) -> tuple[ActionSchema, tuple[str, ...]] | None:
    """`schema` with the edits of the first finding that has some made, and those edits in words; None when no
    finding has an edit or it changes nothing. Uses no reference: the search judges the result as an answer."""
    for f in findings:
        if f.edits:
            edited = apply_edits(schema, f.edits)
            if edited != schema:
                return edited, tuple(f"{edit_in_words(edit)} ({f.kind.value})" for edit in f.edits)
    return None


def edit_in_words(edit: tuple[str, str, str]) -> str:
    """`add (not (at ?obj ?room)) to the effect`: one of a finding's edits as the search and the app say it."""
    op, section, literal = edit
    return f"{op} {literal} {'to' if op == 'add' else 'from'} the {section}"


def _bypass_candidates(domain: Domain, schema: ActionSchema, mine: set[str], problems: Sequence[Problem]
                       ) -> dict[str, str]:
    """The other actions that add atoms of a predicate the action adds too: name -> that predicate (a goal's first)."""
    goals = {lit.atom.predicate for problem in problems for lit in problem.goal if lit.positive}
    mine = {lit.atom.predicate for lit in schema.effect if lit.positive}
    out: dict[str, str] = {}
    for other in domain.actions:
        if other.name not in mine:
            shared = sorted(mine & {lit.atom.predicate for lit in other.effect if lit.positive},
                            key=lambda name: (name not in goals, name))
            if shared:
                out[other.name] = shared[0]
    return out


def _a_macro(samples: Sequence[tuple[list[GroundAction], object, int, int]], time_limit_s: float) -> bool:
    """Whether the other actions can make each sampled change (state -> after) in some steps: the action is then a
    macro of theirs. Not when they cannot make one (exploration complete); a change not decided in time claims
    nothing (a macro, as far as is known)."""
    for rest, index, state, after in samples:
        everything = (1 << max(state.bit_length(), after.bit_length(), len(index.atoms))) - 1
        space, reached = explore(rest, index, state, budget=STATE_BUDGET, deadline=time.perf_counter() + time_limit_s,
                                 goal=(after, everything & ~after))
        if reached is None and space.complete:
            return False
    return True


def _bypassed(schema: ActionSchema, other: str, predicate: str, names: str) -> InvariantFinding:
    adds = [str(lit) for lit in schema.effect if lit.positive and lit.atom.predicate == predicate]
    fix = f"take {adds[0]} out of the effect" if adds else None
    message = (f"with ({schema.name} ...) in place, no problem of {names} needs ({other} ...) any more: every goal is "
               f"reached without it, since ({schema.name} ...) adds ({predicate} ...), which ({other} ...) adds; "
               f"if it is not meant to reach that goal itself, {fix or 'take that add out of the effect'}")
    return InvariantFinding(FindingKind.BYPASSES, Severity.WARNING, schema.name, message, f"bypasses {other}",
                            fix=fix, edits=(("remove", "effect", adds[0]),) if adds else ())


def _tokens(domain: Domain, keeper: DomainInvariants, problems: Sequence[Problem]) -> list[Invariant]:
    """The fixed unary predicates (no other action changes them, no goal names them) of which every problem starts
    with exactly one atom: a token, such as track-building's (agent-at ?loc) while move-agent is judged. They bind
    only an action that requires the token's atom and then leaves two or none (it moves the token): a new action
    may rightly add to a unary predicate that starts with one atom by chance (build-track's has-track)."""
    out = []
    for p in domain.predicates:
        if p.arity == 1 and p.name in keeper.fixed and problems and all(
                sum(1 for atom in problem.init if atom.predicate == p.name) == 1 for problem in problems):
            out.append(Invariant((Part(p.name, (None,)),), 0, (), True))
    return out


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def judge_action(domain: Domain, problems: Sequence[Problem], action: str, candidate: ActionSchema | None = None,
                 *, dismissed: Iterable[str] = (), budget: int = STATE_BUDGET,
                 time_limit_s: float = TIME_LIMIT_S) -> InvariantReport:
    """The invariant findings on `candidate` in place of `domain`'s action `action` (None: the action as written).

    `dismissed` holds the keys the author dismissed for this action: those findings are kept apart. Nothing of
    the domain's own `action` is used when a candidate is given, so `domain` may also lack it (a new action, or
    a reference hidden from a blind judge): the findings are the same.
    """
    action = action.lower()
    schema = candidate if candidate is not None else domain.action(action)
    if candidate is None:
        placed = domain
    elif action in domain.action_map:
        placed = domain.with_action(schema, replacing=action)
    else:                                  # a new action, or one hidden from the judge (blind): added
        placed = dataclasses.replace(domain, actions=(*domain.actions, dataclasses.replace(schema, name=action)))
    keeper = invariants_without(domain, tuple(problems), action)
    binding = tuple(inv.describe(domain) for inv in keeper.invariants if inv.exactly_one)
    found: list[InvariantFinding] = []
    broken: set[int] = set()
    complete, applied, changed = True, False, False
    ever_true = 0
    never_true: set[str] = set()
    notes: list[str] = []
    relations = {p.name for p in domain.predicates if p.name in keeper.fixed and p.arity >= 2}
    tokens = _tokens(domain, keeper, problems)
    binding += tuple(inv.describe(domain) for inv in tokens)
    moved: set[str] = set()
    fixed_found = undo_found = False
    repeats = _Repeats()
    overlap: InvariantFinding | None = None
    unlike: InvariantFinding | None = None
    mine_names = {action, schema.name}        # the judged action's names: every other action is "another"
    named = _named_by_others(placed, mine_names)
    bypass = _bypass_candidates(placed, schema, mine_names, problems)
    needed: set[str] = set()                 # of `bypass`: some problem cannot reach its goal without it
    samples: list[tuple[list[GroundAction], object, int, int]] = []   # changes it makes, to tell a macro by
    for problem in problems:
        try:
            grounder = Grounder(placed, problem, placed.fluent_predicates)
            actions = grounder.ground_domain(placed)
            mine = grounder.ground(schema)
        except GroundingLimit as exc:
            complete = False
            notes.append(f"{problem.name}: {exc}")
            continue
        space, _ = explore(actions, grounder.index, grounder.init_state(), budget=budget,
                           deadline=time.perf_counter() + time_limit_s)
        if not space.complete:
            complete = False
            notes.append(f"{problem.name}: {space.stopped}")
        for other in bypass.keys() - needed:
            if not complete:
                break
            goal = goal_masks(grounder.index, problem.goal)
            without, reached = explore([a for a in actions if a.key[0] != other], grounder.index,
                                       grounder.init_state(), budget=budget,
                                       deadline=time.perf_counter() + time_limit_s, goal=goal)
            if reached is None:
                if without.complete:
                    needed.add(other)
                else:
                    complete = False
                    notes.append(f"{problem.name} without {other}: {without.stopped}")
        groups = _Groups(placed, grounder, keeper)
        fixed = grounder.index.mask(a for a in grounder.index.atoms if a[0] in relations) if relations else 0
        lasting = (grounder.index.mask(a for a in grounder.index.atoms if a[0] in keeper.lasting)
                   if keeper.lasting else 0)
        watches = {g.key: groups.watches(g) for g in mine}
        rest = [h for h in actions if h.key[0] not in mine_names]
        sampled = 0
        others = _ByChange(rest)
        deadline = time.perf_counter() + time_limit_s
        token_masks = [(inv, grounder.index.mask(a for a in grounder.index.atoms if a[0] == inv.parts[0].predicate))
                       for inv in tokens]
        ever_true = 0
        live: dict[tuple[int, str], tuple[str, ...]] = {}     # (parameter, object) -> where it first applied
        own = tuple(f"({name} " for name in mine_names)
        clean = [True] * len(space.states)       # reached, on the recorded path, without a step of this action
        for n in range(1, len(space.states)):
            clean[n] = clean[space.parent[n]] and not space.via[n].startswith(own)
        for number, state in enumerate(space.states):
            ever_true |= state
            for g in mine:
                if not g.applicable(state):
                    continue
                applied = True
                if unlike is None:
                    for i, obj in enumerate(g.key[1:]):
                        if (i, obj) not in live:
                            live[(i, obj)] = (*space.prefix(number), f"({' '.join(g.key)})")
                after = g.apply(state)
                if after != state:
                    changed = True
                    # sampled where no other action makes the same change in one step: those tell a macro
                    if bypass and sampled < SAMPLED_CHANGES and not any(
                            h.applicable(state) and h.apply(state) == after for h in others.making(state, after)):
                        sampled += 1
                        samples.append((rest, grounder.index, state, after))
                    repeats.check(others, state, after, deadline, problem=problem.name, g=g,
                                  prefix=lambda n=number, sp=space: sp.prefix(n), clean=clean[number])
                    if (after ^ state) & fixed and not fixed_found:
                        fixed_found = True
                        found.append(_changed_fixed(placed, schema, problem.name, space.prefix(number), g, state,
                                                    after, fixed, grounder.index.atoms))
                    lost = state & ~after & lasting & ~g.pre
                    if lost and not undo_found:
                        undo_found = True
                        found.append(_undid_goal(placed, schema, problem.name, space.prefix(number), g, state, lost,
                                                 grounder.index.atoms))
                for inv, mask in token_masks:
                    # the action takes the token from where it requires it: exactly one must hold after
                    if g.pre & mask and inv.key not in moved and (state & mask).bit_count() == 1 != (after & mask).bit_count():
                        moved.add(inv.key)
                        w = _Watch(-1, (), mask, (after & mask).bit_count() > 1)
                        found.append(_broke(placed, schema, inv, w, problem.name, space.prefix(number), g, state,
                                            after, grounder.index.atoms))
                for w in watches[g.key]:
                    if w.inv in broken:
                        continue
                    n, before = (after & w.mask).bit_count(), (state & w.mask).bit_count()
                    # the group held before this step (so this step, not an earlier one, breaks it) and not after
                    if (w.over and n > 1 and before <= 1) or (not w.over and n == 0 and before == 1):
                        broken.add(w.inv)
                        found.append(_broke(placed, schema, keeper.invariants[w.inv], w, problem.name,
                                            space.prefix(number), g, state, after, grounder.index.atoms))
        if unlike is None and space.complete:
            unlike = _treated_differently(placed, schema, problem, grounder, live, named)
        if repeats.overlap is not None and overlap is None:
            overlap = _overlapped(placed, schema, repeats.overlap, grounder.index.atoms)
        for g in mine:
            for i in _bits(g.pre & ~ever_true):
                never_true.add(lift_atom(show_atom(grounder.index.atoms[i]), g.key, placed))
    names = ", ".join(p.name for p in problems)
    if complete and problems and not applied:
        why = (f"; its precondition {' '.join(sorted(never_true)[:2])} never holds" if never_true and len(never_true) <= 2
               else "; its preconditions never hold together")
        # the one precondition literal that never holds, where there is one, taken out: the search judges the result
        drop = (("remove", "precondition", next(iter(never_true))),) if len(never_true) == 1 else ()
        found.append(InvariantFinding(
            FindingKind.NEVER_APPLIES, Severity.ERROR, schema.name,
            f"({schema.name} ...) applies in no reachable state of {names}{why}", "never-applies", edits=drop))
    elif complete and problems and not changed:
        found.append(InvariantFinding(
            FindingKind.CHANGES_NOTHING, Severity.ERROR, schema.name,
            f"({schema.name} ...) changes nothing: in every reachable state of {names} where it applies, "
            "the state after it is the state before (its effect only adds what already holds and deletes what "
            "does not)", "changes-nothing"))
    elif complete and problems and repeats.possible and repeats.seen:
        found.append(_added_nothing(schema, names, repeats.covering))
    elif overlap is not None:
        found.append(overlap)
    if unlike is not None and applied:
        found.append(unlike)
    # a bypass is said only of an answer with no other finding: a breach it makes is the thing to fix first
    if (complete and problems and applied and not found and bypass.keys() - needed
            and not _a_macro(samples, time_limit_s)):
        other = sorted(bypass.keys() - needed)[0]
        found.append(_bypassed(schema, other, bypass[other], names))
    keys = set(dismissed)
    shown = tuple(f for f in found if f.key not in keys)
    apart = tuple(f for f in found if f.key in keys)
    return InvariantReport(schema.name, shown, apart, binding, complete, tuple(notes))
