"""The Evaluator in its default, proven mode: types, arity, fallback to the heuristic, errors, cancel."""

from __future__ import annotations

import pytest
from tests.core.courier import write_courier

from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import ErrorKind
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions, Evaluator, VerdictCache
from domain_drafter.planning.fd_search import FastDownwardSearch
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.proof_types import ProofMethod
from domain_drafter.planning.validator import FailureKind


@pytest.fixture(scope="module")
def planner():
    return KStarPlanner(k=100, time_limit_s=60)


@pytest.fixture
def evaluator(planner, tmp_path):
    with Evaluator(EvaluationOptions(), planner=planner, plan_cache=PlanCache(planner, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as ev:
        yield ev


def test_default_mode_is_proven_and_needs_no_planner_on_the_bundled_problems(bundles, tmp_path):
    broken = KStarPlanner(python="/nonexistent/python3")   # K* cannot start: the proof does not need it
    with Evaluator(planner=broken, plan_cache=PlanCache(broken, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as ev:
        bundle = bundles["gripper"]
        answer = bundle.domain.action("move").to_pddl().replace("(not (at-robby ?from))", "")
        result = ev.evaluate(bundle, "move", answer)
    assert result.equivalence_mode is EquivalenceMode.PROVEN
    assert result.subclass is Subclass.NP_APP and result.proof.proven and result.equivalence is None
    assert result.to_dict()["proof"]["subclass"] == "NPApp"


def test_a_grounding_that_fits_only_the_reference_types_is_inapplicable_in_the_answer(evaluator, bundles):
    bundle = bundles["logistics"]
    narrowed = bundle.domain.action("drive-truck").to_pddl().replace("?from ?to - place", "?from - airport ?to - place", 1)
    assert "?from - airport" in narrowed
    result = evaluator.evaluate(bundle, "drive-truck", narrowed)
    # the truck can no longer leave an office: p02's goal is out of reach (NoPlan decides first)
    assert result.subclass is Subclass.NO_PLAN and result.proof.noplan_problem == "p02", result.message
    cx = result.proof.counterexample
    assert cx.valid_in == "reference" and cx.generated_validation.kind is FailureKind.WRONG_TYPE


def test_an_either_parameter_that_lets_the_airplane_drive_is_npapp(evaluator, tmp_path):
    bundle = load_bundle(write_courier(tmp_path / "courier"))
    answer = ("(:action drive :parameters (?v - (either truck airplane) ?a ?b - location) "
              ":precondition (and (at ?v ?a) (road ?a ?b)) :effect (and (not (at ?v ?a)) (at ?v ?b)))")
    result = evaluator.evaluate(bundle, "drive", answer)
    assert result.subclass is Subclass.NP_APP, result.message
    cx = result.proof.counterexample
    assert cx.state.step.startswith("(drive a ") and cx.reference_validation.kind is FailureKind.WRONG_TYPE


def test_an_extra_parameter_makes_every_applicable_grounding_a_difference(evaluator, bundles):
    bundle = bundles["miconic"]
    answer = "(:action up :parameters (?f1 ?f2 ?f3 - floor) :precondition (and (lift-at ?f1) (above ?f1 ?f2)) " \
             ":effect (and (lift-at ?f2) (not (lift-at ?f1))))"
    result = evaluator.evaluate(bundle, "up", answer)
    assert result.result_class.value == "Different domain", result.message
    assert result.proof.counterexample.generated_validation.valid != result.proof.counterexample.reference_validation.valid


def test_an_unfinished_proof_falls_back_to_the_paper_heuristic_and_says_so(planner, bundles, tmp_path):
    # A budget of one state covers only the initial state, where put-down applies in neither
    # domain; the witness planner cannot start (no interpreter at that path): no proof.
    options = EvaluationOptions(state_budget=1)
    with Evaluator(options, planner=planner, plan_cache=PlanCache(planner, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite"),
                   search=FastDownwardSearch(python="/nonexistent/python3")) as ev:
        bundle = bundles["blocksworld"]
        answer = bundle.domain.action("put-down").to_pddl().replace(" (not (holding ?x))", "")
        result = ev.evaluate(bundle, "put-down", answer)
        repeat = ev.evaluate(bundle, "put-down", answer)
    assert result.proof.method is ProofMethod.HEURISTIC and not result.proof.proven
    assert result.subclass is Subclass.NP_APP and result.equivalence.subclass is Subclass.NP_APP
    assert "state budget 1 reached" in result.proof.reason and "cannot start" in result.proof.reason
    assert "heuristic" in result.message and result.message.startswith(result.equivalence.message)
    assert not repeat.cached, "an unproven verdict is not remembered"


def test_a_counterexample_that_does_not_check_out_is_an_error_never_shown(evaluator, bundles, monkeypatch):
    # A fake for a fault we cannot cause otherwise: a validator bug that accepts every plan.
    from domain_drafter.planning import counterexample
    from domain_drafter.planning.validator import VALID

    class AcceptsAll:
        def __init__(self, *args):
            pass

        def validate(self, plan):
            return VALID

    monkeypatch.setattr(counterexample, "PlanValidator", AcceptsAll)
    bundle = bundles["blocksworld"]
    result = evaluator.evaluate(bundle, "pick-up", bundle.domain.action("pick-up").to_pddl().replace("(clear ?x) ", "", 1))
    assert result.subclass is None and result.proof.counterexample is None
    assert result.error.kind is ErrorKind.PROOF
    assert "does not check out" in result.error.message and "bug" in result.error.message


def test_a_cancelled_task_stops_the_proof(evaluator, bundles):
    task = TaskState()
    task.cancel()
    bundle = bundles["depot"]
    with pytest.raises(Cancelled):
        evaluator.evaluate(bundle, "drop", bundle.domain.action("drop").to_pddl(), task=task)


def test_the_mode_may_be_given_as_text_as_settings_and_specs_hold_it():
    assert EvaluationOptions(equivalence="paper").equivalence is EquivalenceMode.PAPER
    assert EvaluationOptions().equivalence is EquivalenceMode.PROVEN
    with pytest.raises(ValueError, match="bogus"):
        EvaluationOptions(equivalence="bogus")
    with pytest.raises(ValueError, match="state_budget"):
        EvaluationOptions(state_budget=0)
