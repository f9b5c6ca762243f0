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


# Every counterexample a proof builds during a planning test is re-checked independently at
# teardown: its problem text is parsed back with the real PDDL reader, and its plan must be
# valid in exactly one of the two domains, the one it names (issue 14: a test asserts this for
# every counterexample the suite produces).
@pytest.fixture(autouse=True)
def every_counterexample_checks_out(monkeypatch):
    from domain_drafter.planning import proof

    produced = []
    real = proof.build_counterexample

    def recording(reference, generated, *args, **kwargs):
        cx = real(reference, generated, *args, **kwargs)
        produced.append((reference, generated, cx))
        return cx

    monkeypatch.setattr(proof, "build_counterexample", recording)
    yield produced
    for reference, generated, cx in produced:
        assert_valid_in_exactly_one(reference, generated, cx)


def assert_valid_in_exactly_one(reference, generated, cx) -> None:
    """The counterexample's plan, on its own PDDL problem read back from text, is valid only where it says."""
    from domain_drafter.core.reader import read_problem
    from domain_drafter.planning.validator import PlanValidator, read_plan

    problem = read_problem(cx.problem_pddl)
    plan = read_plan("\n".join(cx.plan))
    assert plan and plan[-1] == tuple(cx.state.step.strip("()").split())
    valid = {"reference": PlanValidator(reference, problem).validate(plan).valid,
             "generated": PlanValidator(generated, problem).validate(plan).valid}
    assert valid[cx.valid_in], f"{cx.plan} should be valid in the {cx.valid_in} domain"
    assert sum(valid.values()) == 1, f"{cx.plan} is valid in both domains"
    assert cx.reference_validation.valid == valid["reference"]
    assert cx.generated_validation.valid == valid["generated"]
