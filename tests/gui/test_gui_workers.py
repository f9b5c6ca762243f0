"""The generic worker: plain functions on Qt's global pool, with progress, tokens, errors and cancel."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThreadPool

from domain_drafter.core.errors import DomainError
from domain_drafter.core.tasks import TaskState
from domain_drafter.gui.workers import TaskRunner, TaskWorker


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
    with qtbot.waitSignal(runner.job_ended, timeout=5000) as ended:
        with qtbot.waitSignal(worker.signals.finished, timeout=5000) as blocker:
            runner.start(worker)
    assert ended.args == ["count_to", "finished"] and not runner.busy
    assert threading.main_thread().name not in blocker.args[0]   # it ran on a pool thread
    assert progress[-1] == (5, 5, "step 5")
    assert tokens == ["0", "1", "2", "3", "4"]


def test_drafter_errors_fail_with_their_message_and_bugs_with_the_exception(qtbot):
    runner = TaskRunner()
    for fn, expected in ((broken, "/somewhere: no domain.pddl in this folder"),
                         (buggy, "unexpected error in buggy: ZeroDivisionError: oops")):
        worker = TaskWorker(fn)
        with qtbot.waitSignal(worker.signals.failed, timeout=5000) as blocker:
            runner.start(worker)
        assert blocker.args == [expected]
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


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
