"""Soak: a long benchmark on generator processes, stopped and resumed again and again, as a researcher's
experiment 1 is over a week of evenings. Seconds-long tests cannot see a process, a pipe or a thread left
behind per stop, or a task lost or written twice across many resumes.

128 tasks on the tiny model (all 32 actions, base and flipped descriptions, free and grammar decoding,
one prompt each), 2 generators, cancelled after every 9 answers and resumed, until done.
Asserted after every stop: no generator process is left, the parent's open file descriptors and threads
are back where they were; at the end: one row per task, every one judged, and the answers are those of
one uninterrupted run with one generator.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sqlite3
import threading

from bench_helpers import write_spec

from domain_drafter.bench.runner import run_experiment
from domain_drafter.bench.spec import load_spec
from domain_drafter.core.tasks import TaskState

STOP_EVERY = 9   # answers written per session before it is stopped


def open_fds() -> dict[str, str]:
    """This process's open file descriptors and what each points at."""
    out = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            out[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:   # the descriptor listdir itself used
            pass
    return out


def generator_processes() -> list:
    return [p for p in multiprocessing.active_children() if p.name.startswith("domain-drafter generator")]


def test_many_stopped_and_resumed_sessions_on_two_generators(tmp_path, tiny_model, private_cache):
    spec = load_spec(write_spec(tmp_path / "soak.toml", tiny_model, classes='["base", "flipped"]', max_tokens=16,
                                extra="grammar = [false, true]\nthreads = 1"))
    total = len(spec.tasks())
    assert total == 128
    out = tmp_path / "soak.sqlite"
    run_experiment(spec, tmp_path / "warm.sqlite", generators=2)   # imports, caches and pools warmed once
    fds, threads = open_fds(), threading.active_count()
    sessions = 0
    while True:
        task = TaskState()
        with contextlib.closing(sqlite3.connect(out)) as db:   # (no tasks table before the first session: 0)
            done_before = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'tasks'").fetchone()[0] and \
                db.execute("SELECT COUNT(*) FROM tasks WHERE status != 'pending'").fetchone()[0]

        def stop_after_some(p, task=task, done_before=done_before):
            if p.generated - done_before >= STOP_EVERY:
                task.cancel()

        summary = run_experiment(spec, out, resume=sessions > 0, generators=2, task=task, on_progress=stop_after_some)
        sessions += 1
        assert generator_processes() == [], f"session {sessions} left generator processes"
        new = {k: v for k, v in open_fds().items() if fds.get(k) != v}
        assert len(new) <= 2, f"session {sessions} left file descriptors open: {new}"
        assert threading.active_count() <= threads + 1
        if not summary.cancelled:
            break
        assert sessions < 40, "the run does not get anywhere"
    assert sessions >= 5   # it really was stopped and resumed many times
    with sqlite3.connect(out) as db:
        rows = dict(db.execute("SELECT key, answer FROM tasks WHERE status = 'evaluated'"))
        assert db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0] == total
    assert len(rows) == total
    run_experiment(spec, tmp_path / "one.sqlite", generators=1)
    with sqlite3.connect(tmp_path / "one.sqlite") as db:
        assert rows == dict(db.execute("SELECT key, answer FROM tasks"))

