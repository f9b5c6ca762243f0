"""`bench run --generators N`: generator processes with their own loaded model (the tiny real GGUF), handed one
task at a time, every row written by the parent. A generator killed mid-run (SIGKILL from the test: the one
fault a test cannot cause otherwise) is restarted once and its task retried; killed twice, the run stops
with the reason and --resume finishes it."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from bench_helpers import write_spec
from test_bench_signals import SCRIPT, group_members, judged

from domain_drafter.bench.runner import machine_cores, run_experiment
from domain_drafter.bench.spec import load_spec
from domain_drafter.cli import main
from domain_drafter.core.errors import ModelError


def spec_on(tmp_path: Path, tiny_model: Path, domains: str = '["blocksworld", "gripper"]'):
    return load_spec(write_spec(tmp_path / "gen.toml", tiny_model, domains=domains,
                                extra="grammar = [true, false]\nthreads = 1"))


def answers(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(db) as conn:
        return {k: (a, s) for k, a, s in conn.execute("SELECT key, answer, status FROM tasks")}


def generators_of(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT json_extract(generation, '$.generator'), COUNT(*) FROM tasks GROUP BY 1"))


def generator_children(index: int) -> list[multiprocessing.Process]:
    return [p for p in multiprocessing.active_children() if p.name == f"domain-drafter generator {index}"]


def test_two_generators_write_the_same_answers_as_one(tmp_path, tiny_model, private_cache):
    spec = spec_on(tmp_path, tiny_model)
    one = run_experiment(spec, tmp_path / "one.sqlite", generators=1)
    two = run_experiment(spec, tmp_path / "two.sqlite", generators=2)
    assert one.evaluated == two.evaluated == one.total == 14
    assert answers(tmp_path / "two.sqlite") == answers(tmp_path / "one.sqlite")   # byte for byte
    assert set(generators_of(tmp_path / "two.sqlite")) <= {"generator 1", "generator 2"}
    assert sum(generators_of(tmp_path / "two.sqlite").values()) == 14
    assert generators_of(tmp_path / "one.sqlite") == {None: 14}   # in this process, as before
    assert not generator_children(1) and not generator_children(2)   # closed with the run


def kill_generator_1(times: int, killed: list[int], stop: threading.Event) -> None:
    """Kill the process of generator 1 each time one is alive, `times` times (a watcher thread)."""
    while len(killed) < times and not stop.is_set():
        for child in generator_children(1):
            if child.pid not in killed and child.is_alive():
                os.kill(child.pid, signal.SIGKILL)
                killed.append(child.pid)
        time.sleep(0.05)


def test_a_killed_generator_is_restarted_and_its_task_retried(tmp_path, tiny_model, private_cache):
    spec = spec_on(tmp_path, tiny_model, domains='["blocksworld", "gripper", "logistics", "depot"]')
    messages: list[str] = []
    killed: list[int] = []
    stop = threading.Event()

    def on_progress(p):
        messages.append(p.message)
        if p.generated >= 2 and not killed:   # mid-run: some answers are written, most are not
            kill_generator_1(1, killed, stop)

    summary = run_experiment(spec, tmp_path / "r.sqlite", generators=2, on_progress=on_progress)
    assert len(killed) == 1
    rows = answers(tmp_path / "r.sqlite")
    assert summary.evaluated == summary.total == len(rows) == len(spec.tasks())   # one row per task
    assert {s for _, s in rows.values()} == {"evaluated"}
    assert any("restarted" in m for m in messages), messages
    assert rows == answers_of_one(tmp_path, spec)   # the retried task got the same answer


def answers_of_one(tmp_path: Path, spec) -> dict[str, tuple]:
    run_experiment(spec, tmp_path / "baseline.sqlite", generators=1)
    return answers(tmp_path / "baseline.sqlite")


def test_a_generator_that_dies_twice_stops_the_run_and_resume_finishes_it(tmp_path, tiny_model, private_cache):
    spec = spec_on(tmp_path, tiny_model, domains='["blocksworld", "gripper", "logistics", "depot"]')
    killed: list[int] = []
    stop = threading.Event()
    watcher = threading.Thread(target=kill_generator_1, args=(2, killed, stop), daemon=True)
    watcher.start()
    try:
        with pytest.raises(ModelError) as caught:
            run_experiment(spec, tmp_path / "r.sqlite", generators=2)
    finally:
        stop.set()
        watcher.join(5)
    assert len(killed) == 2
    assert "generator 1" in caught.value.what and "second time" in caught.value.what
    assert "--resume" in caught.value.hint
    assert not generator_children(1) and not generator_children(2)
    done = run_experiment(spec, tmp_path / "r.sqlite", resume=True, generators=2)
    rows = answers(tmp_path / "r.sqlite")
    assert done.evaluated == done.total == len(rows) == len(spec.tasks())
    assert rows == answers_of_one(tmp_path, spec)


def test_more_generators_than_cores_is_allowed_with_a_warning(tmp_path, tiny_model, private_cache, capsys):
    spec = write_spec(tmp_path / "w.toml", tiny_model, domains='["gripper"]', extra="threads = 1")
    many = machine_cores() + 1
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "w.sqlite"), "--generators", str(many),
                 "--plain"]) == 0
    err = capsys.readouterr().err
    assert f"{many} generator process(es)" in err
    assert "warning:" in err and "slower" in err
    assert set(generators_of(tmp_path / "w.sqlite")) <= {f"generator {i}" for i in range(1, many + 1)}


def test_sigterm_stops_the_generators_and_leaves_no_process(tmp_path, tiny_model):
    spec = write_spec(tmp_path / "sig.toml", tiny_model, prompts=2, max_tokens=64, extra="threads = 1")
    out = tmp_path / "sig.sqlite"
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"))
    proc = subprocess.Popen([str(SCRIPT), "bench", "run", str(spec), "--out", str(out), "--generators", "2",
                             "--plain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while judged(out) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run judged nothing within 120 s"
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and "--resume" in err
    deadline = time.monotonic() + 10
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert group_members(proc.pid) == []
    with sqlite3.connect(out) as conn:   # nothing half-written: every row is pending, generated or judged
        assert {s for (s,) in conn.execute("SELECT DISTINCT status FROM tasks")} <= {"pending", "generated",
                                                                                      "evaluated"}
    assert main(["bench", "run", str(spec), "--out", str(out), "--resume", "--generators", "2", "--plain"]) == 0
    assert judged(out) == len(load_spec(spec).tasks())


def line_of(path: Path, start: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if line.startswith(start))


@pytest.mark.parametrize(("text", "words"), [
    ("generators = 0\n", "'generators' must be at least 1"),
    ('generators = "2"\n', "'generators' must be int"),
])
def test_a_bad_generators_value_is_located(tmp_path, tiny_model, capsys, text, words):
    spec = write_spec(tmp_path / "bad.toml", tiny_model, extra=text)
    line = line_of(spec, "generators")
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    err = capsys.readouterr().err
    assert f"{spec}:{line}:" in err and words in err and "Traceback" not in err


def test_generators_below_one_on_the_command_line_is_refused(tmp_path, tiny_model, capsys):
    spec = write_spec(tmp_path / "g.toml", tiny_model)
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite"), "--generators", "0"]) == 2
    assert "--generators must be at least 1" in capsys.readouterr().err


def test_the_child_exits_with_its_parent(tiny_model):
    """A generator process watches its parent (bench/executors.py's watch), so a SIGKILLed run leaves none."""
    code = ("import time\n"
            "from domain_drafter.bench.generators import ProcessGenerator\n"
            "from domain_drafter.bench.spec import ExperimentSpec, ModelSpec\n"
            f"spec = ExperimentSpec('x', (ModelSpec('m', model={str(tiny_model)!r}),), threads=1)\n"
            "g = ProcessGenerator(spec, spec.models[0], 1)\n"
            "assert g._receive(None, 60)[0] == 'ready'\n"   # loaded, and waiting for its first task
            "print(g.pid, flush=True)\n"
            "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(proc.stdout.readline())
    proc.kill()
    proc.wait(10)
    deadline = time.monotonic() + 15
    while Path(f"/proc/{child}").exists() and "Z" not in Path(f"/proc/{child}/stat").read_text().split()[2]:
        assert time.monotonic() < deadline, "the generator process outlived its parent"
        time.sleep(0.1)
