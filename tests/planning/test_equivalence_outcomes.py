"""How per-problem outcomes combine: a proven NoPlan wins over another problem's error, and a decided
verdict cancels the sibling planner runs still going."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest

from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import ErrorKind
from domain_drafter.core.reader import read_problem
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.planning.equivalence import check_equivalence
from domain_drafter.planning.kstar import KStarPlanner, PlannerStatus
from domain_drafter.planning.plan_cache import PlanCache

# pick-up that never makes the hand hold the block: nothing can be stacked, every problem is unsolvable.
NO_HOLDING = "(holding ?x)"

# Twelve blocks in four towers to one tower: K* needs minutes for its plans; the test waits for seconds.
BLOCKS_12 = """(define (problem twelve) (:domain blocksworld)
  (:objects b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 - block)
  (:init (ontable b1) (on b7 b1) (on b10 b7) (clear b10) (ontable b0) (on b6 b0) (on b11 b6) (clear b11)
         (ontable b4) (on b5 b4) (on b2 b5) (clear b2) (ontable b8) (on b9 b8) (on b3 b9) (clear b3) (handempty))
  (:goal (and (on b0 b2) (on b1 b0) (on b6 b1) (on b10 b6) (on b11 b10) (on b5 b11) (on b9 b5) (on b3 b9)
              (on b8 b3) (on b4 b8) (on b7 b4))))"""


def no_holding_domain(bundle):
    pick_up = bundle.domain.action("pick-up")
    effect = tuple(l for l in pick_up.effect if str(l) != NO_HOLDING)
    assert len(effect) == len(pick_up.effect) - 1
    return bundle.domain.with_action(replace(pick_up, effect=effect))


def kstar_processes_in(folder) -> list[int]:
    """PIDs of processes whose working directory lies in `folder` (K* runs in its temp dir)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd").startswith(str(folder)):
                    found.append(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("broken_first", [True, False])
def test_proven_noplan_wins_over_another_problems_planner_error(bundles, tmp_path, broken_first):
    bundle = bundles["blocksworld"]
    p01, p02 = bundle.problems
    broken = replace(p01, text=p01.text.replace("(:init", "(:init (", 1))  # K*'s parser refuses it
    problems = [broken, p02] if broken_first else [p02, broken]
    planner = KStarPlanner(k=100, time_limit_s=60)
    report = check_equivalence(bundle.domain, no_holding_domain(bundle), problems, planner,
                               PlanCache(planner, tmp_path))
    assert report.error is None, report.error
    assert report.subclass is Subclass.NO_PLAN
    assert report.counterexample.problem == p02.name
    assert report.counterexample.planner_status is PlannerStatus.UNSOLVABLE


def test_without_a_proven_noplan_the_planner_error_is_reported(bundles, tmp_path):
    bundle = bundles["blocksworld"]
    p01, p02 = bundle.problems
    broken = replace(p01, text=p01.text.replace("(:init", "(:init (", 1))
    planner = KStarPlanner(k=100, time_limit_s=60)
    report = check_equivalence(bundle.domain, bundle.domain, [broken, p02], planner, PlanCache(planner, tmp_path))
    assert report.subclass is None
    assert report.error.message.startswith("the reference domain could not be planned on p01: K* translator rejected")
    assert report.error.kind is ErrorKind.PLANNER and report.error.where == "p01"


def test_a_decided_noplan_cancels_the_sibling_planner_runs(bundles, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    bundle = bundles["blocksworld"]
    slow_path = tmp_path / "p12.pddl"
    slow_path.write_text(BLOCKS_12)
    slow = replace(bundle.problems[0], name="p12", path=slow_path, text=BLOCKS_12, problem=read_problem(BLOCKS_12))
    planner = KStarPlanner(k=1000, time_limit_s=120)
    started = time.monotonic()
    report = check_equivalence(bundle.domain, no_holding_domain(bundle), [slow, bundle.problems[1]], planner,
                               PlanCache(planner, tmp_path / "plans"))
    elapsed = time.monotonic() - started
    assert report.subclass is Subclass.NO_PLAN and report.counterexample.problem == bundle.problems[1].name
    assert elapsed < 60, "the 12-block runs were cancelled, not waited for"
    assert [p.generated_status for p in report.problems] == [PlannerStatus.SKIPPED, PlannerStatus.UNSOLVABLE]
    assert report.problems[0].reference_plans == 0, "the 12-block reference run was cancelled"
    assert kstar_processes_in(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p12.pddl", "plans"]


def test_cancel_of_the_outer_task_raises_cancelled_and_leaves_nothing(bundles, tmp_path, monkeypatch):
    import tempfile
    import threading

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    bundle = bundles["blocksworld"]
    slow = replace(bundle.problems[0], name="p12", text=BLOCKS_12, problem=read_problem(BLOCKS_12))
    planner = KStarPlanner(k=100000, time_limit_s=120)
    task = TaskState()
    timer = threading.Timer(1.0, task.cancel)
    timer.start()
    with pytest.raises(Cancelled):
        check_equivalence(bundle.domain, bundle.domain, [slow, slow], planner, PlanCache(planner, tmp_path / "plans"),
                          task=task)
    timer.join()
    assert kstar_processes_in(tmp_path) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("kstar-")] == []
