"""Evaluate real mutants of real actions with the real K* planner: each lands in its Different subclass."""

from __future__ import annotations

import pytest
from tests.conftest import all_reference_actions

from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.core.errors import ErrorKind
from domain_drafter.planning.evaluate import (
    EquivalenceMode,
    EvaluationOptions,
    Evaluator,
    VerdictCache,
    canonical_action,
)
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache

# The paper's heuristic (METHOD 6, `--equivalence paper`): its verdicts and reports, exactly as before issue 14.
PAPER = EvaluationOptions(equivalence=EquivalenceMode.PAPER)


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    planner = KStarPlanner(k=100, time_limit_s=60)
    with Evaluator(PAPER, planner=planner, plan_cache=PlanCache(planner, folder / "plans"),
                   verdicts=VerdictCache(folder / "verdicts.sqlite")) as ev:
        yield ev


@pytest.mark.parametrize(("domain", "action"), all_reference_actions())
def test_every_reference_action_evaluates_as_equivalent(evaluator, bundles, domain, action):
    bundle = bundles[domain]
    result = evaluator.evaluate(bundle, action, "PDDL Action:\n" + bundle.domain.action(action).to_pddl())
    assert result.subclass is Subclass.EQUIVALENT, result.message
    assert result.result_class is ResultClass.EQUIVALENT
    assert result.are.total == 0
    assert all(p.reference_plans >= 1 and p.generated_plans >= 1 for p in result.equivalence.problems)


def mutate(bundles, domain: str, action: str, old: str, new: str) -> str:
    text = bundles[domain].domain.action(action).to_pddl()
    assert old in text, f"{old!r} not in {text}"
    return text.replace(old, new, 1)


# (name, domain, action, replace this, with this, expected subclass)
MUTANTS = [
    ("dropped precondition", "blocksworld", "pick-up", "(clear ?x) ", "", Subclass.NP_APP),
    ("dropped precondition", "gripper", "move", "(at-robby ?from)", "", Subclass.NP_APP),
    ("dropped delete", "blocksworld", "put-down", " (not (holding ?x))", "", Subclass.NP_APP),
    ("dropped delete", "logistics", "drive-truck", " (not (at ?truck ?from))", "", Subclass.NP_APP),
    ("extra add", "blocksworld", "stack", "(on ?x ?y)", "(on ?x ?y) (clear ?y)", Subclass.NP_APP),
    ("swapped parameters", "blocksworld", "stack", "(on ?x ?y)", "(on ?y ?x)", Subclass.NP_APP),
    ("effect on the wrong object", "blocksworld", "unstack", "(clear ?y)", "(clear ?x)", Subclass.NO_PLAN),
    ("effect on the wrong object", "gripper", "drop", "(at ?obj ?room)", "(at-robby ?room)", Subclass.NO_PLAN),
    ("missing key add", "blocksworld", "pick-up", "(holding ?x) ", "", Subclass.NO_PLAN),
    ("impossible precondition", "miconic", "depart", "(boarded ?p)", "(boarded ?p) (served ?p)", Subclass.NO_PLAN),
    ("stricter precondition", "gripper", "pick", "(free ?g)", "(free ?g) (free left)", Subclass.OP_APP),
    ("stricter precondition", "gripper", "drop", "(at-robby ?room)", "(at-robby ?room) (free right)", Subclass.OP_APP),
    ("stricter precondition", "blocksworld", "unstack", "(handempty)", "(handempty) (ontable ?y)", Subclass.OP_APP),
    ("stricter precondition", "logistics", "load-truck", "(at ?pkg ?place)", "(at ?pkg ?place) (at ?truck ?place)",
     Subclass.EQUIVALENT),
]


@pytest.mark.parametrize(("name", "domain", "action", "old", "new", "expected"), MUTANTS,
                         ids=[f"{m[0]}-{m[1]}-{m[2]}" for m in MUTANTS])
def test_mutant_lands_in_its_subclass_with_a_counterexample(evaluator, bundles, name, domain, action, old, new,
                                                             expected):
    result = evaluator.evaluate(bundles[domain], action, mutate(bundles, domain, action, old, new))
    assert result.error is None, result.error
    assert result.subclass is expected, result.message
    if expected is Subclass.EQUIVALENT:
        return
    cx = result.equivalence.counterexample
    assert cx is not None and cx.problem in {p.name for p in bundles[domain].problems}
    assert cx.problem in result.message
    if expected is Subclass.NO_PLAN:
        assert cx.planner_status == "unsolvable" and not result.equivalence.timed_out
        return
    assert cx.plan and cx.validation is not None and not cx.validation.valid
    assert cx.direction == ("generated-in-reference" if expected is Subclass.NP_APP else "reference-in-generated")
    if cx.validation.step is not None:
        assert 1 <= cx.validation.step <= len(cx.plan)
        assert cx.validation.action == cx.plan[cx.validation.step - 1]
    assert cx.validation.atoms, "the failing precondition or goal atom is named"
    assert cx.validation.atoms[0] in result.message


def test_each_different_subclass_has_at_least_two_mutants():
    for subclass in (Subclass.NO_PLAN, Subclass.NP_APP, Subclass.OP_APP):
        assert sum(1 for m in MUTANTS if m[5] is subclass) >= 2


def test_opapp_counterexample_names_a_reference_plan_step_and_atom(evaluator, bundles):
    result = evaluator.evaluate(bundles["gripper"], "pick", mutate(bundles, "gripper", "pick", "(free ?g)",
                                                                    "(free ?g) (free left)"))
    cx = result.equivalence.counterexample
    assert result.subclass is Subclass.OP_APP
    assert cx.validation.kind.name == "PRECONDITION"
    assert "(free left)" in cx.validation.atoms


def test_repeated_answer_is_served_from_the_verdict_cache(evaluator, bundles):
    bundle = bundles["blocksworld"]
    first = ("(:action stack :parameters (?a ?b - block) :precondition (and (clear ?b) (holding ?a)) "
             ":effect (and (on ?a ?b) (clear ?a) (handempty) (not (holding ?a)) (not (clear ?b))))")
    again = "Sure:\n" + first.replace("?a", "?top").replace("?b", "?bottom").replace(" (clear ?top)", "  (clear ?top)\n")
    one = evaluator.evaluate(bundle, "stack", first)
    two = evaluator.evaluate(bundle, "stack", again)
    assert one.subclass is two.subclass is Subclass.EQUIVALENT
    assert two.cached
    assert canonical_action(one.check.action) == canonical_action(two.check.action)


def test_syntax_and_semantic_errors_never_reach_the_planner(evaluator, bundles):
    result = evaluator.evaluate(bundles["blocksworld"], "stack", "(:action stack :parameters (?x) :effect (and (on ?x)))")
    assert result.subclass is Subclass.PA_ERROR and result.equivalence is None
    result = evaluator.evaluate(bundles["blocksworld"], "stack", "no pddl here")
    assert result.subclass is Subclass.NO_PDDL and result.are is None


def test_planner_time_out_is_noplan_marked_as_time_out(tmp_path, bundles, evaluator):
    bundle = bundles["blocksworld"]
    slow = KStarPlanner(k=100, time_limit_s=0.001)
    with Evaluator(PAPER, planner=slow, plan_cache=evaluator.plan_cache,
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as ev:
        result = ev.evaluate(bundle, "stack", mutate(bundles, "blocksworld", "stack", "(on ?x ?y)", "(on ?x ?y) (clear ?y)"))
    assert result.subclass is Subclass.NO_PLAN
    assert result.equivalence.timed_out
    assert "timed out" in result.message


def test_missing_planner_is_an_error_result_never_equivalent(tmp_path, bundles):
    broken = KStarPlanner(python="/nonexistent/python3")
    with Evaluator(PAPER, planner=broken, plan_cache=PlanCache(broken, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as ev:
        bundle = bundles["gripper"]
        result = ev.evaluate(bundle, "move", bundle.domain.action("move").to_pddl())
        key = ev.verdict_key(bundle, "move", result.check.action)
        assert ev.verdicts.get(key) is None, "an error is never remembered as a verdict"
    assert result.subclass is None and result.result_class is None
    assert result.error.kind is ErrorKind.PLANNER and "could not be planned" in result.error.message
    assert result.to_dict()["error"] == result.error.message and result.to_dict()["error_kind"] == "planner"


def test_result_serialises_to_json_with_every_part(evaluator, bundles):
    import json
    result = evaluator.evaluate(bundles["blocksworld"], "stack",
                                mutate(bundles, "blocksworld", "stack", "(on ?x ?y)", "(on ?y ?x)"))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["class"] == "Different domain" and data["subclass"] == "NPApp"
    assert data["are"]["total"] == 2
    assert data["equivalence"]["counterexample"]["plan"]
    assert {"check_s", "are_s", "equivalence_s", "total_s"} <= set(data["timings"])


def test_progress_is_reported_and_cancel_stops_the_evaluation(evaluator, bundles, tmp_path):
    from domain_drafter.core.tasks import Cancelled, TaskState

    seen = []
    task = TaskState(on_progress=lambda done, total, msg: seen.append((done, total, msg)))
    bundle = bundles["depot"]
    with Evaluator(PAPER, planner=evaluator.planner, plan_cache=evaluator.plan_cache,
                   verdicts=VerdictCache(tmp_path / "fresh.sqlite")) as fresh:
        fresh.evaluate(bundle, "lift", bundle.domain.action("lift").to_pddl(), task=task)
        assert seen[0] == (0, 3, "planning with K*") and seen[-1][0] == seen[-1][1] == 3
        cancelled = TaskState()
        cancelled.cancel()
        with pytest.raises(Cancelled):
            fresh.evaluate(bundle, "drop", bundle.domain.action("drop").to_pddl(), task=cancelled)


def test_result_carries_the_reference_action_for_side_by_side_views(evaluator, bundles):
    bundle = bundles["miconic"]
    result = evaluator.evaluate(bundle, "up", "(:action up :parameters (?a ?b - floor) :effect (and (lift-at ?b)))")
    assert result.reference_pddl == bundle.domain.action("up").to_pddl(indent="")
    assert result.to_dict()["reference_pddl"].startswith("(:action up")


def test_one_evaluator_serves_several_threads_at_once(evaluator, bundles):
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(b, a) for b in (bundles["gripper"], bundles["hiking"]) for a in b.action_names]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda job: evaluator.evaluate(job[0], job[1],
                                                               job[0].domain.action(job[1]).to_pddl()), jobs))
    assert [r.subclass for r in results] == [Subclass.EQUIVALENT] * len(jobs)
