"""K* judges exactly the `either` action the model wrote: no silent widening to `object` in D'."""

from __future__ import annotations

import pytest
from tests.core.courier import write_courier

from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.classes import Subclass
from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions, Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.validator import FailureKind


@pytest.fixture(scope="module")
def courier_eval(tmp_path_factory):
    root = tmp_path_factory.mktemp("either-eval")
    bundle = load_bundle(write_courier(root / "courier"))
    planner = KStarPlanner(k=100, time_limit_s=60)
    with Evaluator(EvaluationOptions(equivalence=EquivalenceMode.PAPER), planner=planner, plan_cache=PlanCache(planner, root / "plans"),
                   verdicts=VerdictCache(root / "verdicts.sqlite")) as evaluator:
        yield bundle, evaluator


@pytest.mark.parametrize("action", ["drive", "fly", "load", "unload"])
def test_every_courier_action_is_equivalent_to_itself(courier_eval, action):
    bundle, evaluator = courier_eval
    result = evaluator.evaluate(bundle, action, bundle.domain.action(action).to_pddl())
    assert result.subclass is Subclass.EQUIVALENT, result.message
    assert result.are.total == 0


def test_either_parameter_lets_the_airplane_drive_but_never_the_package(courier_eval):
    bundle, evaluator = courier_eval
    answer = ("(:action drive :parameters (?v - (either truck airplane) ?a ?b - location) "
              ":precondition (and (at ?v ?a) (road ?a ?b)) :effect (and (not (at ?v ?a)) (at ?v ?b)))")
    result = evaluator.evaluate(bundle, "drive", answer)
    assert result.subclass is Subclass.NP_APP, result.message
    cx = result.equivalence.counterexample
    assert cx.validation.kind is FailureKind.WRONG_TYPE
    # Widened to `object`, the package could drive itself and the cheapest bad plan would say so.
    assert cx.validation.message.endswith("'a' is a airplane, not a truck")
    plans = [p for p in cx.plan]
    assert all(not step.startswith("(drive p ") for step in plans)
    assert result.are.total == 0
