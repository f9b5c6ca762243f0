"""The generic worker: plain functions on Qt's global pool, with progress, tokens, errors and cancel."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QThreadPool

from domain_drafter.core.errors import DomainError
from domain_drafter.core.tasks import TaskState
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import JobKind, JobOutcome, TaskRunner, TaskWorker


def count_to(n: int, *, task: TaskState, on_token=None) -> list[str]:
    seen = []
    for i in range(n):
        task.check_cancelled()
        task.report(i + 1, n, f"step {i + 1}")
        if on_token is not None:
            on_token(str(i))
        seen.append(threading.current_thread().name)
    return seen


def wait_for_cancel(*, task: TaskState) -> None:
    while not task.wait(0.01):
        pass
    task.check_cancelled()


def broken(*, task: TaskState) -> None:
    raise DomainError("no domain.pddl in this folder", where="/somewhere")


def buggy(*, task: TaskState) -> None:
    raise ZeroDivisionError("oops")


def test_finished_carries_the_result_and_progress_and_tokens_arrive_in_order(qtbot):
    runner = TaskRunner()
    worker = TaskWorker(count_to, 5, streams_tokens=True)
    progress, tokens = [], []
    worker.signals.progress.connect(lambda d, t, m: progress.append((d, t, m)))
    worker.signals.token.connect(tokens.append)
    with qtbot.waitSignal(runner.job_ended, timeout=5000) as ended, \
            qtbot.waitSignal(worker.signals.finished, timeout=5000) as blocker:
        runner.start(worker)
    assert ended.args == [JobKind.OTHER, JobOutcome.FINISHED] and not runner.busy
    assert worker.outcome is JobOutcome.FINISHED and worker.name == "count_to"
    assert threading.main_thread().name not in blocker.args[0]   # it ran on a pool thread
    assert progress[-1] == (5, 5, "step 5")
    assert tokens == ["0", "1", "2", "3", "4"]


def test_a_failure_carries_the_exception_itself_and_one_place_words_it(qtbot):
    runner = TaskRunner()
    for fn, kind, message in ((broken, DomainError, "/somewhere: no domain.pddl in this folder"),
                              (buggy, ZeroDivisionError, "unexpected error: ZeroDivisionError: oops")):
        worker = TaskWorker(fn, kind=JobKind.OPEN)
        with qtbot.waitSignal(runner.job_ended, timeout=5000) as ended, \
                qtbot.waitSignal(worker.signals.failed, timeout=5000) as blocker:
            runner.start(worker)
        [error] = blocker.args
        assert type(error) is kind and worker.error is error
        assert describe_error(error).message == message
        assert ended.args == [JobKind.OPEN, JobOutcome.FAILED]
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def test_shutdown_waits_for_its_own_workers_only(qtbot):
    mine, theirs = TaskRunner(), TaskRunner()
    release = threading.Event()
    theirs.start(TaskWorker(lambda *, task: release.wait(10)))
    worker = mine.start(TaskWorker(wait_for_cancel))
    started = time.monotonic()
    assert mine.shutdown(2000) and worker.ended.is_set()
    assert time.monotonic() - started < 1.0 and theirs.busy      # the other runner's job was not waited for
    release.set()
    assert theirs.wait(5000)
    qtbot.waitUntil(lambda: not theirs.busy and not mine.busy, timeout=2000)


def test_cancel_stops_a_running_worker_and_shutdown_leaves_no_thread(qtbot):
    runner = TaskRunner()
    busy = []
    runner.busy_changed.connect(busy.append)
    worker = runner.start(TaskWorker(wait_for_cancel))
    assert runner.busy and runner.active == (worker,)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=2000):
        worker.cancel()
    assert runner.shutdown(2000)
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    qtbot.waitUntil(lambda: busy == [True, False], timeout=2000)


def test_a_worker_cancelled_before_it_starts_never_runs_the_function(qtbot):
    worker = TaskWorker(count_to, 3)
    worker.cancel()
    finished = []
    worker.signals.finished.connect(finished.append)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=2000):
        TaskRunner().start(worker)
    assert finished == []


def squares(n: int, *, task: TaskState, on_yield) -> int:
    """Hands over each square as a partial result, then returns how many it handed over."""
    for i in range(n):
        task.check_cancelled()
        on_yield((i, i * i, threading.current_thread().name))
    return n


def yield_until_cancelled(*, task: TaskState, on_yield) -> None:
    on_yield("first")
    wait_for_cancel(task=task)


def test_partial_results_travel_on_yielded_before_the_outcome_on_run_ended(qtbot):
    runner = TaskRunner()
    worker = TaskWorker(squares, 4, yields=True)
    seen = []
    worker.signals.yielded.connect(lambda item: seen.append(("yielded", item[:2])))
    worker.signals.finished.connect(lambda result: seen.append(("finished", result)))
    worker.signals.run_ended.connect(lambda outcome: seen.append(("run_ended", outcome)))   # before the wait's own
    with qtbot.waitSignal(worker.signals.run_ended, timeout=5000) as ended:
        runner.start(worker)
    [outcome] = ended.args
    assert outcome is JobOutcome.FINISHED and isinstance(outcome, JobOutcome)
    assert seen == [("yielded", (0, 0)), ("yielded", (1, 1)), ("yielded", (2, 4)), ("yielded", (3, 9)),
                    ("finished", 4), ("run_ended", JobOutcome.FINISHED)]
    qtbot.waitUntil(lambda: not runner.busy, timeout=2000)


def test_a_cancelled_worker_keeps_what_it_yielded_and_ends_cancelled(qtbot):
    runner = TaskRunner()
    worker = TaskWorker(yield_until_cancelled, yields=True)
    yielded = []
    worker.signals.yielded.connect(yielded.append)
    with qtbot.waitSignal(worker.signals.yielded, timeout=5000):
        runner.start(worker)
    with qtbot.waitSignal(worker.signals.run_ended, timeout=5000) as ended, \
            qtbot.waitSignal(runner.job_ended, timeout=5000) as job:
        worker.cancel()
    assert ended.args == [JobOutcome.CANCELLED] and job.args == [JobKind.OTHER, JobOutcome.CANCELLED]
    assert yielded == ["first"] and worker.outcome is JobOutcome.CANCELLED


def test_a_worker_that_does_not_yield_is_given_no_on_yield(qtbot):
    worker = TaskWorker(squares, 2)   # `yields` not set: squares lacks its on_yield and fails, typed
    with qtbot.waitSignal(worker.signals.run_ended, timeout=5000) as ended:
        TaskRunner().start(worker)
    assert ended.args == [JobOutcome.FAILED] and isinstance(worker.error, TypeError)
