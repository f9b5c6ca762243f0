"""Blind strategies in the benchmark (issue 37), on the tiny real model: drafted with the blind judge, stored
with the reference's verdict, and the blind columns in the strategy table; a bad `blind` value names its line."""

from __future__ import annotations

import json
import sqlite3

import pytest
from bench_helpers import write_spec

from domain_drafter.bench.spec import load_spec
from domain_drafter.cli import main

BLIND = '''grammar = [true]
blind = true
strategies = ["one-shot", "search"]
[search]
budget = 2
width = 2
children = 1
'''


def test_a_blind_run_stores_the_reference_verdict_and_the_blind_acceptance(tmp_path, tiny_model, private_cache):
    spec_path = write_spec(tmp_path / "blind.toml", tiny_model, domains='["heavy-pack"]', extra=BLIND)
    spec = load_spec(spec_path)
    assert spec.blind is True and spec.fingerprint != spec.with_overrides(blind=False).fingerprint
    out = tmp_path / "blind.sqlite"
    assert main(["bench", "run", str(spec_path), "--out", str(out), "--plain"]) == 0
    db = sqlite3.connect(out)
    rows = db.execute("SELECT system, class, generation FROM tasks ORDER BY ord").fetchall()
    assert len(rows) == 2 * 2 and all(cls is not None for _, cls, _ in rows)     # every answer judged by the reference
    for system, cls, generation in rows:    # cls: the reference's class
        record = json.loads(generation)
        assert record["blind"] is True and isinstance(record["blind_accepted"], bool)
        # accepted_at is the blind judge's call; equivalent_at only where the reference proves the accepted answer
        assert (record["accepted_at"] is not None) == record["blind_accepted"]
        assert record["equivalent_at"] in (None, record["accepted_at"])
        assert record["equivalent_at"] is None or (record["blind_accepted"] and cls == "Equivalent")
        nodes = record["search"]["nodes"]
        for n in nodes:                                  # the tree holds only the blind judge's verdicts: no proof
            assert n["are"] is None and (n["verdict"] == "passed the checks" or n["score"] == 0.0), n
        assert record["search"]["options"]["feedback"] == "checks"
        assert record["calls"] == (1 if system == "tiny +grammar" else 2)
    report = tmp_path / "report"
    assert main(["bench", "report", str(out), "--out", str(report)]) == 0
    table = (report / "strategies.md").read_text()
    for label in ("proven Equivalent %", "accepted by the blind judge", "false accepts (accepted, proven Different)",
                  "model calls per action"):
        assert f"| {label} |" in table
    stats = json.loads((report / "strategies.json").read_text())
    assert all(s["blind"] and 0 <= s["false_accepts"] <= s["blind_accepted"] <= s["tasks"] for s in stats)
    assert "accepted by the blind judge" in (report / "report.html").read_text()


@pytest.mark.parametrize("value", ['"yes"', "1", '"no_tests"', "[true]"])
def test_a_bad_blind_value_names_its_line_and_exits_3(tmp_path, tiny_model, value, capsys):
    spec = write_spec(tmp_path / "bad.toml", tiny_model, extra=f"blind = {value}\n")
    number = spec.read_text().splitlines().index(f"blind = {value}") + 1
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    err = capsys.readouterr().err
    assert "'blind' must be true, false or \"no-tests\"" in err and f"{spec}:{number}" in err, err


def test_blind_no_tests_is_a_valid_value(tmp_path, tiny_model):
    spec = load_spec(write_spec(tmp_path / "nt.toml", tiny_model, extra='blind = "no-tests"\n'))
    assert spec.blind == "no-tests"
    plain = load_spec(write_spec(tmp_path / "plain.toml", tiny_model))
    assert "blind" not in plain.to_dict()           # specs without it keep their fingerprint


def test_the_shipped_blind_specs_are_the_32_actions_in_three_blind_strategies():
    from pathlib import Path

    folder = Path(__file__).parents[2] / "resources" / "experiments"
    for name, blind in (("blind-qwen-coder-1.5b", True), ("blind-qwen-coder-1.5b-no-tests", "no-tests")):
        spec = load_spec(folder / f"{name}.toml")
        assert spec.blind == blind and spec.grammar == (True,) and spec.search["budget"] == 16
        assert len(spec.tasks()) == 32 * 3 and spec.strategies == ("one-shot", "search", "guided-search")
