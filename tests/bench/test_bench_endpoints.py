"""A model served by a list of endpoints: real `llama_cpp.server` processes on the tiny GGUF. Tasks go to
whichever endpoint is free, the answers are the same as with one endpoint, and each row names the endpoint
that wrote it. An endpoint that refuses connections, and one that accepts and never answers, are taken out of
the rotation while the good one does the work. With a Dask executor the requests and the judging run on the
cluster's worker, with the same answers."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_server import serve_llama
from needs import require

from domain_drafter.bench.runner import run_experiment
from domain_drafter.bench.spec import load_spec
from domain_drafter.cli import main

DOMAINS = '["blocksworld", "gripper"]'


def endpoint_spec(path: Path, endpoint: str, *, parallel: int = 1, timeout_s: float = 60.0, grammar: str = "[true]"):
    path.write_text(f"""
name = "{path.stem}"
domains = {DOMAINS}
classes = ["base"]
max_tokens = 24
k = 10
examples = 1
time_limit_s = 20.0
grammar = {grammar}

[[models]]
name = "tiny"
endpoint = {endpoint}
parallel = {parallel}
timeout_s = {timeout_s}
""", encoding="utf-8")
    return path


def answers(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT key, answer FROM tasks WHERE status = 'evaluated'"))


def written_by(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT json_extract(generation, '$.generator'), COUNT(*) FROM tasks GROUP BY 1"))


@pytest.fixture(scope="module")
def two_servers(tiny_model, tmp_path_factory) -> Iterator[tuple[str, str]]:
    logs = tmp_path_factory.mktemp("servers")
    with serve_llama(tiny_model, logs / "a.log") as a, serve_llama(tiny_model, logs / "b.log") as b:
        yield a, b


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers: a server that hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        listener.close()


def test_two_endpoints_write_the_same_answers_as_one(tmp_path, two_servers, private_cache):
    a, b = two_servers
    one = run_experiment(load_spec(endpoint_spec(tmp_path / "one.toml", f'"{a}"')), tmp_path / "one.sqlite")
    both = run_experiment(load_spec(endpoint_spec(tmp_path / "two.toml", f'["{a}", "{b}"]')),
                          tmp_path / "two.sqlite")
    assert one.evaluated == both.evaluated == one.total == 7
    assert answers(tmp_path / "two.sqlite") == answers(tmp_path / "one.sqlite")
    assert set(written_by(tmp_path / "two.sqlite")) == {a, b}   # both served
    assert sum(written_by(tmp_path / "two.sqlite").values()) == 7


def test_parallel_requests_to_one_endpoint(tmp_path, two_servers, private_cache):
    a, _ = two_servers
    spec = load_spec(endpoint_spec(tmp_path / "p.toml", f'["{a}"]', parallel=2))
    summary = run_experiment(spec, tmp_path / "p.sqlite")
    assert summary.evaluated == summary.total == 7
    assert written_by(tmp_path / "p.sqlite") == {a: 7}
    one = run_experiment(load_spec(endpoint_spec(tmp_path / "s.toml", f'"{a}"')), tmp_path / "s.sqlite")
    assert one.evaluated == 7 and answers(tmp_path / "p.sqlite") == answers(tmp_path / "s.sqlite")


def test_a_refusing_and_a_hanging_endpoint_are_routed_around(tmp_path, two_servers, private_cache):
    good, _ = two_servers
    refusing = f"http://127.0.0.1:{free_port()}"   # nothing listens there
    notes: list[str] = []
    with silent_server() as hanging:
        spec = load_spec(endpoint_spec(tmp_path / "r.toml", f'["{refusing}", "{hanging}", "{good}"]', timeout_s=1.0))
        summary = run_experiment(spec, tmp_path / "r.sqlite", on_progress=lambda p: notes.append(p.message))
    assert summary.evaluated == summary.total == 7
    assert written_by(tmp_path / "r.sqlite") == {good: 7}
    assert any(refusing in n and "out of the rotation" in n for n in notes), notes
    assert any(hanging in n and "out of the rotation" in n for n in notes), notes
    one = run_experiment(load_spec(endpoint_spec(tmp_path / "g.toml", f'"{good}"')), tmp_path / "g.sqlite")
    assert one.evaluated == 7 and answers(tmp_path / "r.sqlite") == answers(tmp_path / "g.sqlite")


def test_every_endpoint_failing_stops_the_run_with_the_reasons(tmp_path, private_cache, capsys):
    dead = [f"http://127.0.0.1:{free_port()}" for _ in range(2)]
    spec = endpoint_spec(tmp_path / "d.toml", json.dumps(dead), timeout_s=1.0)
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "d.sqlite"), "--plain"]) != 0
    err = capsys.readouterr().err
    assert "every endpoint failed 3 times in a row" in err
    assert all(url in err for url in dead) and "--resume" in err and "Traceback" not in err


@pytest.mark.parametrize(("endpoint", "extra", "key", "words"), [
    ('[]', "", "endpoint", "needs exactly one of 'model'"),
    ('["http://a:1", "http://a:1"]', "", "endpoint", "distinct URLs"),
    ('["ftp://a:1"]', "", "endpoint", "is not an http(s) URL"),
    ('[1, 2]', "", "endpoint", "a list of distinct URLs"),
    ('"http://a:1"', "parallel = 0", "parallel", "'parallel' must be a whole number of at least 1"),
    ('"http://a:1"', "timeout_s = -1", "timeout_s", "'timeout_s' must be a positive number"),
])
def test_a_bad_endpoint_list_or_parallel_is_located(tmp_path, capsys, endpoint, extra, key, words):
    spec = tmp_path / "bad.toml"
    spec.write_text(f'name = "bad"\n\n[[models]]\nname = "first"\nmodel = "default"\n\n'
                    f'[[models]]\nname = "served"\nendpoint = {endpoint}\n{extra}\n', encoding="utf-8")
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    err = capsys.readouterr().err
    line = 9 if key == "endpoint" or not extra else 10   # the key's line in the second [[models]] table
    assert f"{spec}:{line}:" in err and "models entry 2" in err and words in err and "Traceback" not in err


def test_parallel_on_a_local_model_is_refused(tmp_path, capsys):
    spec = tmp_path / "local.toml"
    spec.write_text('name = "l"\n[[models]]\nname = "m"\nmodel = "default"\nparallel = 2\n', encoding="utf-8")
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    assert f"{spec}:5:" in capsys.readouterr().err


def test_dask_generates_and_judges_on_the_cluster_with_the_same_answers(tmp_path, two_servers, private_cache):
    require("distributed", "pip install 'dask[distributed]'")
    from distributed import LocalCluster

    a, _ = two_servers
    spec = load_spec(endpoint_spec(tmp_path / "k.toml", f'"{a}"', grammar="[true, false]"))
    plain = run_experiment(spec, tmp_path / "plain.sqlite")
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        on_dask = run_experiment(spec, tmp_path / "dask.sqlite", executor=f"dask://{address}")
    assert plain.evaluated == on_dask.evaluated == 14
    assert answers(tmp_path / "dask.sqlite") == answers(tmp_path / "plain.sqlite")
    with sqlite3.connect(tmp_path / "dask.sqlite") as db:
        generated_on = {json.loads(g)["worker_pid"] for (g,) in db.execute("SELECT generation FROM tasks")}
        judged_on = {json.loads(r)["worker_pid"] for (r,) in db.execute("SELECT result FROM tasks")}
    assert os.getpid() not in generated_on | judged_on   # both on the cluster's worker
    assert written_by(tmp_path / "dask.sqlite") == {a: 14}
