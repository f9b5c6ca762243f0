"""The evaluation queue: Stop leaves unjudged answers stored as 'generated' (never lost), and a later
queue over the same file judges exactly those."""

from __future__ import annotations

from domain_drafter.bench.executors import open_executor
from domain_drafter.bench.runner import EvaluationQueue
from domain_drafter.bench.spec import BenchTask
from domain_drafter.bench.store import ResultsStore
from domain_drafter.core.tasks import TaskState


def test_stop_keeps_unjudged_answers_for_resume(tmp_path, bundles, private_cache):
    gripper = bundles["gripper"]
    jobs = [("gripper", a, gripper.domain.action(a).to_pddl()) for a in gripper.action_names]
    tasks = [BenchTask("m", "m", False, d, a, "base", 0) for d, a, _ in jobs]
    stored: list[dict] = []
    with ResultsStore(tmp_path / "q.sqlite") as store:
        run = store.start_run("q", "import", {}, "q")
        store.add_tasks(run, tasks)
        for task, (_, _, answer) in zip(tasks, jobs):
            store.store_generation(task.key, answer, None, None)
        stop = TaskState()
        with open_executor(None, 1) as pool:
            queue = EvaluationQueue(store, pool, 100, 30.0, stored.append)
            for task, (d, a, answer) in zip(tasks, jobs):
                queue.submit(task.key, d, a, answer)
            stop.cancel()
            queue.drain(stop)   # the job already running may finish; queued ones are cancelled
        assert not queue.inflight
        left = store.count("generated")
        assert left >= 1 and store.count("evaluated") == len(stored) == len(jobs) - left

        with open_executor(None, 1) as pool:
            again = EvaluationQueue(store, pool, 100, 30.0, stored.append)
            for row in store.tasks_with_status("generated"):
                again.submit(row["key"], row["domain"], row["action"], row["answer"])
            again.drain(None)
        assert store.count("evaluated") == len(jobs) == len(stored)
        assert {r["subclass"] for r in stored} == {"Equivalent"}


def test_a_job_that_cannot_be_judged_becomes_an_evaluation_error_not_a_crash(tmp_path, private_cache):
    from domain_drafter.bench.worker import EvaluationJob, evaluate_job

    missing = evaluate_job(EvaluationJob(str(tmp_path / "no-such-domain"), "move", "(:action move)"))
    assert missing["subclass"] is None and "no such file or folder" in missing["error"]
    odd = evaluate_job(EvaluationJob("gripper", "move", None))   # not even text: a bug upstream, not a crash
    assert odd["subclass"] is None and odd["error"] and odd["message"] == "internal error while judging this answer"
