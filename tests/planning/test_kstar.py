"""Tests of the K* adapter against the real planner (no mocks): statuses, plans, limits, cancel, isolation."""

from __future__ import annotations

import logging
import os
import re
import stat
import sys
import threading
import time
from pathlib import Path

import pytest

from domain_drafter.core.tasks import TaskState
from domain_drafter.planning import exitcodes
from domain_drafter.planning.kstar import (
    KStarPlanner,
    PlannerResult,
    PlannerStatus,
)

BLOCKS_DOMAIN = """
(define (domain blocks)
  (:requirements :strips)
  (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
  (:action Pick-Up :parameters (?x)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down :parameters (?x)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action STACK :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y)))))
"""

BLOCKS_3 = """
(define (problem three) (:domain blocks)
  (:objects A b c)
  (:init (clear A) (ontable A) (clear b) (ontable b) (clear c) (ontable c) (handempty))
  (:goal (and (on a b) (on b c))))
"""

BLOCKS_UNSOLVABLE = """
(define (problem cycle) (:domain blocks)
  (:objects a b)
  (:init (clear a) (ontable a) (clear b) (ontable b) (handempty))
  (:goal (and (on a b) (on b a))))
"""

# Four towers of three to one tower of twelve: far too many plans for k=10000 in half a second.
BLOCKS_12 = """
(define (problem twelve) (:domain blocks)
  (:objects b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11)
  (:init (ontable b1) (on b7 b1) (on b10 b7) (clear b10) (ontable b0) (on b6 b0) (on b11 b6) (clear b11)
         (ontable b4) (on b5 b4) (on b2 b5) (clear b2) (ontable b8) (on b9 b8) (on b3 b9) (clear b3) (handempty))
  (:goal (and (on b0 b2) (on b1 b0) (on b6 b1) (on b10 b6) (on b11 b10) (on b5 b11) (on b9 b5) (on b3 b9)
              (on b8 b3) (on b4 b8) (on b7 b4))))
"""

GRIPPER_DOMAIN = """
(define (domain gripper) (:requirements :strips)
  (:predicates (room ?r) (ball ?b) (gripper ?g) (at-robby ?r) (at ?b ?r) (free ?g) (carry ?b ?g))
  (:action move :parameters (?from ?to)
    :precondition (and (room ?from) (room ?to) (at-robby ?from))
    :effect (and (at-robby ?to) (not (at-robby ?from))))
  (:action pick :parameters (?b ?r ?g)
    :precondition (and (ball ?b) (room ?r) (gripper ?g) (at ?b ?r) (at-robby ?r) (free ?g))
    :effect (and (carry ?b ?g) (not (at ?b ?r)) (not (free ?g))))
  (:action drop :parameters (?b ?r ?g)
    :precondition (and (ball ?b) (room ?r) (gripper ?g) (carry ?b ?g) (at-robby ?r))
    :effect (and (at ?b ?r) (free ?g) (not (carry ?b ?g)))))
"""

GRIPPER_4 = """
(define (problem four-balls) (:domain gripper)
  (:objects rooma roomb b1 b2 b3 b4 left right)
  (:init (room rooma) (room roomb) (ball b1) (ball b2) (ball b3) (ball b4) (gripper left) (gripper right)
         (at-robby rooma) (free left) (free right) (at b1 rooma) (at b2 rooma) (at b3 rooma) (at b4 rooma))
  (:goal (and (at b1 roomb) (at b2 roomb) (at b3 roomb) (at b4 roomb))))
"""

# `leave` deletes (at ?x) without requiring it. With invariant synthesis on, `at` becomes a
# multi-valued variable, the delete a conditional effect, and lmcut refuses the task (exit 34).
TRAP_DOMAIN = """
(define (domain trap) (:requirements :strips)
  (:predicates (at ?x) (conn ?x ?y) (lit ?x))
  (:action move :parameters (?x ?y) :precondition (and (at ?x) (conn ?x ?y))
    :effect (and (not (at ?x)) (at ?y)))
  (:action leave :parameters (?x) :precondition (lit ?x) :effect (not (at ?x))))
"""

TRAP_PROBLEM = """
(define (problem trap1) (:domain trap) (:objects a b c)
  (:init (at a) (conn a b) (conn b c) (conn b a) (lit b))
  (:goal (at c)))
"""

# A disjunctive precondition is split into two operators with the same name, so K* reports
# every plan twice (or more): the adapter must de-duplicate.
DISJUNCTIVE_DOMAIN = """
(define (domain disj) (:requirements :strips :disjunctive-preconditions)
  (:predicates (p) (q) (done))
  (:action finish :parameters () :precondition (or (p) (q)) :effect (done)))
"""

DISJUNCTIVE_PROBLEM = "(define (problem d1) (:domain disj) (:init (p) (q)) (:goal (done)))"

ONEWAY_DOMAIN = """
(define (domain oneway) (:requirements :strips)
  (:predicates (at ?x) (road ?x ?y))
  (:action drive :parameters (?x ?y) :precondition (and (at ?x) (road ?x ?y))
    :effect (and (not (at ?x)) (at ?y))))
"""

ONEWAY_PROBLEM = """
(define (problem three-routes) (:domain oneway) (:objects s a b g)
  (:init (at s) (road s a) (road s b) (road a g) (road b g) (road s g))
  (:goal (at g)))
"""

CONDITIONAL_DOMAIN = """
(define (domain cond) (:requirements :strips :conditional-effects)
  (:predicates (p) (q) (done))
  (:action a :parameters () :precondition () :effect (and (p) (when (p) (q))))
  (:action b :parameters () :precondition (q) :effect (done)))
"""

CONDITIONAL_PROBLEM = "(define (problem c1) (:domain cond) (:init) (:goal (done)))"

BROKEN_DOMAIN = """
(define (domain broken)
  (:predicates (on ?x ?y)
  (:action foo :parameters (?x) :precondition (on ?x ?x) :effect (not (on ?x ?x))))
"""


def simulate_blocks(plan: tuple[tuple[str, ...], ...], init: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """Apply a blocksworld plan step by step, asserting each precondition; return the final state."""
    state = set(init)
    for step in plan:
        name, *args = step
        if name == "pick-up":
            (x,) = args
            assert {("clear", x), ("ontable", x), ("handempty",)} <= state, step
            state -= {("ontable", x), ("clear", x), ("handempty",)}
            state |= {("holding", x)}
        elif name == "put-down":
            (x,) = args
            assert ("holding", x) in state, step
            state -= {("holding", x)}
            state |= {("clear", x), ("handempty",), ("ontable", x)}
        elif name == "stack":
            x, y = args
            assert {("holding", x), ("clear", y)} <= state, step
            state -= {("holding", x), ("clear", y)}
            state |= {("clear", x), ("handempty",), ("on", x, y)}
        elif name == "unstack":
            x, y = args
            assert {("on", x, y), ("clear", x), ("handempty",)} <= state, step
            state -= {("on", x, y), ("clear", x), ("handempty",)}
            state |= {("holding", x), ("clear", y)}
        else:
            raise AssertionError(f"unknown action {step}")
    return state


def group_processes(pgid: int) -> list[str]:
    """Every process (zombies included) still in process group `pgid`, as '<pid> <state>'."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                data = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            fields = data[data.rfind(b")") + 2:].split()
            if int(fields[2]) == pgid:
                found.append(f"{entry} {fields[0].decode()}")
    return found


def started_pids(caplog: pytest.LogCaptureFixture) -> list[int]:
    """PIDs of K* drivers the adapter logged as started."""
    return [int(m.group(1)) for r in caplog.records if (m := re.match(r"K\* pid (\d+)", r.getMessage()))]


def assert_no_leftovers(pid: int) -> None:
    """The driver is reaped and nothing of its process group (translator, search) is left, not even zombies."""
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # A killed translator or search whose driver died first is an orphan: init reaps its zombie, which on a loaded
    # machine can take a moment (measured: one zombie still there right after the driver was reaped).
    deadline = time.monotonic() + 5
    while group_processes(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group_processes(pid) == []


def test_solved_blocksworld_gives_distinct_lowercase_plans_sorted_by_cost(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="domain_drafter.planning")
    result = KStarPlanner(k=25, time_limit_s=20).plan(BLOCKS_DOMAIN, BLOCKS_3, label="p01")

    assert result.status is PlannerStatus.SOLVED and result.solved and not result.timed_out
    assert result.exit_code == exitcodes.SUCCESS
    assert len(result.plans) == 25
    assert len(set(result.plans)) == len(result.plans)
    assert result.plans[0] == (("pick-up", "b"), ("stack", "b", "c"), ("pick-up", "a"), ("stack", "a", "b"))
    for plan in result.plans:
        assert isinstance(plan, tuple) and all(isinstance(step, tuple) for step in plan)
        assert all(part == part.lower() and isinstance(part, str) and part for step in plan for part in step)
    # Unit costs: cost is the plan length, and K* lists the cheapest first.
    assert result.costs == tuple(float(len(p)) for p in result.plans)
    assert list(result.costs) == sorted(result.costs)
    init = {("clear", "a"), ("ontable", "a"), ("clear", "b"), ("ontable", "b"), ("clear", "c"), ("ontable", "c"),
            ("handempty",)}
    for plan in result.plans:
        assert {("on", "a", "b"), ("on", "b", "c")} <= simulate_blocks(plan, init)
    assert "p01" in result.message and "25" in result.message
    assert 0 < result.wall_time_s < 20
    assert 0 < len(result.log_tail) <= 2000
    assert "--invariant-generation-max-candidates" in result.command
    logged = [r.getMessage() for r in caplog.records if r.name == "domain_drafter.planning"]
    assert any("kstar_planner.driver.main" in line and "k=25" in line for line in logged)
    assert_no_leftovers(started_pids(caplog)[-1])


def test_gripper_plans_are_optimal_first_and_distinct() -> None:
    result = KStarPlanner(k=50).plan(GRIPPER_DOMAIN, GRIPPER_4, label="gripper")
    assert result.solved
    assert len(result.plans) == 50 == len(set(result.plans))
    assert len(result.plans[0]) == 11  # pick, pick, move, drop, drop, move, pick, pick, move, drop, drop
    assert {step[0] for plan in result.plans for step in plan} <= {"move", "pick", "drop"}
    assert list(result.costs) == sorted(result.costs)


def test_duplicate_plans_from_kstar_are_removed() -> None:
    result = KStarPlanner(k=10).plan(DISJUNCTIVE_DOMAIN, DISJUNCTIVE_PROBLEM)
    assert result.solved
    # K* returns 2 plans of cost 1, 4 of cost 2, 4 of cost 3; only 3 distinct action sequences.
    assert result.plans == ((("finish",),), (("finish",),) * 2, (("finish",),) * 3)
    assert result.costs == (1.0, 2.0, 3.0)


def test_fewer_plans_than_k_is_still_solved() -> None:
    result = KStarPlanner(k=100).plan(ONEWAY_DOMAIN, ONEWAY_PROBLEM)
    assert result.solved and result.exit_code == exitcodes.SUCCESS
    assert result.plans[0] == (("drive", "s", "g"),)
    assert set(result.plans[1:]) == {(("drive", "s", "a"), ("drive", "a", "g")),
                                     (("drive", "s", "b"), ("drive", "b", "g"))}


def test_unsolvable_problem_is_unsolvable_not_timeout() -> None:
    result = KStarPlanner(k=10, time_limit_s=20).plan(BLOCKS_DOMAIN, BLOCKS_UNSOLVABLE, label="cycle")
    assert result.status is PlannerStatus.UNSOLVABLE
    assert not result.solved and not result.timed_out
    assert result.exit_code in exitcodes.UNSOLVABLE
    assert result.plans == ()
    assert "unsolvable" in result.message and "cycle" in result.message


def test_delete_without_precondition_is_solved_thanks_to_no_invariant_synthesis() -> None:
    result = KStarPlanner(k=5).plan(TRAP_DOMAIN, TRAP_PROBLEM)
    assert result.status is PlannerStatus.SOLVED, result.message
    assert result.plans[0] == (("move", "a", "b"), ("move", "b", "c"))
    assert any(("leave", "b") in plan for plan in result.plans)


def test_syntax_error_is_translator_error_with_reason() -> None:
    result = KStarPlanner().plan(BROKEN_DOMAIN, BLOCKS_3, label="broken")
    assert result.status is PlannerStatus.TRANSLATOR_ERROR
    assert result.exit_code == exitcodes.TRANSLATE_CRITICAL_ERROR
    assert "Could not parse domain file" in result.message and "Missing ')'" in result.message
    assert result.plans == ()


def test_conditional_effects_are_reported_as_rejected_pddl() -> None:
    result = KStarPlanner().plan(CONDITIONAL_DOMAIN, CONDITIONAL_PROBLEM)
    assert result.status is PlannerStatus.TRANSLATOR_ERROR
    assert result.exit_code == exitcodes.SEARCH_UNSUPPORTED
    assert "conditional effects" in result.message


def test_time_limit_kills_the_planner(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="domain_drafter.planning")
    started = time.monotonic()
    result = KStarPlanner(k=10000, time_limit_s=0.5).plan(BLOCKS_DOMAIN, BLOCKS_12, label="p12")
    elapsed = time.monotonic() - started
    assert result.status is PlannerStatus.TIMEOUT and result.timed_out
    # Wide bounds a loaded 2-core CI meets; the time to stop is measured in tests/perf.
    assert 0.5 <= result.wall_time_s < 10 and elapsed < 10
    assert result.message == "K* timed out after 0.5 s on problem p12"
    assert result.exit_code is None and result.plans == ()
    assert_no_leftovers(started_pids(caplog)[-1])


def test_cancel_from_another_thread_stops_quickly_and_leaves_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="domain_drafter.planning")
    task = TaskState()
    cancelled_at: list[float] = []

    def cancel() -> None:
        cancelled_at.append(time.monotonic())
        task.cancel()

    timer = threading.Timer(0.8, cancel)  # the translator is done by then; the search is running
    timer.start()
    result = KStarPlanner(k=10000, time_limit_s=60).plan(BLOCKS_DOMAIN, BLOCKS_12, task=task, label="p12")
    returned_at = time.monotonic()
    timer.join()
    assert result.status is PlannerStatus.CANCELLED
    assert returned_at - cancelled_at[0] < 5  # wide bound for a loaded CI; tests/perf measures the latency
    assert result.plans == () and "cancelled" in result.message
    assert_no_leftovers(started_pids(caplog)[-1])


def test_cancelled_task_does_not_start_the_planner(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="domain_drafter.planning")
    task = TaskState()
    task.cancel()
    result = KStarPlanner().plan(BLOCKS_DOMAIN, BLOCKS_3, task=task)
    assert result.status is PlannerStatus.CANCELLED and result.command == ()
    assert started_pids(caplog) == []


def test_parallel_calls_are_isolated() -> None:
    planner = KStarPlanner(k=20)
    results: dict[str, PlannerResult] = {}

    def run(name: str, domain: str, problem: str) -> None:
        results[name] = planner.plan(domain, problem, label=name)

    threads = [threading.Thread(target=run, args=args) for args in
               [("blocks", BLOCKS_DOMAIN, BLOCKS_3), ("gripper", GRIPPER_DOMAIN, GRIPPER_4),
                ("blocks2", BLOCKS_DOMAIN, BLOCKS_3)]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(r.solved for r in results.values()), {n: r.message for n, r in results.items()}
    assert results["blocks"].plans == results["blocks2"].plans
    assert results["blocks"].plans[0][0] == ("pick-up", "b")
    assert {s[0] for p in results["gripper"].plans for s in p} <= {"move", "pick", "drop"}
    # plans.json is relative to each run's own temp dir (its cwd), so parallel runs never share it
    assert {r.command[-1] for r in results.values()} == {
        "kstar(lmcut(), k=20, dump_plan_files=false, json_file_to_dump=plans.json)"}


def test_missing_python_is_crashed_with_install_hint() -> None:
    result = KStarPlanner(python="/nonexistent/python").plan(BLOCKS_DOMAIN, BLOCKS_3)
    assert result.status is PlannerStatus.CRASHED and not result.solved
    assert "/nonexistent/python" in result.message and "pip install kstar-planner" in result.message
    assert result.exit_code is None


def test_interpreter_without_kstar_is_crashed_with_install_hint(tmp_path: Path) -> None:
    # A real interpreter that cannot see site-packages, hence no kstar_planner.
    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    bare.chmod(bare.stat().st_mode | stat.S_IXUSR)
    result = KStarPlanner(python=str(bare)).plan(BLOCKS_DOMAIN, BLOCKS_3)
    assert result.status is PlannerStatus.CRASHED
    assert "No module named" in result.message and "pip install kstar-planner" in result.message


def test_without_memory_limit_and_version() -> None:
    planner = KStarPlanner(k=3, memory_limit_mb=None)
    result = planner.plan(BLOCKS_DOMAIN, BLOCKS_3)
    assert result.solved and len(result.plans) == 3
    assert "--overall-memory-limit" not in result.command
    assert "--overall-memory-limit" in KStarPlanner(k=3).plan(BLOCKS_DOMAIN, BLOCKS_3).command
    assert re.match(r"kstar-planner \d+\.\d+\.\d+ \(driver .+\)$", planner.version)


def test_temp_dir_with_spaces_commas_and_parentheses_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    odd = tmp_path / "my plans, (draft) v2"
    odd.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(odd))
    planner = KStarPlanner(k=5)
    result = planner.plan(BLOCKS_DOMAIN, BLOCKS_3, label="odd")
    assert result.status is PlannerStatus.SOLVED, result.message
    assert len(result.plans) == 5
    search = result.command[-1]
    assert "json_file_to_dump=plans.json)" in search and str(odd) not in search
    assert list(odd.iterdir()) == []
