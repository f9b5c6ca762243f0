"""A run SIGKILLed mid-way continues with --resume: one row per task, no stored answer generated again,
and the same table as a run that was never interrupted."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from bench_helpers import subclass_by_key, write_spec

from domain_drafter.bench.report import write_report
from domain_drafter.cli import main

# Prompt-cache reuse is off so every answer is independent of which prompt came before it:
# the resumed run starts with a cold cache, the uninterrupted one does not.
SPEC_EXTRA = "reuse_prompt_cache = false"
DOMAINS = '["blocksworld", "gripper", "miconic"]'


def _count(db_path, where: str) -> int:
    try:
        with sqlite3.connect(db_path, timeout=5) as db:
            return db.execute(f"SELECT COUNT(*) FROM tasks WHERE {where}").fetchone()[0]
    except sqlite3.OperationalError:   # the file or its tables do not exist yet
        return 0


def test_sigkill_then_resume_gives_one_row_per_task_and_the_uninterrupted_table(tmp_path, tiny_model,
                                                                               private_cache):
    spec = write_spec(tmp_path / "kill.toml", tiny_model, domains=DOMAINS, prompts=4, extra=SPEC_EXTRA)
    total = 4 * (4 + 3 + 4)
    killed = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "domain_drafter.cli", "bench", "run", str(spec), "--out",
                             str(killed), "--plain"], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=dict(os.environ))
    deadline = time.monotonic() + 180
    try:
        while _count(killed, "status != 'pending'") < 10:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)   # the runner and its worker processes, without warning
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    with sqlite3.connect(killed) as db:
        before = {k: (a, t) for k, a, t in db.execute(
            "SELECT key, answer, generated_at FROM tasks WHERE status != 'pending'")}
        left = db.execute("SELECT COUNT(*) FROM tasks WHERE status != 'evaluated'").fetchone()[0]
    assert len(before) >= 10 and left > 0, "killed mid-way"

    assert main(["bench", "run", str(spec), "--out", str(killed), "--resume", "--plain"]) == 0
    with sqlite3.connect(killed) as db:
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM tasks").fetchone() == (total, total)
        assert db.execute("SELECT DISTINCT status FROM tasks").fetchall() == [("evaluated",)]
        after = {k: (a, t) for k, a, t in db.execute("SELECT key, answer, generated_at FROM tasks")}
    assert {k: after[k] for k in before} == before   # stored answers were kept, not generated again

    clean = tmp_path / "clean.sqlite"
    assert main(["bench", "run", str(spec), "--out", str(clean), "--plain"]) == 0
    assert subclass_by_key(killed) == subclass_by_key(clean)   # both verdicts too
    assert all(v[2] is not None for v in subclass_by_key(killed).values())   # the paper's verdict for every task
    write_report(killed, tmp_path / "r1", figures=False)
    write_report(clean, tmp_path / "r2", figures=False)
    assert (tmp_path / "r1" / "table1.md").read_text() == (tmp_path / "r2" / "table1.md").read_text()


def test_max_minutes_stops_cleanly_and_resume_finishes(tmp_path, tiny_model, private_cache, capsys):
    spec = write_spec(tmp_path / "timed.toml", tiny_model, domains='["gripper", "miconic"]', prompts=2)
    out = tmp_path / "timed.sqlite"
    assert main(["bench", "run", str(spec), "--out", str(out), "--plain", "--max-minutes", "0.0001"]) == 1
    assert "add --resume to continue" in capsys.readouterr().err
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT COUNT(*) FROM tasks WHERE status = 'pending'").fetchone()[0] > 0
    assert main(["bench", "run", str(spec), "--out", str(out), "--plain", "--resume"]) == 0
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM tasks WHERE status = 'evaluated'"
                          ).fetchone() == (14, 14)
