"""What a domain cannot do on its problems, as facts for corrective feedback (no verdict here).

`reachability` looks at ONE domain (the answer's D', with no reference in sight): per problem,
which goal atoms no reachable state makes true, and which actions never become applicable,
with the precondition atom that blocks them. Exact where the state exploration finishes; where
it stops at its budget, the delete relaxation decides instead (still sound: an atom the relaxed
problem cannot reach is unreachable). `fact_landmarks` looks at the reference: atoms every plan
of a problem must make true (relaxed-planning-graph landmarks: without the actions that add the
atom, the relaxed goal is out of reach), and `lost_landmarks` names those D' can no longer reach.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.model import Domain
from domain_drafter.planning.grounding import GroundAction, Grounder, GroundingLimit, bits, lift_atom, show_atom
from domain_drafter.planning.state_space import explore, goal_masks

DIAGNOSIS_BUDGET = 20_000        # states explored per problem before the relaxation decides
DIAGNOSIS_TIME_S = 2.0


@dataclass(frozen=True)
class Blocked:
    """An action that never becomes applicable on a problem, and the precondition that stops it."""

    action: str
    precondition: str            # lifted over the action's parameters: "(holding ?x)", "(not (clear ?y))"
    static: bool = False         # no grounding passes its static conditions at all


@dataclass(frozen=True)
class Reachability:
    """One domain on one problem: what no reachable state has."""

    problem: str
    exact: bool                  # the exploration finished (else the delete relaxation decided)
    states: int
    goal_reached: bool | None    # some reachable state satisfies the goal (None: not decided)
    unreached_goal: tuple[str, ...] = ()   # positive goal atoms no reachable state makes true
    blocked: tuple[Blocked, ...] = ()
    why: tuple[str, ...] = ()    # per unreached goal atom: which step would make it true, and what stops that step
    reached: frozenset[tuple[str, ...]] = frozenset()   # atoms some reachable state makes true (init included)


def _relaxed(actions: Sequence[GroundAction], init: int, skip_add: int = 0) -> int:
    """Atoms reachable under the delete relaxation (negative preconditions ignored); actions adding
    any atom of `skip_add` are left out."""
    reached = init
    todo = [g for g in actions if not g.add & skip_add]
    changed = True
    while changed:
        changed = False
        rest = []
        for g in todo:
            if g.pre & ~reached == 0:
                if g.add & ~reached:
                    reached |= g.add
                    changed = True
            else:
                rest.append(g)
        todo = rest
    return reached


_KEPT = 64                      # reachability results kept (the feedback and the search's order ask for the same)
_kept: dict[tuple, tuple[Reachability, ...]] = {}
_kept_lock = threading.Lock()


def reachability(domain: Domain, problems: Sequence[ProblemFile], *, budget: int = DIAGNOSIS_BUDGET,
                 time_limit_s: float = DIAGNOSIS_TIME_S) -> tuple[Reachability, ...]:
    """Per problem, what `domain` can never do there (see the module's docstring). The last results are kept,
    by the domain's and the problems' text."""
    key = (domain.to_pddl(), tuple(p.text for p in problems), budget, time_limit_s)
    with _kept_lock:
        kept = _kept.get(key)
    if kept is None:
        kept = _reachability(domain, problems, budget, time_limit_s)
        with _kept_lock:
            if len(_kept) >= _KEPT:
                del _kept[next(iter(_kept))]
            _kept[key] = kept
    return kept


def _reachability(domain: Domain, problems: Sequence[ProblemFile], budget: int,
                  time_limit_s: float) -> tuple[Reachability, ...]:
    out = []
    for problem in problems:
        try:
            grounder = Grounder(domain, problem.problem, domain.fluent_predicates)
            actions = grounder.ground_domain(domain)
        except GroundingLimit:
            out.append(Reachability(problem.name, False, 0, None))
            continue
        index = grounder.index
        init = grounder.init_state()
        goal = goal_masks(index, problem.problem.goal)
        space, _ = explore(actions, index, init, budget=budget, deadline=time.perf_counter() + time_limit_s)
        if space.complete:
            ever, always = 0, -1
            for s in space.states:
                ever |= s
                always &= s
            goal_reached = any(s & goal[0] == goal[0] and not s & goal[1] for s in space.states)
        else:
            ever, always = _relaxed(actions, init), 0
            goal_reached = None if goal[0] & ~ever == 0 else False
        unreached = tuple(show_atom(a) for a in index.decode(goal[0] & ~ever))
        why = tuple(w for w in (_why(actions, index, bit, ever) for bit in list(bits(goal[0] & ~ever))[:2]) if w)
        blocked = []
        for schema in domain.actions:
            mine = [g for g in actions if g.key[0] == schema.name]
            if not mine:
                if schema.parameters or schema.precondition:
                    blocked.append(Blocked(schema.name, "its static conditions", static=True))
                continue
            reasons: Counter[str] = Counter()
            for g in mine:
                missing = g.pre & ~ever
                if missing:
                    atom = show_atom(index.decode(missing & -missing)[0])
                    reasons[lift_atom(atom, g.key, domain)] += 1
                elif space.complete and g.neg & always:
                    atom = show_atom(index.decode((g.neg & always) & -(g.neg & always))[0])
                    reasons[lift_atom(f"(not {atom})", g.key, domain)] += 1
                elif space.complete and any(g.applicable(s) for s in space.states):
                    break
                elif not space.complete:
                    break                       # not shown blocked: say nothing
                else:
                    together = " ".join(str(l) for l in schema.precondition)
                    reasons[f"together: {together}"] += 1
            else:
                blocked.append(Blocked(schema.name, reasons.most_common(1)[0][0]))
        reached = frozenset(index.decode(ever))
        out.append(Reachability(problem.name, space.complete, len(space.states), goal_reached, unreached,
                                tuple(blocked), why, reached))
    return tuple(out)


def _why(actions: Sequence[GroundAction], index, atom: int, ever: int) -> str:
    """Why `atom` never holds: no step makes it true, or the steps that would never apply (and what stops them)."""
    shown = show_atom(index.atoms[atom])
    achievers = [g for g in actions if g.add >> atom & 1]
    if not achievers:
        return f"no action makes {shown} true"
    blocked = [(g, g.pre & ~ever) for g in achievers if g.pre & ~ever]
    if not blocked:
        return ""        # the steps do apply, only never on the way to this goal: nothing short to say
    g, missing = blocked[0]
    stopper = show_atom(index.decode(missing & -missing)[0])
    steps = " or ".join(f"({' '.join(a.key)})" for a in achievers[:2]) + (" ..." if len(achievers) > 2 else "")
    return f"{shown} needs {steps}, and ({' '.join(g.key)}) never applies: its precondition {stopper} never holds"


@lru_cache(maxsize=256)
def _landmarks(reference_text: str, problem_text: str) -> tuple[tuple[str, ...], ...]:
    from domain_drafter.core.reader import read_domain, read_problem

    domain, _ = read_domain(reference_text)
    problem = read_problem(problem_text)
    grounder = Grounder(domain, problem, domain.fluent_predicates)
    actions = grounder.ground_domain(domain)
    index = grounder.index
    init = grounder.init_state()
    goal = goal_masks(index, problem.goal)[0]
    reached = _relaxed(actions, init)
    if goal & ~reached:
        return ()                       # the reference cannot reach this goal: no landmarks to speak of
    found = []
    for atom in bits(reached & ~init & ~goal):
        bit = 1 << atom
        if goal & ~_relaxed(actions, init, skip_add=bit):
            found.append(index.atoms[atom])
    return tuple(found)


def fact_landmarks(reference: Domain, problem: ProblemFile, reference_text: str | None = None) -> tuple[tuple[str, ...], ...]:
    """Atoms (not in init, not goal atoms) that every plan of `problem` in `reference` makes true."""
    try:
        return _landmarks(reference_text if reference_text is not None else reference.to_pddl(), problem.text)
    except GroundingLimit:
        return ()


def lost_landmarks(reference: Domain, problems: Sequence[ProblemFile], answer_reach: Sequence[Reachability], *,
                   reference_text: str | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """Per problem: the reference's landmarks that no reachable state of D' has (most telling where D' misses
    its goal, but a D' that solves a problem another way may lose some too)."""
    out = []
    for problem, reach in zip(problems, answer_reach):
        if not reach.reached:
            continue
        lost = tuple(show_atom(a) for a in fact_landmarks(reference, problem, reference_text)
                     if a not in reach.reached)
        if lost:
            out.append((problem.name, lost))
    return out
