"""A plain Fast Downward search with the planner that ships inside kstar-planner (no other planner).

Used by the proof where exploring in Python would take too long: the witness task ("reach a
state where the two domains differ") and the generated domain's own goal (NoPlan). The search
for the witness task is `astar(blind())`: its plan is a shortest one, and exhausting the task's
reachable states proves it unsolvable; for a domain's own goal, greedy search with FF (complete,
and dead ends it prunes are relaxed-unreachable, so exhausting it proves unsolvability too).
Unlike the K* runs, invariant synthesis stays on: these searches handle the conditional effects
it may introduce, and its mutex groups (proven invariants) let the translator discard witness
actions whose conditions no reachable state meets, often proving the task unsolvable at once.
Process handling (own session, time limit, cancel, temp dir, logging) is
`KStarPlanner`'s; only the command line and the reading of the result differ.
"""

from __future__ import annotations

import math
from pathlib import Path

from domain_drafter.planning import exitcodes
from domain_drafter.planning.kstar import KStarPlanner, Plan, PlannerStatus, parse_step

PLAN_DIR = "found_plans"
DEFAULT_SEARCH = "astar(blind())"
GOAL_SEARCH = "lazy_greedy([ff()], preferred=[ff()])"


class FastDownwardSearch(KStarPlanner):
    """One shortest plan (or a proof that there is none) of a PDDL task."""

    def __init__(self, time_limit_s: float = 30.0, memory_limit_mb: int | None = 2048,
                 search: str = DEFAULT_SEARCH, **kwargs) -> None:
        super().__init__(k=1, time_limit_s=time_limit_s, memory_limit_mb=memory_limit_mb, **kwargs)
        self.search = search

    @property
    def version(self) -> str:
        return f"{super().version} search {self.search}"

    def command(self, workdir: Path, build: Path) -> tuple[str, ...]:
        cpu_limit = math.ceil(self.time_limit_s) + 1
        limits = ["--overall-time-limit", f"{cpu_limit}s"]
        if self.memory_limit_mb is not None:
            limits += ["--overall-memory-limit", f"{int(self.memory_limit_mb)}M"]
        return (self.python, "-B", "-m", "kstar_planner.driver.main", "--build", str(build), *limits,
                "domain.pddl", "problem.pddl", "--search-options", "--search", self.search)

    def _classify(self, code: int, log: str, json_path: Path,
                  what: str) -> tuple[PlannerStatus, str, tuple[Plan, ...], tuple[float, ...]]:
        plans = _read_plans(json_path.parent / PLAN_DIR)
        name = exitcodes.describe(code)
        if code in exitcodes.PLAN_FOUND and plans:
            return PlannerStatus.SOLVED, f"Fast Downward found a plan of {len(plans[0])} steps on {what}", plans, \
                (float(len(plans[0])),)
        if code in exitcodes.UNSOLVABLE and not plans:
            return PlannerStatus.UNSOLVABLE, f"Fast Downward proved {what} unsolvable ({name})", (), ()
        if code in exitcodes.OUT_OF_TIME:
            return PlannerStatus.TIMEOUT, f"Fast Downward ran out of CPU time on {what} ({name})", (), ()
        if code in exitcodes.OUT_OF_MEMORY:
            return PlannerStatus.CRASHED, (f"Fast Downward ran out of memory (limit {self.memory_limit_mb} MB) "
                                           f"on {what} ({name})"), (), ()
        if code in exitcodes.INPUT_REJECTED:
            return PlannerStatus.TRANSLATOR_ERROR, f"Fast Downward rejected the PDDL of {what} ({name})", (), ()
        return PlannerStatus.CRASHED, f"Fast Downward failed on {what} ({name}); see the log", (), ()


def _read_plans(folder: Path) -> tuple[Plan, ...]:
    """The plan files K*'s search writes under found_plans/ (its own `__...` bookkeeping steps dropped)."""
    plans: list[Plan] = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
        if not path.is_file():
            continue
        steps = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if line.startswith("(") and not line.startswith("(__"):
                steps.append(parse_step(line))
        plan = tuple(s for s in steps if s)
        if plan not in plans:
            plans.append(plan)
    return tuple(plans)
