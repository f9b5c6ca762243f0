"""Verdict and plan caches survive upgrades: foreign or damaged entries are misses, replaced; never exceptions."""

from __future__ import annotations

import json
import sqlite3

import pytest

import domain_drafter
from domain_drafter.core.classes import Subclass
from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions, Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner, PlannerStatus
from domain_drafter.planning.plan_cache import PlanCache

BLOCKS = "blocksworld"
PAPER = EvaluationOptions(equivalence=EquivalenceMode.PAPER)  # rows of the paper heuristic's reports


@pytest.fixture(scope="module")
def planner():
    return KStarPlanner(k=100, time_limit_s=60)


@pytest.fixture(scope="module")
def plan_cache(planner, tmp_path_factory):
    return PlanCache(planner, tmp_path_factory.mktemp("plans"))


def stored_rows(path) -> dict[str, str]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT key, report FROM verdicts").fetchall())


@pytest.mark.parametrize("damage", ["unknown-field", "not-json", "wrong-shape"])
def test_foreign_verdict_row_is_a_miss_and_is_replaced(bundles, planner, plan_cache, tmp_path, damage):
    bundle = bundles[BLOCKS]
    answer = bundle.domain.action("stack").to_pddl()
    path = tmp_path / "verdicts.sqlite"
    with Evaluator(PAPER, planner=planner, plan_cache=plan_cache, verdicts=VerdictCache(path)) as ev:
        first = ev.evaluate(bundle, "stack", answer)
        assert first.subclass is Subclass.EQUIVALENT and not first.cached
        key = ev.verdict_key(bundle, "stack", first.check.action)
    report = json.loads(stored_rows(path)[key])
    if damage == "unknown-field":  # a row written by a later version that knows more
        report["problems"][0]["peak_memory_mb"] = 12.5
        row = json.dumps(report)
    elif damage == "not-json":
        row = "\x00{not json"
    else:
        row = json.dumps(["a", "list"])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE verdicts SET report = ? WHERE key = ?", (row, key))
    fresh = VerdictCache(path)
    assert fresh.get(key) is None
    with Evaluator(PAPER, planner=planner, plan_cache=plan_cache, verdicts=fresh) as ev:
        again = ev.evaluate(bundle, "stack", answer)
    assert again.subclass is Subclass.EQUIVALENT and not again.cached
    assert json.loads(stored_rows(path)[key])["subclass"] == "Equivalent"
    with Evaluator(PAPER, planner=planner, plan_cache=plan_cache, verdicts=VerdictCache(path)) as ev:
        assert ev.evaluate(bundle, "stack", answer).cached


def test_verdict_key_changes_with_the_domain_drafter_version(bundles, planner, plan_cache, tmp_path, monkeypatch):
    bundle = bundles[BLOCKS]
    with Evaluator(PAPER, planner=planner, plan_cache=plan_cache,
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as ev:
        action = bundle.domain.action("stack")
        before = ev.verdict_key(bundle, "stack", action)
        monkeypatch.setattr(domain_drafter, "__version__", "999.0.0")
        assert ev.verdict_key(bundle, "stack", action) != before
    assert PlanCache(planner, tmp_path).key("d", "p") != PlanCache(planner, tmp_path).key("d", "q")


def test_plan_cache_key_changes_with_the_domain_drafter_version(planner, tmp_path, monkeypatch):
    cache = PlanCache(planner, tmp_path)
    before = cache.key("(define (domain d))", "(define (problem p))")
    monkeypatch.setattr(domain_drafter, "__version__", "999.0.0")
    assert cache.key("(define (domain d))", "(define (problem p))") != before


def test_damaged_plan_file_is_a_miss_and_is_replaced(bundles, planner, tmp_path):
    bundle = bundles[BLOCKS]
    problem = bundle.problems[0]
    cache = PlanCache(planner, tmp_path)
    solved = cache.plans(bundle.domain_text, problem.text)
    path = cache._path(cache.key(bundle.domain_text, problem.text))
    path.write_text(json.dumps({"status": "solved", "plans": [[1, 2]], "future": True}))
    again = PlanCache(planner, tmp_path)
    result = again.plans(bundle.domain_text, problem.text)
    assert result.status is PlannerStatus.SOLVED and result.plans == solved.plans
    assert (again.hits, again.misses) == (0, 1)
    assert json.loads(path.read_text())["plans"][0] == [list(step) for step in solved.plans[0]]


UNSOLVABLE = """(define (problem cycle) (:domain blocksworld) (:objects a b - block)
  (:init (clear a) (ontable a) (clear b) (ontable b) (handempty))
  (:goal (and (on a b) (on b a))))"""


def test_unsolvable_reference_problem_is_remembered(bundles, planner, tmp_path):
    bundle = bundles[BLOCKS]
    cache = PlanCache(planner, tmp_path)
    first = cache.plans(bundle.domain_text, UNSOLVABLE)
    assert first.status is PlannerStatus.UNSOLVABLE and (cache.hits, cache.misses) == (0, 1)
    other = PlanCache(planner, tmp_path)  # another process: from disk
    second = other.plans(bundle.domain_text, UNSOLVABLE)
    assert second.status is PlannerStatus.UNSOLVABLE and second.plans == ()
    assert (other.hits, other.misses) == (1, 0)
    assert second.message == "from the plan cache: " + first.message


def test_timed_out_reference_problem_is_remembered_for_that_limit_or_a_shorter_one(bundles, tmp_path):
    bundle = bundles[BLOCKS]
    problem = bundle.problems[1]
    quick = KStarPlanner(k=100, time_limit_s=0.001)
    cache = PlanCache(quick, tmp_path)
    assert cache.plans(bundle.domain_text, problem.text).status is PlannerStatus.TIMEOUT
    same = PlanCache(KStarPlanner(k=100, time_limit_s=0.001), tmp_path)
    assert same.plans(bundle.domain_text, problem.text).status is PlannerStatus.TIMEOUT
    assert (same.hits, same.misses) == (1, 0)
    longer = PlanCache(KStarPlanner(k=100, time_limit_s=60), tmp_path)
    assert longer.plans(bundle.domain_text, problem.text).status is PlannerStatus.SOLVED
    assert (longer.hits, longer.misses) == (0, 1)
