"""`bench run --batch B` (issue 16 item 4): B answers in flight in one llama.cpp batch on the tiny model.

On the tiny model (plain F32 weights) the answers must be those of a one-at-a-time run; a stop
mid-batch stores only finished answers (the rest stay pending) and --resume completes the run.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3

from bench_helpers import write_spec

from domain_drafter.bench.runner import run_experiment
from domain_drafter.bench.spec import load_spec
from domain_drafter.bench.table import build_table, load_results, to_csv, to_json, to_markdown
from domain_drafter.cli import main
from domain_drafter.core.tasks import TaskState

DOMAINS = '["blocksworld"]'


def answers(db_path) -> dict[str, str]:
    with sqlite3.connect(db_path) as db:
        return dict(db.execute("SELECT key, answer FROM tasks"))


def generation_meta(db_path) -> list[dict]:
    with sqlite3.connect(db_path) as db:
        return [json.loads(g) for (g,) in db.execute("SELECT generation FROM tasks WHERE generation IS NOT NULL")]


def test_batched_run_stores_the_one_at_a_time_answers(tmp_path, tiny_model, private_cache):
    spec = write_spec(tmp_path / "b.toml", tiny_model, domains=DOMAINS, prompts=2, extra='grammar = [false, true]')
    one, three = tmp_path / "one.sqlite", tmp_path / "three.sqlite"
    assert main(["bench", "run", str(spec), "--out", str(one), "--batch", "1", "--plain"]) in (0, 1)
    assert main(["bench", "run", str(spec), "--out", str(three), "--batch", "3", "--plain"]) in (0, 1)
    a1, a3 = answers(one), answers(three)
    assert len(a1) == 16 and all(a1.values())
    assert a3 == a1
    assert {m["batch"] for m in generation_meta(one)} == {1} and {m["batch"] for m in generation_meta(three)} == {3}
    assert {m["prompt_format"] for m in generation_meta(three)} == {"completion"}
    with sqlite3.connect(three) as db:
        (recorded,) = db.execute("SELECT spec FROM runs").fetchone()
    assert json.loads(recorded)["batch"] == 3   # the run's spec record says how it was generated


def test_batch_one_keeps_the_old_fingerprint_and_a_bigger_batch_is_another_experiment(tmp_path, tiny_model):
    import hashlib

    spec = load_spec(write_spec(tmp_path / "f.toml", tiny_model, extra="batch = 2"))
    assert spec.batch == 2
    one = spec.with_overrides(batch=1)
    before = {k: v for k, v in one.to_dict().items() if k not in ("batch", "workers", "threads", "description")}
    assert one.fingerprint == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
    assert spec.fingerprint != one.fingerprint and spec.fingerprint != spec.with_overrides(batch=8).fingerprint
    assert spec.fingerprint == spec.with_overrides(workers=3).fingerprint


def test_a_stop_mid_batch_leaves_unfinished_tasks_pending_and_resume_completes(tmp_path, tiny_model, private_cache):
    spec = load_spec(write_spec(tmp_path / "s.toml", tiny_model, domains=DOMAINS, prompts=3, max_tokens=64))
    spec = spec.with_overrides(batch=3)
    out = tmp_path / "stopped.sqlite"
    task = TaskState()

    def stop_after_four(progress) -> None:
        if progress.generated >= 4:
            task.cancel()

    summary = run_experiment(spec, out, task=task, on_progress=stop_after_four)
    assert summary.cancelled
    with sqlite3.connect(out) as db:
        statuses = dict(db.execute("SELECT status, COUNT(*) FROM tasks GROUP BY status"))
        assert db.execute("SELECT COUNT(*) FROM tasks WHERE status = 'pending' AND answer IS NOT NULL"
                          ).fetchone() == (0,)
    assert 4 <= 12 - statuses.get("pending", 0) < 12
    summary = run_experiment(spec, out, resume=True)
    assert summary.evaluated == 12 and not summary.cancelled
    sequential = tmp_path / "sequential.sqlite"
    run_experiment(spec.with_overrides(batch=1), sequential)
    assert answers(out) == answers(sequential)


def test_prompt_format_per_model_is_used_and_recorded(tmp_path, private_cache):
    from tiny_gguf import CHATML_TEMPLATE, write_tiny_llama

    from domain_drafter.core.errors import DomainError

    chat_model = write_tiny_llama(tmp_path / "chat.gguf", chat_template=CHATML_TEMPLATE)
    spec_path = write_spec(tmp_path / "c.toml", chat_model, domains=DOMAINS, max_tokens=8)
    spec_path.write_text(spec_path.read_text() + 'prompt_format = "chat"\n')
    spec = load_spec(spec_path)
    assert spec.models[0].prompt_format == "chat"
    out = tmp_path / "chat.sqlite"
    run_experiment(spec, out)
    assert {m["prompt_format"] for m in generation_meta(out)} == {"chat"}
    with sqlite3.connect(out) as db:
        (recorded,) = db.execute("SELECT spec FROM runs").fetchone()
    assert json.loads(recorded)["models"][0]["prompt_format"] == "chat"
    assert all(m["stats"]["prompt_tokens"] > 0 for m in generation_meta(out))
    table = build_table(load_results(out))          # Table 1 says which format the column used
    assert table.formats == {table.systems[0]: "chat"}
    assert "| prompt format | chat |" in to_markdown(table)
    assert json.loads(to_json(table))["prompt_formats"] == {table.systems[0]: "chat"}
    assert next(r for r in csv.reader(io.StringIO(to_csv(table)))
                                                 if r[0] == "prompt format") == ["prompt format", "chat", ""]
    spec_path.write_text(spec_path.read_text().replace('"chat"', '"dialogue"'))
    try:
        load_spec(spec_path)
    except DomainError as e:
        assert "prompt_format must be one of completion, chat" in e.what
    else:
        raise AssertionError("an unknown prompt_format was accepted")
