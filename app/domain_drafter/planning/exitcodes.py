"""Named exit codes of the K* (Fast Downward) driver, mirroring `kstar_planner.driver.returncodes`.

The driver exits with the code of the last component it ran (translator or search). Codes
0-3 mean a plan was found, 10-12 that none exists, 20-24 that a resource limit was hit and
30-37 an unrecoverable error. Negative codes are signals (Popen convention).
"""

from __future__ import annotations

SUCCESS = 0
SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY = 1
SEARCH_PLAN_FOUND_AND_OUT_OF_TIME = 2
SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY_AND_TIME = 3

TRANSLATE_UNSOLVABLE = 10
SEARCH_UNSOLVABLE = 11
# K* with an admissible heuristic and no `max_time` exits 12 after exhausting the state space.
SEARCH_UNSOLVED_INCOMPLETE = 12

TRANSLATE_OUT_OF_MEMORY = 20
TRANSLATE_OUT_OF_TIME = 21
SEARCH_OUT_OF_MEMORY = 22
SEARCH_OUT_OF_TIME = 23
SEARCH_OUT_OF_MEMORY_AND_TIME = 24

TRANSLATE_CRITICAL_ERROR = 30
TRANSLATE_INPUT_ERROR = 31
SEARCH_CRITICAL_ERROR = 32
SEARCH_INPUT_ERROR = 33
SEARCH_UNSUPPORTED = 34
DRIVER_CRITICAL_ERROR = 35
DRIVER_INPUT_ERROR = 36
DRIVER_UNSUPPORTED = 37

PLAN_FOUND: frozenset[int] = frozenset(
    {SUCCESS, SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY, SEARCH_PLAN_FOUND_AND_OUT_OF_TIME,
     SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY_AND_TIME}
)
"""The driver found at least one plan (possibly before hitting a limit)."""

UNSOLVABLE: frozenset[int] = frozenset({TRANSLATE_UNSOLVABLE, SEARCH_UNSOLVABLE, SEARCH_UNSOLVED_INCOMPLETE})
"""The task has no plan (proved by the translator or by exhausting the search)."""

OUT_OF_TIME: frozenset[int] = frozenset(
    {TRANSLATE_OUT_OF_TIME, SEARCH_OUT_OF_TIME, SEARCH_OUT_OF_MEMORY_AND_TIME,
     SEARCH_PLAN_FOUND_AND_OUT_OF_TIME, SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY_AND_TIME}
)
"""A (CPU) time limit stopped the planner."""

OUT_OF_MEMORY: frozenset[int] = frozenset(
    {TRANSLATE_OUT_OF_MEMORY, SEARCH_OUT_OF_MEMORY, SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY}
)
"""The memory limit stopped the planner."""

INPUT_REJECTED: frozenset[int] = frozenset({TRANSLATE_CRITICAL_ERROR, TRANSLATE_INPUT_ERROR, SEARCH_UNSUPPORTED})
"""The PDDL does not parse, or uses a feature the search does not support (e.g. conditional effects)."""

PLANNER_FAILURE: frozenset[int] = frozenset(
    {SEARCH_CRITICAL_ERROR, SEARCH_INPUT_ERROR, DRIVER_CRITICAL_ERROR, DRIVER_INPUT_ERROR, DRIVER_UNSUPPORTED}
)
"""The planner itself or our command line is at fault, not the PDDL."""

DRIVER_ERRORS: frozenset[int] = frozenset({DRIVER_CRITICAL_ERROR, DRIVER_INPUT_ERROR, DRIVER_UNSUPPORTED})
"""The driver itself gave up (bad arguments, missing build) before or between components."""


def describe(code: int | None) -> str:
    """A short human-readable name for an exit code, e.g. 'SEARCH_OUT_OF_TIME (23)'."""
    if code is None:
        return "no exit code"
    if code < 0:
        return f"signal {-code}"
    for name, value in globals().items():
        if name.isupper() and isinstance(value, int) and value == code:
            return f"{name} ({code})"
    return f"unknown exit code {code}"
