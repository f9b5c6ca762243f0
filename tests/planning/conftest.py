"""Fixtures shared by the planning tests: real K* plans of every bundled problem, planned once."""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.planning.kstar import KStarPlanner, Plan, PlannerStatus
from domain_drafter.planning.plan_cache import PlanCache


@pytest.fixture(scope="session")
def kstar_plans(tmp_path_factory) -> dict[tuple[str, str], tuple[Plan, ...]]:
    """Every bundled problem's K* top-100 plans, keyed by (domain, problem)."""
    cache = PlanCache(KStarPlanner(k=100), tmp_path_factory.mktemp("kstar-plan-cache"))
    plans = {}
    for bundle in load_bundled():
        for pf in bundle.problems:
            result = cache.plans(bundle.domain_text, pf.text, label=f"{bundle.name}/{pf.name}")
            assert result.status is PlannerStatus.SOLVED, result.message
            plans[bundle.name, pf.name] = result.plans
    return plans
