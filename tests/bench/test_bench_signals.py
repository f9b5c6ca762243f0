"""`bench run` stopped from outside: SIGTERM (a scheduler's or a service manager's stop) ends it
cleanly like Ctrl-C, and even SIGKILL, which gives it no time at all, leaves no worker process
behind. Real processes throughout: the CLI, its spawned evaluation pool, the tiny model.

Measured before the fix: a `bench run` started in the background (where SIGINT is ignored) and
then sent SIGTERM died at once, and its idle evaluation worker and multiprocessing's resource
tracker stayed alive, adopted by init, for as long as the machine ran.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench_helpers import write_spec

SCRIPT = Path(sys.executable).parent / "domain-drafter"


def group_members(pgid: int) -> list[int]:
    """Processes of process group `pgid` (from /proc: field 5 of /proc/PID/stat)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def judged(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT COUNT(*) FROM tasks WHERE status = 'evaluated'").fetchone()[0]
    except sqlite3.Error:   # not created yet
        return 0


def start_run(tmp_path: Path, tiny_model: Path, out: Path) -> subprocess.Popen:
    spec = write_spec(tmp_path / "sig.toml", tiny_model, prompts=2, max_tokens=64)
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"))
    proc = subprocess.Popen([str(SCRIPT), "bench", "run", str(spec), "--out", str(out), "--plain"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)   # its own process group: what it leaves is visible
    deadline = time.monotonic() + 120
    while judged(out) < 2:   # the pool is up and answers are being written
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run judged nothing within 120 s"
        time.sleep(0.1)
    return proc


def wait_for_empty_group(pgid: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return group_members(pgid)


def test_sigterm_stops_a_run_cleanly_and_resume_completes_it(tmp_path, tiny_model):
    out = tmp_path / "term.sqlite"
    proc = start_run(tmp_path, tiny_model, out)
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("bench run did not stop within 30 s of SIGTERM") from None
    assert proc.returncode == 130 and "stopped by a signal; add --resume to continue" in err
    assert wait_for_empty_group(proc.pid, 10) == []
    with sqlite3.connect(out) as conn:
        partial = conn.execute("SELECT COUNT(*) FROM tasks WHERE status = 'pending' AND answer IS NOT NULL").fetchone()
    assert partial == (0,)   # whole rows only
    resumed = subprocess.run([str(SCRIPT), "bench", "run", str(tmp_path / "sig.toml"), "--out", str(out), "--resume",
                              "--plain"], capture_output=True, text=True, timeout=600,
                             env=dict(os.environ, DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache")))
    assert resumed.returncode in (0, 1) and judged(out) == 64, resumed.stderr


def test_sigkill_of_a_run_leaves_no_worker_behind(tmp_path, tiny_model):
    proc = start_run(tmp_path, tiny_model, tmp_path / "kill.sqlite")
    assert len(group_members(proc.pid)) >= 2   # the run and its evaluation worker (and the tracker)
    proc.kill()
    proc.communicate(timeout=10)
    assert wait_for_empty_group(proc.pid, 10) == [], "processes of the killed run are still alive"
