"""Fixtures the drafting tests share."""

from __future__ import annotations

import pytest

from domain_drafter.planning.evaluate import Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory):
    """A real Evaluator (K*, the proof) with its plan and verdict caches in a folder of the test module's own."""
    folder = tmp_path_factory.mktemp("eval")
    planner = KStarPlanner()
    with Evaluator(planner=planner, plan_cache=PlanCache(planner, folder / "plans"),
                   verdicts=VerdictCache(folder / "v.sqlite")) as ev:
        yield ev
