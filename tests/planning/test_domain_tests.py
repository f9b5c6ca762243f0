"""Domain tests (issue 22): every kind passes and fails on a small hand-made domain, with checked evidence.

The domain is real PDDL read by the real parser; plans are checked by the real validator, and the
cases past the state budget go to the real Fast Downward inside kstar-planner.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from domain_drafter.core.bundle import load_bundle_path
from domain_drafter.core.model import Atom, Literal
from domain_drafter.core.tests_reader import load_tests
from domain_drafter.planning.domain_tests import TestSettings, Verdict, run_tests
from domain_drafter.planning.validator import PlanValidator, read_plan

LAMPS = """
(define (domain lamps)
  (:requirements :strips :typing)
  (:types lamp)
  (:predicates (lit ?l - lamp) (dark ?l - lamp) (power))
  (:action switch-on
    :parameters (?l - lamp)
    :precondition (and (dark ?l) (power))
    :effect (and (lit ?l) (not (dark ?l))))
  (:action switch-off
    :parameters (?l - lamp)
    :precondition (and (lit ?l))
    :effect (and (dark ?l) (not (lit ?l))))
)
"""

P01 = """
(define (problem lamps-p01) (:domain lamps)
  (:objects a b - lamp)
  (:init (dark a) (dark b) (power))
  (:goal (and (lit a) (lit b))))
"""

# Each kind once passing (…-ok) and once failing (…-bad) on the domain as written.
TESTS = """
[problems.no-power]
objects = "a - lamp"
init = "(dark a)"
goal = "(lit a)"

[cases.plan-ok]
problem = "p01"
kind = "plan"
plan = ["(switch-on a)", "(switch-on b)"]

[cases.plan-bad]
problem = "p01"
kind = "plan"
plan = \"\"\"
(switch-on a)
(switch-off b)
\"\"\"

[cases.plan-short-ok]
problem = "p01"
kind = "plan"
plan = ["(switch-on a)"]
reaches_goal = false

[cases.plan-short-bad]
problem = "p01"
kind = "plan"
plan = ["(switch-on a)", "(switch-on b)"]
reaches_goal = false

[cases.fails-ok]
problem = "p01"
kind = "plan_fails"
plan = ["(switch-on a)", "(switch-on a)"]
at_step = 2
precondition = "(dark a)"

[cases.fails-bad]
problem = "p01"
kind = "plan_fails"
plan = ["(switch-on a)", "(switch-off a)"]

[cases.fails-elsewhere-bad]
problem = "p01"
kind = "plan_fails"
plan = ["(switch-on a)", "(switch-on a)"]
at_step = 1

[cases.reachable-ok]
problem = "p01"
kind = "reachable"

[cases.reachable-bad]
problem = "no-power"
kind = "reachable"

[cases.unreachable-ok]
problem = "no-power"
kind = "unreachable"

[cases.unreachable-bad]
problem = "p01"
kind = "unreachable"
goal = "(and (lit ?x) (dark b))"

[cases.never-ok]
problem = "p01"
kind = "never"
state = "(and (lit ?x) (dark ?x))"

[cases.never-bad]
problem = "p01"
kind = "never"
state = "(and (lit ?x) (lit ?y) (not (= ?x ?y)))"

[cases.applicable-ok]
problem = "p01"
kind = "applicable"
after = ["(switch-on a)"]
action = "(switch-off a)"

[cases.applicable-bad]
problem = "p01"
kind = "applicable"
action = "(switch-off a)"

[cases.not-applicable-ok]
problem = "p01"
kind = "not_applicable"
action = "(switch-off a)"

[cases.not-applicable-bad]
problem = "p01"
kind = "not_applicable"
action = "(switch-on a)"

[cases.effect-ok]
problem = "p01"
kind = "effect"
action = "(switch-on a)"
holds = "(lit a) (dark b) (power)"
not_holds = "(dark a)"

[cases.effect-bad]
problem = "p01"
kind = "effect"
action = "(switch-on a)"
holds = "(dark a)"

[cases.inline-ok]
objects = "a b - lamp"
init = "(lit a) (dark b)"
kind = "not_applicable"
action = "(switch-on b)"
"""


def make_bundle(folder: Path, domain: str = LAMPS, tests: str = TESTS) -> Path:
    (folder / "problems").mkdir(parents=True, exist_ok=True)
    (folder / "domain.pddl").write_text(domain)
    (folder / "problems" / "p01.pddl").write_text(P01)
    (folder / "tests.toml").write_text(tests)
    return folder


@pytest.fixture(scope="module")
def lamps(tmp_path_factory):
    bundle = load_bundle_path(make_bundle(tmp_path_factory.mktemp("lamps")))
    return bundle, load_tests(bundle)


@pytest.fixture(scope="module")
def report(lamps):
    bundle, tests = lamps
    return run_tests(bundle.domain, tests, domain_text=bundle.domain_text)


def assert_evidence_checks_out(bundle, tests, result) -> None:
    """The evidence's plan, replayed by the validator on the case's problem, gives what the evidence says."""
    evidence = result.evidence
    assert evidence is not None, result.message
    problem = tests.problems[tests.case(result.name).problem].problem
    goal = tuple(Literal(Atom(a.strip("()").split()[0], tuple(a.strip("()").split()[1:])))
                 for a in evidence.goal if not a.startswith("(not"))
    plan = read_plan("\n".join(evidence.plan))
    check = PlanValidator(bundle.domain, replace(problem, goal=goal)).validate(plan)
    assert check == evidence.validation
    if evidence.step is not None and not check.valid:
        assert check.step == evidence.step and check.atoms == evidence.atoms


def test_every_kind_passes_and_fails_as_written(lamps, report):
    for result in report.results:
        expected = Verdict.PASS if result.name.endswith("-ok") else Verdict.FAIL
        assert result.verdict is expected, f"{result.name}: {result.message}"
        assert result.line > 0
    kinds = {r.kind.value for r in report.results}
    assert kinds == {"plan", "plan_fails", "reachable", "unreachable", "never", "applicable", "not_applicable",
                     "effect"}
    assert report.count(Verdict.FAIL) == 10 and not report.all_passed


def test_failure_evidence_is_what_the_validator_says(lamps, report):
    bundle, tests = lamps
    for result in report.failed:
        if result.evidence is not None and result.evidence.plan:
            assert_evidence_checks_out(bundle, tests, result)


def test_a_plan_that_must_work_names_the_step_and_precondition(report):
    bad = report.result("plan-bad")
    assert bad.evidence.step == 2 and bad.evidence.atoms == ("(lit b)",)
    assert "step 2 (switch-off b): precondition (lit b) not satisfied" in bad.message


def test_never_fails_with_the_shortest_plan_to_the_state_and_its_binding(lamps, report):
    bundle, tests = lamps
    bad = report.result("never-bad")
    assert bad.method == "exploration"
    assert len(bad.evidence.plan) == 2 and dict(bad.evidence.binding).keys() == {"?x", "?y"}
    assert bad.evidence.validation.valid
    assert_evidence_checks_out(bundle, tests, bad)


def test_unreachable_fails_with_a_validated_plan(lamps, report):
    bundle, tests = lamps
    bad = report.result("unreachable-bad")
    assert bad.evidence.plan == ("(switch-on a)",) and dict(bad.evidence.binding) == {"?x": "a"}
    assert_evidence_checks_out(bundle, tests, bad)


def test_reachable_passes_with_the_plan_found(report):
    ok = report.result("reachable-ok")
    assert ok.evidence.plan == ("(switch-on a)", "(switch-on b)") and ok.evidence.validation.valid


def test_exploring_cases_say_how_many_states_they_proved_over(report):
    ok = report.result("never-ok")
    assert ok.states == 4 and "proven: none of the 4 reachable states" in ok.message


def test_effect_failure_names_the_atom(report):
    bad = report.result("effect-bad")
    assert bad.evidence.atoms == ("(dark a)",) and "(lit a)" in bad.evidence.state


def test_report_is_data(report):
    import json

    data = json.loads(json.dumps(report.to_dict()))
    assert data["failed"] == 10 and data["results"][0]["verdict"] == "pass"
    assert {r["kind"] for r in data["results"]} >= {"never", "effect"}


def test_past_the_budget_fast_downward_decides(lamps):
    bundle, tests = lamps
    chosen = tests.select(["unreachable-ok", "unreachable-bad", "never-bad", "never-ok", "reachable-ok"])
    report = run_tests(bundle.domain, chosen, settings=TestSettings(state_budget=1, time_limit_s=30))
    by = {r.name: r for r in report.results}
    assert by["unreachable-ok"].verdict is Verdict.PASS   # its problem has one state: explored within the budget
    assert by["never-ok"].verdict is Verdict.PASS and by["never-ok"].method == "planner"
    assert "unsolvable" in by["never-ok"].message
    for name in ("unreachable-bad", "never-bad"):
        assert by[name].verdict is Verdict.FAIL and by[name].method == "planner", by[name].message
        assert_evidence_checks_out(bundle, tests, by[name])
    assert by["reachable-ok"].verdict is Verdict.PASS and by["reachable-ok"].evidence.validation.valid


def test_without_the_planner_a_stopped_exploration_is_unproven_and_says_why(lamps):
    bundle, tests = lamps
    report = run_tests(bundle.domain, tests.select(["never-ok"]), settings=TestSettings(state_budget=2, planner=False))
    (result,) = report.results
    assert result.verdict is Verdict.UNPROVEN
    assert "state budget 2 reached after 2 states" in result.message


def test_cases_can_be_chosen_and_progress_is_reported(lamps):
    from domain_drafter.core.tasks import TaskState

    bundle, tests = lamps
    seen = []
    report = run_tests(bundle.domain, tests, cases=["plan-ok", "never-ok"],
                       task=TaskState(lambda done, total, msg: seen.append((done, total))))
    assert [r.name for r in report.results] == ["plan-ok", "never-ok"]
    assert seen[-1] == (2, 2)


def test_cancel_stops_the_run(lamps):
    from domain_drafter.core.tasks import Cancelled, TaskState

    bundle, tests = lamps
    task = TaskState()
    task.cancel()
    with pytest.raises(Cancelled):
        run_tests(bundle.domain, tests, task=task)


def test_states_are_cached_on_disk_between_runs(lamps, tmp_path):
    from domain_drafter.planning.state_cache import StateCache

    bundle, tests = lamps
    first = StateCache(tmp_path)
    run_tests(bundle.domain, tests, domain_text=bundle.domain_text, states=first)
    second = StateCache(tmp_path)
    again = run_tests(bundle.domain, tests, domain_text=bundle.domain_text, states=second)
    assert second.hits >= 2 and second.misses == 0
    assert [r.verdict for r in again.results] == [r.verdict for r in run_tests(bundle.domain, tests).results]
