"""Generation throughput of `bench run` (issue 24), with the default model (Gemma-3 270M), on the same 16
grammar tasks (blocksworld, depot, gripper, miconic; base descriptions, seed 0), each configuration in the
same process one after the other:
- `--generators 2` against `--generators 1`, one llama.cpp thread per generator;
- two local `llama_cpp.server` processes (one thread each) as a two-endpoint list, against one of them.
Answers per minute are the tasks over the whole run's wall time (loading, generation and judging: what a
user waits for). The answers must be byte-identical. The ratios are printed; the issue asks for 1.8x.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from llama_server import serve_llama
from tests.perf.conftest import report

from domain_drafter.bench.runner import machine_cores, run_experiment
from domain_drafter.bench.spec import load_spec

DOMAINS = '["blocksworld", "depot", "gripper", "miconic"]'


def spec_text(name: str, model_line: str) -> str:
    return f"""
name = "{name}"
domains = {DOMAINS}
classes = ["base"]
grammar = [true]
threads = 1
max_tokens = 300

[[models]]
name = "gemma-3-270m"
{model_line}
"""


def answers(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT key, answer FROM tasks"))


def steady_rate(db: Path) -> float:
    """Answers per minute from the first answer to the last (loading and the last judging left out)."""
    with sqlite3.connect(db) as conn:
        first, last, n = conn.execute("SELECT MIN(generated_at), MAX(generated_at), COUNT(*) FROM tasks").fetchone()
    return (n - 1) * 60.0 / (last - first)


def timed_run(tmp_path: Path, name: str, model_line: str, **options) -> tuple[float, dict[str, str]]:
    spec_path = tmp_path / f"{name}.toml"
    spec_path.write_text(spec_text(name, model_line), encoding="utf-8")
    spec = load_spec(spec_path)
    start = time.perf_counter()
    summary = run_experiment(spec, tmp_path / f"{name}.sqlite", **options)
    seconds = time.perf_counter() - start
    assert summary.evaluated == summary.total == 16
    return 16 * 60.0 / seconds, answers(tmp_path / f"{name}.sqlite")


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))


def test_two_generators_against_one(tmp_path, cache):
    from domain_drafter.llm.models import default_model_path

    model = f'model = "{default_model_path()}"'
    one, first = timed_run(tmp_path, "one", model, generators=1)
    two, second = timed_run(tmp_path, "two", model, generators=2)
    steady = [steady_rate(tmp_path / f"{n}.sqlite") for n in ("one", "two")]
    report("bench run --generators (Gemma-3 270M, 16 grammar tasks, 1 thread each)", [
        ("cores", str(machine_cores())),
        ("--generators 1", f"{one:.1f} answers/min ({steady[0]:.1f} first to last answer)"),
        ("--generators 2", f"{two:.1f} answers/min ({steady[1]:.1f} first to last answer)"),
        ("ratio", f"{two / one:.2f}x whole run, {steady[1] / steady[0]:.2f}x first to last answer"),
        ("answers identical", str(second == first)),
    ])
    assert second == first
    assert two / one > 1.2   # the goal is 1.8x on 2 free cores; a loaded machine gives less


def test_two_endpoints_against_one(tmp_path, cache):
    from domain_drafter.llm.models import default_model_path

    threads = ("--n_threads", "1", "--n_threads_batch", "1")
    with serve_llama(default_model_path(), tmp_path / "a.log", extra_args=threads) as a, \
            serve_llama(default_model_path(), tmp_path / "b.log", extra_args=threads) as b:
        one, first = timed_run(tmp_path, "one-endpoint", f'endpoint = "{a}"')
        two, second = timed_run(tmp_path, "two-endpoints", f'endpoint = ["{a}", "{b}"]')
    steady = [steady_rate(tmp_path / f"{n}.sqlite") for n in ("one-endpoint", "two-endpoints")]
    report("bench run on llama_cpp.server endpoints (Gemma-3 270M, 16 grammar tasks, 1 thread per server)", [
        ("one endpoint", f"{one:.1f} answers/min ({steady[0]:.1f} first to last answer)"),
        ("two endpoints", f"{two:.1f} answers/min ({steady[1]:.1f} first to last answer)"),
        ("ratio", f"{two / one:.2f}x whole run, {steady[1] / steady[0]:.2f}x first to last answer"),
        ("answers identical", str(second == first)),
    ])
    assert second == first
    assert two / one > 1.2
