"""Proven equivalence on the problems (METHOD 6a): compare two domains state by state.

`prove_equivalence` is the one entry point, for one replaced action (`actions=[name]`) or for
whole domains (`actions=None`: every action of either domain is compared at once, and the
first reachable state where ANY action differs is reported; its `state.step` names the action
to blame). In order:
1. exact shortcuts (`shortcuts.py`): equal up to renaming, order, duplicates and no-op parts;
2. per problem, the reference's reachable states (breadth-first, cached on disk), and at each
   state every grounding of the compared actions in both domains: the shallowest difference
   is a counterexample, checked by the validator in both domains;
3. where the state budget or the clock stops the exploration: the witness planning task
   (`witness.py`) solved by the Fast Downward search inside kstar-planner;
4. on a difference, NoPlan is decided exactly: is each problem's goal reachable in D'?
A proof that cannot finish comes back with method HEURISTIC, `proven` False, no subclass and
the reason; the caller (the Evaluator) then decides by the paper's plans.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import Domain
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.counterexample import ProofError, build_counterexample, subclass_of
from domain_drafter.planning.fd_search import FastDownwardSearch
from domain_drafter.planning.grounding import AtomIndex, Grounder, GroundingLimit
from domain_drafter.planning.kstar import PlannerStatus
from domain_drafter.planning.noplan import unreachable_goal
from domain_drafter.planning.pair_grounding import every_pair, ground_pairs, possible_atoms
from domain_drafter.planning.proof_types import (
    AgreementScore,
    ProblemScore,
    ProofCounterexample,
    ProofMethod,
    ProofReport,
)
from domain_drafter.planning.reference_plan import answer_follows_reference
from domain_drafter.planning.shortcuts import shortcut_reason
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.state_space import (
    ActionPairs,
    ReachableStates,
    compare,
    compared_names,
    explore,
)
from domain_drafter.planning.witness import WITNESS_PREFIX, witness_task

__all__ = ["ProofError", "ProofSettings", "prove_equivalence"]


@dataclass(frozen=True)
class ProofSettings:
    state_budget: int = 100_000     # reachable states explored per problem before the planner route
    time_limit_s: float = 20.0      # the whole proof: exploration, comparison and witness planning
    grounding_limit: int = 1_000_000
    shortcuts: bool = True          # off: explore even where a shortcut would decide (tests, measurements)
    score: bool = True              # count the agreement score (METHOD 6b) over every explored problem
    # off: every binding grounded (untyped parameters over every object), and NoPlan decided by searching the
    # answer's own states; the path before the reductions of `pair_grounding.py`, the baseline of tests/perf
    reduce: bool = True


@dataclass
class _Problem:
    """What the exploration of one problem left for the later stages."""

    problem: ProblemFile
    index: AtomIndex
    grounder: Grounder
    space: ReachableStates
    pairs: ActionPairs
    stopped: str = ""


@dataclass
class _Run:
    reference: Domain
    generated: Domain
    settings: ProofSettings
    deadline: float
    states: StateCache | None
    search: FastDownwardSearch | None
    task: TaskState | None
    timings: dict = field(default_factory=dict)
    explored: dict[str, _Problem] = field(default_factory=dict)   # by problem name

    def left_s(self) -> float:
        return max(0.1, self.deadline - time.perf_counter())


def prove_equivalence(reference: Domain, generated: Domain, problems: Sequence[ProblemFile], *,
                      actions: Sequence[str] | None, reference_text: str | None = None,
                      settings: ProofSettings | None = None, states: StateCache | None = None,
                      search: FastDownwardSearch | None = None, task: TaskState | None = None) -> ProofReport:
    """Decide whether `generated` has the same reachable transition system as `reference` on `problems`.

    `actions` names the actions that may differ (the rest are the same in both domains), or None
    to compare every action of both domains. Raises ProofError if a counterexample fails its check
    (a bug), Cancelled if `task` is cancelled.
    """
    settings = settings or ProofSettings()
    started = time.perf_counter()
    names = compared_names(reference, generated, actions)
    count = len(problems)
    reason = shortcut_reason(reference, generated, names, problems) if settings.shortcuts else None
    if reason is not None:
        return ProofReport(Subclass.EQUIVALENT, ProofMethod.SHORTCUT, True, 0, count, reason=reason,
                           timings={"shortcut_s": time.perf_counter() - started},
                           score=AgreementScore(shortcut=True))
    run = _Run(reference, generated, settings, started + settings.time_limit_s, states, search, task)
    reference_text = reference_text if reference_text is not None else reference.to_pddl()
    compared = 0
    pending: list[_Problem] = []
    scores: list[ProblemScore] = []
    found: tuple[ProofCounterexample, int] | None = None    # the first difference, and the states compared to it
    for number, problem in enumerate(problems):
        if found is not None and not settings.score:
            break              # the verdict is known and no score is asked for
        if task is not None:
            task.check_cancelled()
            task.report(number, count + 1, f"exploring the reachable states of {problem.name}")
        try:
            explored = _explore(run, problem, reference_text, names)
            run.explored[problem.name] = explored
        except GroundingLimit as err:
            if found is not None:
                break          # the verdict is known; the score covers the problems before this one
            return _unproven(run, count, compared, f"on {problem.name}, {err}", started, scores)
        space = explored.space
        if found is None:
            t0 = time.perf_counter()
            difference, checked = explored.pairs.first_difference(space, deadline=run.deadline)
            run.timings["compare_s"] = run.timings.get("compare_s", 0.0) + time.perf_counter() - t0
            if difference is not None:
                cx = build_counterexample(reference, generated, problem, explored.index, space.prefix(difference.state),
                                          space.states[difference.state], difference)
                found = (cx, compared + checked)
            else:
                compared += checked
                stopped = "" if space.complete else space.stopped or "time limit reached"
                if checked < len(space.states):   # the clock stopped the comparison
                    stopped = "time limit reached"
                if stopped and explored.pairs.pairs:
                    explored.stopped = stopped
                    pending.append(explored)
        if settings.score:
            scores.append(_score(run, explored))
    if found is not None:
        return _different(run, problems, found[0], found[1], ProofMethod.EXPLORATION, started, scores)
    if not pending:
        return ProofReport(Subclass.EQUIVALENT, ProofMethod.EXPLORATION, True, compared, count,
                           timings=_finish(run, started), score=_solvable_all(scores, settings))
    return _planner_route(run, problems, pending, compared, started, scores)


def _score(run: _Run, explored: _Problem) -> ProblemScore:
    """METHOD 6b on one problem: every (state, grounding) pair over the explored states."""
    t0 = time.perf_counter()
    space = explored.space
    counted, differing = explored.pairs.count_differences(space, deadline=run.deadline)
    run.timings["score_s"] = run.timings.get("score_s", 0.0) + time.perf_counter() - t0
    groundings = explored.pairs.groundings
    complete = space.complete and counted == len(space.states)
    return ProblemScore(explored.problem.name, counted, groundings, counted * groundings - differing, complete)


def _solvable_all(scores: list[ProblemScore], settings: ProofSettings) -> AgreementScore | None:
    """Equivalent: the answer's domain solves every problem the reference solves (all of them)."""
    if not settings.score:
        return None
    return AgreementScore(tuple(dataclasses.replace(p, solvable=True) for p in scores))


def _explore(run: _Run, problem: ProblemFile, reference_text: str, names: list[str]) -> _Problem:
    """The reference's reachable states of `problem` (from the cache, or explored now) and the pairs to compare."""
    settings = run.settings
    key = StateCache.key(reference_text, problem.text)
    cached = run.states.get(key, settings.state_budget) if run.states is not None else None
    fluents = run.reference.fluent_predicates
    index = AtomIndex(cached.atoms) if cached is not None else None
    grounder = Grounder(run.reference, problem.problem, fluents, index, settings.grounding_limit,
                        infer_types=settings.reduce)
    t0 = time.perf_counter()
    actions = None
    if cached is None:
        actions = grounder.ground_domain(run.reference)
        space, _ = explore(actions, grounder.index, grounder.init_state(), budget=settings.state_budget,
                           deadline=run.deadline)
        if run.states is not None:
            run.states.put(key, space)
    else:
        space = cached
    t1 = time.perf_counter()
    if settings.reduce:
        possible = possible_atoms(space, lambda: actions or grounder.ground_domain(run.reference), grounder.index,
                                  grounder.init_state())
        pairs = ground_pairs(grounder, run.reference, run.generated, names, possible)
    else:
        pairs = every_pair(grounder, run.reference, run.generated, names)
    run.timings["explore_s"] = run.timings.get("explore_s", 0.0) + t1 - t0
    run.timings["ground_s"] = run.timings.get("ground_s", 0.0) + time.perf_counter() - t1
    return _Problem(problem, grounder.index, grounder, space, pairs)


def _planner_route(run: _Run, problems: Sequence[ProblemFile], pending: list[_Problem], compared: int,
                   started: float, scores: list[ProblemScore]) -> ProofReport:
    """Ask the witness planner about every problem the exploration could not finish."""
    count = len(problems)
    notes = []
    for item in pending:
        name = item.problem.name
        stopped = f"{item.stopped} after {len(item.space.states)} states on {name}"
        if run.task is not None:
            run.task.check_cancelled()
            run.task.report(count, count + 1, f"witness planner on {name}")
        t0 = time.perf_counter()
        if t0 >= run.deadline:      # the proof's whole time limit is spent: no planner run on borrowed time
            return _unproven(run, count, compared, f"{stopped}; the witness planner did not finish: the proof's "
                             f"time limit ({run.settings.time_limit_s:g} s) was spent before it started",
                             started, scores)
        witness = witness_task(run.reference, item.problem, item.index, item.pairs.pairs)
        search = run.search or FastDownwardSearch()
        planner = FastDownwardSearch(time_limit_s=run.left_s(), memory_limit_mb=search.memory_limit_mb,
                                     search=search.search, python=search.python)
        result = planner.plan(witness.domain_text, witness.problem_text, task=run.task, label=f"witness/{name}")
        run.timings["witness_s"] = run.timings.get("witness_s", 0.0) + time.perf_counter() - t0
        if result.status is PlannerStatus.SOLVED:
            cx = _witnessed(run, item, result.plans[0], witness.pair_of)
            return _different(run, problems, cx, compared, ProofMethod.PLANNER, started, scores)
        if result.status is PlannerStatus.UNSOLVABLE:
            notes.append(f"past the {stopped}, the witness planner proved that no reachable state differs")
            continue
        if result.status is PlannerStatus.CANCELLED and run.task is not None:
            run.task.check_cancelled()
        return _unproven(run, count, compared, f"{stopped}; the witness planner did not finish: {result.message}",
                         started, scores)
    return ProofReport(Subclass.EQUIVALENT, ProofMethod.PLANNER, True, compared, count,
                       reason=f"{compared} reachable states of {count} problem{'' if count == 1 else 's'} compared "
                              "one by one; " + "; ".join(notes), timings=_finish(run, started),
                       score=_equivalent_past_budget(scores, run.settings))


def _witnessed(run: _Run, item: _Problem, plan: Sequence[Sequence[str]], pair_of: dict[str, int]) -> ProofCounterexample:
    """Replay the witness plan's prefix in D and rebuild the difference it reached."""
    steps = [tuple(s) for s in plan]
    last = next((i for i, s in enumerate(steps) if s[0].startswith(WITNESS_PREFIX)), None)
    if last is None:
        raise ProofError(f"the witness plan on {item.problem.name} has no witness step: {steps}")
    by_key = {g.key: g for g in item.grounder.ground_domain(run.reference)}
    state = item.grounder.init_state()
    for step in steps[:last]:
        g = by_key.get(step)
        if g is None or not g.applicable(state):
            raise ProofError(f"the witness plan's step ({' '.join(step)}) on {item.problem.name} is not applicable "
                             "in the reference domain")
        state = g.apply(state)
    pair = item.pairs.pairs[pair_of[steps[last][0]]]
    difference = compare(pair, -1, state)
    if difference is None:
        raise ProofError(f"the witness planner reached a state of {item.problem.name} where "
                         f"({' '.join(pair.key)}) does not differ")
    prefix = tuple(f"({' '.join(s)})" for s in steps[:last])
    return build_counterexample(run.reference, run.generated, item.problem, item.index, prefix, state, difference)


def _equivalent_past_budget(scores: list[ProblemScore], settings: ProofSettings) -> AgreementScore | None:
    """Proven Equivalent by the planner past the budget: no state differs, explored or not."""
    if not settings.score:
        return None
    return AgreementScore(tuple(dataclasses.replace(p, agreeing=p.pairs, solvable=True) for p in scores))


def _different(run: _Run, problems: Sequence[ProblemFile], cx: ProofCounterexample, compared: int,
               method: ProofMethod, started: float, scores: list[ProblemScore]) -> ProofReport:
    """A proven difference; NoPlan wins if some problem's goal is unreachable in D' (METHOD 5 order)."""
    t0 = time.perf_counter()
    reached = {p.name for p in problems if run.settings.reduce and answer_follows_reference(
        run.reference, run.generated, p, _space_of(run, p), deadline=run.deadline, search=run.search, task=run.task)}
    rest = [p for p in problems if p.name not in reached]
    verdict = unreachable_goal(run.generated, rest, budget=run.settings.state_budget, deadline=run.deadline,
                               search=run.search, task=run.task, every=run.settings.score)
    run.timings["noplan_s"] = time.perf_counter() - t0
    timings = _finish(run, started)
    solvable: dict[str, bool | None] = {**dict.fromkeys(reached, True),
                                        **dict(zip((p.name for p in rest), verdict.solvable))}
    score = AgreementScore(tuple(dataclasses.replace(p, solvable=solvable.get(p.problem)) for p in scores)) \
        if run.settings.score else None
    if verdict.problem is not None:
        return ProofReport(Subclass.NO_PLAN, method, True, compared, len(problems), cx, verdict.reason,
                           timings, noplan_problem=verdict.problem, score=score)
    return ProofReport(subclass_of(cx), method, True, compared, len(problems), cx, verdict.reason, timings,
                       score=score)


def _space_of(run: _Run, problem: ProblemFile) -> tuple[ReachableStates, AtomIndex] | None:
    explored = run.explored.get(problem.name)
    return (explored.space, explored.index) if explored is not None else None


def _unproven(run: _Run, count: int, compared: int, reason: str, started: float,
              scores: list[ProblemScore]) -> ProofReport:
    score = AgreementScore(tuple(scores)) if run.settings.score and scores else None
    return ProofReport(None, ProofMethod.HEURISTIC, False, compared, count, reason=reason,
                       timings=_finish(run, started), score=score)


def _finish(run: _Run, started: float) -> dict:
    return {**run.timings, "proof_s": time.perf_counter() - started}
