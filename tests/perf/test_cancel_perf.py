"""How fast a stop is: K* cancelled from another thread, and Ctrl-C to a CLI `evaluate` (goal: exit 130 within 1 s)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.cli.test_cli import PUT_DOWN, SLOW_PROBLEM, processes_working_in
from tests.perf.conftest import median, report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.kstar import KStarPlanner, PlannerStatus

RUNS = 5


def test_kstar_cancel_latency():
    bundle = next(b for b in load_bundled() if b.name == "blocksworld")
    latencies = []
    for _ in range(RUNS):
        task = TaskState()
        cancelled_at: list[float] = []
        timer = threading.Timer(1.0, lambda cancelled_at=cancelled_at, task=task: (cancelled_at.append(time.monotonic()),
                                                                                task.cancel()))
        timer.start()
        result = KStarPlanner(k=100000, time_limit_s=120).plan(bundle.domain_text, SLOW_PROBLEM, task=task)
        latencies.append(time.monotonic() - cancelled_at[0])
        timer.join()
        assert result.status is PlannerStatus.CANCELLED
    report("K* cancelled from another thread (12 blocks, k = 100000)", [
        ("median cancel -> plan() returns", f"{median(latencies) * 1000:.0f} ms"),
        ("max", f"{max(latencies) * 1000:.0f} ms"),
    ])
    assert median(latencies) < 0.5


def test_ctrl_c_to_cli_evaluate_exits_130_within_a_second(tmp_path):
    bundle = next(b for b in load_bundled() if b.name == "blocksworld")
    folder = tmp_path / "slow"
    shutil.copytree(bundle.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "problems" / "p03.pddl").write_text(SLOW_PROBLEM)
    script = Path(sys.executable).parent / "domain-drafter"
    stops = []
    for run in range(RUNS):
        temp = tmp_path / f"tmp{run}"
        temp.mkdir()
        env = dict(os.environ, TMPDIR=str(temp), DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"))
        proc = subprocess.Popen([str(script), "evaluate", str(folder), "put-down", "--k", "100000"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                                text=True)
        proc.stdin.write(PUT_DOWN)
        proc.stdin.close()
        while not processes_working_in(temp):
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.02)
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
        stops.append(time.monotonic() - sent)
        assert code == 130 and processes_working_in(temp) == [] and list(temp.iterdir()) == []
    report("Ctrl-C to `domain-drafter evaluate` while K* plans", [
        ("median SIGINT -> exit 130", f"{median(stops) * 1000:.0f} ms"),
        ("max", f"{max(stops) * 1000:.0f} ms"),
    ])
    assert median(stops) < 1.0
