"""NoPlan decided exactly: is some problem's goal unreachable in the generated domain?

Breadth-first over the states reachable in D' (its own static predicates), stopping at the
first goal state. Where the state budget or the clock stops that search, the Fast Downward
search inside kstar-planner answers instead (a plan, or a proof that there is none).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.model import Domain
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.fd_search import GOAL_SEARCH, FastDownwardSearch
from domain_drafter.planning.grounding import Grounder, GroundingLimit
from domain_drafter.planning.kstar import PlannerStatus
from domain_drafter.planning.state_space import explore, goal_masks
from domain_drafter.planning.witness import goal_task


@dataclass(frozen=True)
class GoalVerdict:
    problem: str | None     # the first problem whose goal D' cannot reach, or None
    reason: str = ""        # how that was shown, or what stayed open
    solvable: tuple[bool | None, ...] = ()   # per problem in order, as far as decided (None: open or not asked)


def unreachable_goal(generated: Domain, problems: Sequence[ProblemFile], *, budget: int, deadline: float,
                     search: FastDownwardSearch | None = None, task: TaskState | None = None,
                     every: bool = False) -> GoalVerdict:
    """The first problem (in order) whose goal is unreachable in `generated`, with the reason.

    `every`: decide every problem (for the score's count of solvable problems), not only up to the first.
    """
    open_notes: list[str] = []
    solvable: list[bool | None] = []
    first: GoalVerdict | None = None
    for problem in problems:
        if first is not None and not every:
            break
        verdict = _one_goal(generated, problem, budget, deadline, search, task, open_notes)
        solvable.append(None if verdict is None else verdict.problem is None)
        if verdict is not None and verdict.problem is not None and first is None:
            first = verdict
    solvable += [None] * (len(problems) - len(solvable))
    if first is not None:
        return GoalVerdict(first.problem, first.reason, tuple(solvable))
    return GoalVerdict(None, "; ".join(open_notes), tuple(solvable))


def _one_goal(generated: Domain, problem: ProblemFile, budget: int, deadline: float,
              search: FastDownwardSearch | None, task: TaskState | None, open_notes: list[str]) -> GoalVerdict | None:
    """Reached (problem None), unreachable (problem named), or None when neither could be shown."""
    if task is not None:
        task.check_cancelled()
    stopped = ""
    try:
        grounder = Grounder(generated, problem.problem, generated.fluent_predicates)
        actions = grounder.ground_domain(generated)
        space, found = explore(actions, grounder.index, grounder.init_state(), budget=budget,
                               deadline=deadline, goal=goal_masks(grounder.index, problem.problem.goal))
        if found is not None:
            return GoalVerdict(None)
        if space.complete:
            return GoalVerdict(problem.name, f"all {len(space.states)} states reachable in the generated "
                                             "domain explored, none reaches the goal")
        stopped = f"{space.stopped} after {len(space.states)} states"
    except GroundingLimit as err:
        stopped = str(err)
    base = search or FastDownwardSearch()
    planner = FastDownwardSearch(time_limit_s=max(1.0, deadline - time.perf_counter()),
                                 memory_limit_mb=base.memory_limit_mb, search=GOAL_SEARCH, python=base.python)
    domain_text, problem_text = goal_task(generated, problem)
    result = planner.plan(domain_text, problem_text, task=task, label=f"generated/{problem.name}")
    if result.status is PlannerStatus.UNSOLVABLE:
        return GoalVerdict(problem.name, f"exploration stopped ({stopped}); {result.message}")
    if result.status is PlannerStatus.CANCELLED and task is not None:
        task.check_cancelled()
    if result.status is not PlannerStatus.SOLVED:
        open_notes.append(f"whether the generated domain reaches the goal of {problem.name} stayed open "
                          f"({stopped}; {result.message})")
        return None
    return GoalVerdict(None)
