"""Test cases from a counterexample (issue 22): the real proof's distinguishing state of three wrong blocksworld
`stack` answers becomes a case that the reference passes and the wrong answer fails, read back by the real
tests-file reader and proven by the real prover; a never case lifted from picked atoms does the same."""

from __future__ import annotations

import pytest

from domain_drafter.core.answers import check_answer
from domain_drafter.core.domain_tests import CaseKind, free_case_name
from domain_drafter.core.tests_reader import parse_tests
from domain_drafter.core.tests_toml import case_toml
from domain_drafter.planning.counterexample_cases import counterexample_case, never_choice, never_formula
from domain_drafter.planning.domain_tests import run_tests
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator
from domain_drafter.planning.tests_report import Verdict

# no (clear ?y): it stacks onto a covered block (the reference refuses that step)
MISSING_PRECONDITION = """(:action stack
  :parameters (?x - block ?y - block)
  :precondition (and (holding ?x))
  :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))"""
# an extra (ontable ?y): it refuses a step the reference allows
EXTRA_PRECONDITION = MISSING_PRECONDITION.replace("(and (holding ?x))", "(and (holding ?x) (clear ?y) (ontable ?y))")
# no (not (holding ?x)): both apply the step, with other effects
MISSING_EFFECT = MISSING_PRECONDITION.replace("(and (holding ?x))", "(and (holding ?x) (clear ?y))").replace(
    " (not (holding ?x))", "")


@pytest.fixture(scope="module")
def evaluator():
    with Evaluator(EvaluationOptions(time_limit_s=20.0, use_verdict_cache=False)) as judge:
        yield judge


def proven(bundle, evaluator, answer: str):
    """The wrong answer's counterexample, its domain, and the counterexample's problem."""
    result = evaluator.evaluate(bundle, "stack", answer)
    cx = result.proof.counterexample
    assert cx is not None
    wrong = bundle.domain.with_action(check_answer(answer, bundle.domain, "stack").action, replacing="stack")
    problem = next(p.problem for p in bundle.problems if p.name == cx.state.problem)
    return cx, wrong, problem


def verdict(domain, bundle, text: str) -> Verdict:
    (result,) = run_tests(domain, parse_tests(text, bundle.domain, bundle.problems)).results
    return result.verdict


@pytest.mark.parametrize(("answer", "kind", "what"), [
    (MISSING_PRECONDITION, CaseKind.PLAN_FAILS, "fails"),
    (EXTRA_PRECONDITION, CaseKind.PLAN, "works"),
    (MISSING_EFFECT, CaseKind.PLAN, "effects"),
])
def test_the_kept_case_passes_on_the_reference_and_fails_on_the_wrong_answer(bundles, evaluator, answer, kind, what):
    bundle = bundles["blocksworld"]
    cx, wrong, problem = proven(bundle, evaluator, answer)
    case = counterexample_case(cx, bundle.domain, problem, "stack")
    assert case.kind is kind and case.name == f"stack-{what}-on-{cx.state.problem}-1"
    assert [f"({' '.join(s)})" for s in case.plan] == list(cx.plan)
    text = case_toml(case)
    assert case_toml(parse_tests(text, bundle.domain, bundle.problems).cases[0]) == text   # it reads back as written
    assert verdict(bundle.domain, bundle, text) is Verdict.PASS
    assert verdict(wrong, bundle, text) is Verdict.FAIL


def test_each_kind_says_what_the_reference_does_at_the_step(bundles, evaluator):
    bundle = bundles["blocksworld"]
    cx, _, problem = proven(bundle, evaluator, MISSING_PRECONDITION)
    fails = counterexample_case(cx, bundle.domain, problem, "stack")
    assert fails.at_step == len(cx.plan) == 2 and str(fails.precondition) == "(clear a)"   # the reference's reason
    assert "is not applicable" in fails.description

    cx, _, problem = proven(bundle, evaluator, EXTRA_PRECONDITION)
    works = counterexample_case(cx, bundle.domain, problem, "stack")
    assert works.reaches_goal is False and works.formula is None   # it does not reach p01's goal

    cx, _, problem = proven(bundle, evaluator, MISSING_EFFECT)
    effects = counterexample_case(cx, bundle.domain, problem, "stack")
    assert str(effects.formula) == "(not (holding b))" and effects.reaches_goal


def test_kept_names_are_free_among_the_cases_there(bundles, evaluator):
    bundle = bundles["blocksworld"]
    cx, _, problem = proven(bundle, evaluator, MISSING_PRECONDITION)
    taken = ("stack-fails-on-p01-1", "stack-fails-on-p01-2")
    assert counterexample_case(cx, bundle.domain, problem, "stack", taken).name == "stack-fails-on-p01-3"
    assert free_case_name("kept-solves-p01", ()) == "kept-solves-p01-1"


def test_a_never_case_of_picked_atoms_is_lifted_and_fails_only_on_the_wrong_answer(bundles, evaluator):
    bundle = bundles["blocksworld"]
    cx, wrong, problem = proven(bundle, evaluator, MISSING_PRECONDITION)
    choice = never_choice(cx, bundle.domain, wrong, problem)
    assert "(on b a)" in choice.atoms and "(on c a)" in choice.atoms          # the state after (stack b a)
    assert set(choice.differing) == {"(on b a)", "(clear b)", "(handempty)"}  # what the reference's state lacks
    state = never_formula(["(on b a)", "(on c a)"], bundle.domain, problem)
    assert state == "(and (on ?b ?a) (on ?c ?a) (not (= ?b ?a)) (not (= ?b ?c)) (not (= ?a ?c)))"
    text = f'[cases.two-on-one]\nproblem = "p01"\nkind = "never"\nstate = "{state}"\n'
    assert verdict(bundle.domain, bundle, text) is Verdict.PASS
    assert verdict(wrong, bundle, text) is Verdict.FAIL


def test_where_the_answer_refuses_the_step_its_state_is_the_distinguishing_one(bundles, evaluator):
    bundle = bundles["blocksworld"]
    cx, wrong, problem = proven(bundle, evaluator, EXTRA_PRECONDITION)
    choice = never_choice(cx, bundle.domain, wrong, problem)
    assert choice.differing == () and "(holding b)" in choice.atoms   # after (pick-up b), before the step


def test_constants_stay_and_objects_of_unrelated_types_are_not_told_apart(bundles):
    bundle = bundles["gripper"]   # left and right are constants of the domain
    problem = next(p.problem for p in bundle.problems if p.name == "p01")
    state = never_formula(["(carry ball1 left)", "(carry ball2 left)", "(at-robby rooma)"], bundle.domain, problem)
    assert state == "(and (carry ?ball1 left) (carry ?ball2 left) (at-robby ?rooma) (not (= ?ball1 ?ball2)))"
    text = f'[cases.one-gripper-two-balls]\nproblem = "p01"\nkind = "never"\nstate = "{state}"\n'
    assert verdict(bundle.domain, bundle, text) is Verdict.PASS
