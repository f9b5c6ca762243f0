"""Starter cases (issue 37, tests that grow with use): offered for a domain with few tests, each one a case the
real reader and runner take, passing on the domain as it is and failing on a wrong action; kept cases go to the
writable tests file (a bundled domain's user copy). Real K* (a private plan cache), real files."""

from __future__ import annotations

import shutil

import pytest

from domain_drafter.core import tests_files
from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import bundled_root, load_bundle_path
from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.core.errors import UsageError
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.core.tests_reader import load_tests
from domain_drafter.planning.domain_tests import Verdict, run_tests
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.starter_cases import (
    FEW_CASES,
    StarterSource,
    keep_starter,
    starter_cases,
    wants_starters,
)
from domain_drafter.planning.validator import PlanValidator

PICK_KEEPS_AT = """(:action pick :parameters (?obj - ball ?room - room ?g - gripper)
  :precondition (and (at ?obj ?room) (at-robby ?room) (free ?g))
  :effect (and (carry ?obj ?g) (not (free ?g))))"""


@pytest.fixture
def plans(tmp_path) -> PlanCache:
    return PlanCache(KStarPlanner(k=1, time_limit_s=30.0), tmp_path / "plans")


@pytest.fixture
def gripper(tmp_path):
    """A copy of gripper whose tests.toml was removed."""
    folder = tmp_path / "gripper"
    shutil.copytree(bundled_root() / "gripper", folder)
    (folder / "tests.toml").unlink()
    return load_bundle_path(folder)


def test_a_domain_without_tests_is_offered_its_goals_its_plans_and_its_invariants(gripper, plans):
    assert wants_starters(None)
    starters = starter_cases(gripper, None, plans=plans)
    by_source = {s: [x for x in starters.starters if x.source is s] for s in StarterSource}
    assert [x.id for x in by_source[StarterSource.GOAL]] == ["p01-stays-solvable", "p02-stays-solvable"]
    assert all(x.case.kind is CaseKind.REACHABLE and x.case.formula is None for x in by_source[StarterSource.GOAL])
    # the planner's plans, each valid on its problem
    assert [x.id for x in by_source[StarterSource.PLAN]] == ["p01-plan-stays-valid", "p02-plan-stays-valid"]
    for starter in by_source[StarterSource.PLAN]:
        problem = next(p.problem for p in gripper.problems if p.name == starter.case.problem)
        assert PlanValidator(gripper.domain, problem).validate(starter.case.plan).valid
    never = {x.id: str(x.case.formula) for x in by_source[StarterSource.INVARIANT]}
    assert never["never-at-with-carry"] == "(and (at ?ball ?room) (carry ?ball ?gripper))"
    assert never["never-two-at"] == "(and (at ?ball ?room) (at ?ball ?room2) (not (= ?room ?room2)))"
    assert never["never-carry-with-free"] == "(and (carry ?ball ?gripper) (free ?gripper))"
    assert starters.notes == ()


def test_every_starter_kept_passes_on_the_domain_and_a_wrong_pick_fails_the_invariant(gripper, plans):
    starters = starter_cases(gripper, None, plans=plans)
    for starter in starters.starters:
        path, name = keep_starter(gripper, starter)
        assert path == gripper.folder / "tests.toml" and name == starter.id
    tests = load_tests(gripper)
    assert tests.names == tuple(s.id for s in starters.starters)
    report = run_tests(gripper.domain, tests)
    assert {r.name: r.verdict for r in report.results} == {s.id: Verdict.PASS for s in starters.starters}
    mutant = gripper.domain.with_action(check_answer(PICK_KEEPS_AT, gripper.domain, "pick").action, replacing="pick")
    wrong = {r.name: r.verdict for r in run_tests(mutant, tests).results}
    assert wrong["never-at-with-carry"] is Verdict.FAIL
    assert wrong["p01-stays-solvable"] is Verdict.PASS   # what the mutant keeps still passes
    # now the tests hold every starter: none is offered again, and a full file wants none
    assert starter_cases(gripper, tests, plans=plans).starters == ()
    assert not wants_starters(tests) and len(tests.cases) >= FEW_CASES


def test_a_starter_whose_name_a_case_took_is_kept_under_a_free_name(gripper, plans):
    (gripper.folder / "tests.toml").write_text('[cases.p01-stays-solvable]\nproblem = "p02"\nkind = "reachable"\n',
                                               encoding="utf-8")
    tests = domain_tests_of(gripper)
    starters = starter_cases(gripper, tests, plans=None)
    ids = [s.id for s in starters.starters]
    # p02's goal is asked already (under p01's name); p01's is offered under a free name; no plan without a planner
    assert "p02-stays-solvable" not in ids and "p01-stays-solvable-1" in ids
    assert not any(s.source is StarterSource.PLAN for s in starters.starters)
    path, name = keep_starter(gripper, starters.find("p01-stays-solvable-1"))
    assert path == gripper.folder / "tests.toml"
    assert name == "p01-stays-solvable-1" and load_tests(gripper).names == ("p01-stays-solvable", name)
    with pytest.raises(UsageError, match="no starter case 'nope'"):
        starters.find("nope")


def test_keeping_a_starter_of_a_bundled_domain_writes_the_users_copy(bundles, plans, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    gripper = bundles["gripper"]
    shipped = (bundled_root() / "gripper" / "tests.toml").read_bytes()
    tests = domain_tests_of(gripper)
    starters = starter_cases(gripper, tests, plans=plans)
    kept = next(s for s in starters.starters if s.source is StarterSource.INVARIANT)
    path, name = keep_starter(gripper, kept)
    assert path == tmp_path / "data" / "domains" / "gripper" / "tests.toml" == tests_files.tests_file_of(gripper)
    assert (bundled_root() / "gripper" / "tests.toml").read_bytes() == shipped
    assert path.read_bytes().startswith(shipped.rstrip(b"\n")) and f"[cases.{name}]" in path.read_text()
