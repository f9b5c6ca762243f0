"""Our validator's plans per second against unified-planning's, on the same K* plans."""

from __future__ import annotations

import time

from tests.perf.conftest import report

from domain_drafter.core.bundle import load_bundle
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.validator import PlanValidator


def test_validator_is_far_faster_than_unified_planning():
    import unified_planning.shortcuts as up
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.io import PDDLReader
    from unified_planning.plans import ActionInstance, SequentialPlan

    up.get_environment().credits_stream = None
    bundle = load_bundle("logistics")
    problem = bundle.problems[1]
    plans = KStarPlanner(k=100).plan(bundle.domain_text, problem.text).plans
    assert len(plans) == 100

    ours = PlanValidator(bundle.domain, problem.problem)
    start = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        assert all(ours.validate(p).valid for p in plans)
    ours_rate = rounds * len(plans) / (time.perf_counter() - start)

    up_problem = PDDLReader().parse_problem(str(bundle.path), str(problem.path))
    sample = plans[:20]
    with up.PlanValidator(name="sequential_plan_validator") as validator:
        start = time.perf_counter()
        for plan in sample:
            seq = SequentialPlan([ActionInstance(up_problem.action(s[0]), [up_problem.object(o) for o in s[1:]])
                                  for s in plan])
            assert validator.validate(up_problem, seq).status is ValidationResultStatus.VALID
        up_rate = len(sample) / (time.perf_counter() - start)
    report("plan validation, logistics p02, 100 K* plans", [
        ("ours", f"{ours_rate:,.0f} plans/s"),
        ("unified-planning", f"{up_rate:,.0f} plans/s"),
        ("speed-up", f"{ours_rate / up_rate:,.0f}x"),
    ])
    assert ours_rate / up_rate > 20
