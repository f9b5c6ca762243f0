"""Benchmark evaluation throughput (answers/s): 1 vs 2 worker processes, and what the run's verdict
memo saves at realistic duplicate rates (greedy decoding repeats itself: the same prompt seeds differ
only by their context examples, so a model often writes the same action again)."""

from __future__ import annotations

import random
import shutil
import time

from tests.perf.conftest import report

from domain_drafter.bench.executors import open_executor
from domain_drafter.bench.runner import EvaluationQueue
from domain_drafter.bench.spec import BenchTask
from domain_drafter.bench.store import ResultsStore
from domain_drafter.bench.worker import warm_up
from domain_drafter.core.bundle import load_bundled


def answer_mix(n: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """n distinct answers like a small model's: 60% syntax/semantic errors, 40% parse and need K*."""
    rng = random.Random(seed)
    jobs = []
    actions = [(b, a) for b in load_bundled() for a in b.action_names]
    for i in range(n):
        bundle, action = actions[i % len(actions)]
        text = bundle.domain.action(action).to_pddl()
        kind = rng.random()
        if kind < 0.3:
            answer = text[: len(text) // 2] + f" ; cut {i}"                    # PError
        elif kind < 0.6:
            answer = text.replace("(and", f"(and (made-up-{i} ?x)", 1)          # PAError
        else:
            answer = text.replace("?", f"?v{i}_")                               # parses: K* decides
        jobs.append((bundle.name, action, answer))
    return jobs


def throughput(tmp_path, monkeypatch, name: str, jobs, workers: int) -> float:
    """answers/s of judging `jobs` through the runner's queue; a fresh verdict cache, warm reference plans."""
    cache = tmp_path / f"cache-{name}"
    if (tmp_path / "cache-warm" / "plans").is_dir():
        shutil.copytree(tmp_path / "cache-warm" / "plans", cache / "plans")
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(cache))
    with ResultsStore(tmp_path / f"{name}.sqlite") as store:
        run = store.start_run(name, "import", {}, name)
        tasks = [BenchTask("m", "m", False, d, a, "base", i) for i, (d, a, _) in enumerate(jobs)]
        store.add_tasks(run, tasks)
        for task, (_, _, answer) in zip(tasks, jobs):
            store.store_generation(task.key, answer, None, None)
        with open_executor(None, workers) as pool:
            for f in [pool.submit(warm_up) for _ in range(workers * 2)]:   # start the processes first
                f.result()
            queue = EvaluationQueue(store, pool, 100, 30.0, lambda result: None)
            start = time.perf_counter()
            for task, (domain, action, answer) in zip(tasks, jobs):
                queue.submit(task.key, domain, action, answer)
            queue.drain(None)
            seconds = time.perf_counter() - start
        assert store.count("evaluated") == len(jobs)
    return len(jobs) / seconds


def test_two_workers_and_the_verdict_memo_raise_throughput(tmp_path, monkeypatch):
    unique = answer_mix(96)
    # Reference plans are planned once per machine: warm them so every run pays the same.
    throughput(tmp_path, monkeypatch, "warm", [(d, a, b.domain.action(a).to_pddl()) for b in load_bundled()
                                               for d, a in [(b.name, x) for x in b.action_names]], 2)
    rows, rates = [], {}
    for workers in (1, 2):
        rates[workers] = throughput(tmp_path, monkeypatch, f"w{workers}", unique, workers)
        rows.append((f"{workers} worker process(es), 0% duplicates", f"{rates[workers]:.1f} answers/s"))
    for duplicates in (0.3, 0.6):
        rng = random.Random(1)
        distinct = unique[: int(len(unique) * (1 - duplicates))]
        jobs = list(distinct)
        jobs += [rng.choice(distinct) for _ in range(len(unique) - len(jobs))]
        rng.shuffle(jobs)
        rates[duplicates] = throughput(tmp_path, monkeypatch, f"d{duplicates}", jobs, 1)
        rows.append((f"1 worker, {duplicates:.0%} duplicates", f"{rates[duplicates]:.1f} answers/s "
                                                             f"({rates[duplicates] / rates[1]:.2f}x)"))
    rows.append(("2 workers / 1 worker", f"{rates[2] / rates[1]:.2f}x"))
    report("benchmark evaluation throughput (96 answers: 60% check errors, 40% judged by K*)", rows)
    assert rates[2] > 1.2 * rates[1]          # two processes on two cores
    assert rates[0.6] > 1.5 * rates[1]        # a repeated answer is not judged again
