"""NoPlan settled early: a plan of the reference that is also a plan of the answer's domain shows its goal reachable.

Deciding NoPlan exactly means searching the answer's own states (`noplan.py`), and an answer that
dropped its static preconditions on an untyped domain can have far more of them than the
reference. Most answers are not NoPlan, and for them a single plan suffices: the reference's
shortest plan from its explored states, or, where the exploration stopped before any goal
state, one the Fast Downward search finds in the reference domain (small: it keeps its kinds).
If the answer's domain validates that plan, its goal is reachable; otherwise nothing is shown
and the caller searches the answer's states as before.
"""

from __future__ import annotations

import time

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.model import Domain
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.fd_search import GOAL_SEARCH, FastDownwardSearch
from domain_drafter.planning.grounding import AtomIndex
from domain_drafter.planning.kstar import PlannerStatus
from domain_drafter.planning.state_space import ReachableStates, goal_masks
from domain_drafter.planning.validator import PlanValidator
from domain_drafter.planning.witness import goal_task

Step = tuple[str, ...]


def answer_follows_reference(reference: Domain, generated: Domain, problem: ProblemFile,
                             explored: tuple[ReachableStates, AtomIndex] | None, *, deadline: float,
                             search: FastDownwardSearch | None = None, task: TaskState | None = None) -> bool:
    """True when a plan of `reference` for `problem` is also a plan of `generated` (False: not shown this way)."""
    steps = _explored_plan(problem, *explored) if explored is not None else None
    if steps is None:
        steps = _searched_plan(reference, problem, deadline, search, task)
    return steps is not None and PlanValidator(generated, problem.problem).validate(steps).valid


def _explored_plan(problem: ProblemFile, space: ReachableStates, index: AtomIndex) -> list[Step] | None:
    """The plan to the first (so shallowest) explored goal state, if the exploration reached one."""
    pos, neg = goal_masks(index, problem.problem.goal)
    number = next((n for n, s in enumerate(space.states) if s & pos == pos and not s & neg), None)
    if number is None:
        return None
    return [tuple(step.strip("()").split()) for step in space.prefix(number)]


def _searched_plan(reference: Domain, problem: ProblemFile, deadline: float, search: FastDownwardSearch | None,
                   task: TaskState | None) -> list[Step] | None:
    left = deadline - time.perf_counter()
    if left < 1.0:
        return None
    base = search or FastDownwardSearch()
    planner = FastDownwardSearch(time_limit_s=left, memory_limit_mb=base.memory_limit_mb, search=GOAL_SEARCH,
                                 python=base.python)
    domain_text, problem_text = goal_task(reference, problem)
    result = planner.plan(domain_text, problem_text, task=task, label=f"reference/{problem.name}")
    if result.status is PlannerStatus.CANCELLED and task is not None:
        task.check_cancelled()
    if result.status is not PlannerStatus.SOLVED or not result.plans:
        return None
    return [tuple(step) for step in result.plans[0]]
