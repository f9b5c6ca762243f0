"""NoPlan decided exactly: is some problem's goal unreachable in the generated domain?

Breadth-first over the states reachable in D' (its own static predicates), stopping at the
first goal state. Where the state budget or the clock stops that search, the Fast Downward
search inside kstar-planner answers instead (a plan, or a proof that there is none).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

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


def unreachable_goal(generated: Domain, problems: Sequence[ProblemFile], *, budget: int, deadline: float,
                     search: FastDownwardSearch | None = None, task: TaskState | None = None) -> GoalVerdict:
    """The first problem (in order) whose goal is unreachable in `generated`, with the reason."""
    open_notes: list[str] = []
    for problem in problems:
        if task is not None:
            task.check_cancelled()
        stopped = ""
        try:
            grounder = Grounder(generated, problem.problem, generated.fluent_predicates)
            actions = grounder.ground_domain(generated)
            space, found = explore(actions, grounder.index, grounder.init_state(), budget=budget,
                                   deadline=deadline, goal=goal_masks(grounder.index, problem.problem.goal))
            if found is not None:
                continue
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
    return GoalVerdict(None, "; ".join(open_notes))
