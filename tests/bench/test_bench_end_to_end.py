"""The whole benchmark on the tiny real model: all 9 domains, 3 description classes, 2 prompts per
action (192 tasks), judged by K* in 2 worker processes, then the report files."""

from __future__ import annotations

import html
import json
import sqlite3

from bench_helpers import write_spec
from llama_server import serve_llama

from domain_drafter.bench.table import LAYOUT
from domain_drafter.cli import main

FIGURES = ("fig-class-shares", "fig-different-subclasses", "fig-classes-vs-size", "fig-description-classes",
           "fig-are-histogram")


def test_192_task_run_reports_tables_and_figures_that_match_the_database(tmp_path, tiny_model, private_cache,
                                                                          capsys):
    spec = write_spec(tmp_path / "e2e.toml", tiny_model, classes='["base", "flipped", "random"]', prompts=2,
                      workers=2)
    out = tmp_path / "e2e.sqlite"
    assert main(["bench", "run", str(spec), "--out", str(out), "--plain"]) == 0
    captured = capsys.readouterr()
    assert f"results: {out} (192/192 tasks judged" in captured.out
    assert "[bench] 192/192 judged" in captured.err   # plain progress lines when not on a terminal

    db = sqlite3.connect(out)
    assert db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM tasks").fetchone() == (192, 192)
    assert db.execute("SELECT DISTINCT status FROM tasks").fetchall() == [("evaluated",)]
    assert db.execute("SELECT COUNT(DISTINCT domain), COUNT(DISTINCT description_class) FROM tasks").fetchone() \
        == (9, 3)
    assert db.execute("SELECT COUNT(*) FROM tasks WHERE answer IS NULL OR prompt IS NULL OR result IS NULL"
                      ).fetchone() == (0,)
    run = db.execute("SELECT versions, machine, finished FROM runs").fetchone()
    assert "kstar" in json.loads(run[0]) and "llama.cpp" in json.loads(run[0]) and json.loads(run[1])["cpus"]
    machine = json.loads(run[1])
    assert machine["cpu"] and isinstance(machine["kernel_flags"], list)   # greedy answers can differ between CPUs
    assert run[2] is not None

    report = tmp_path / "report"
    assert main(["bench", "report", str(out), "--out", str(report), "--with-paper"]) == 0
    assert str(report / "report.html") in capsys.readouterr().out
    for name in ["table1.md", "table1.csv", "table1.json", "report.html"] + [f"{f}.{e}" for f in FIGURES
                                                                             for e in ("png", "svg")]:
        assert (report / name).is_file() and (report / name).stat().st_size > 0, name
    assert (report / "fig-class-shares.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert html.escape(machine["cpu"]) in (report / "report.html").read_text()

    table = json.loads((report / "table1.json").read_text())
    assert table["answers"] == {"tiny": 192}
    class_rows = [label for label, _, total in LAYOUT if total] + (["Evaluation error"] if "Evaluation error"
                                                                   in table["rows"] else [])
    assert abs(sum(table["rows"][label]["tiny"]["percent"] for label in class_rows) - 100.0) < 0.05
    assert sum(table["rows"][label]["tiny"]["count"] for label in class_rows) == 192
    for label, value, total in LAYOUT:
        column = "class" if total else "subclass"
        count = db.execute(f"SELECT COUNT(*) FROM tasks WHERE {column} = ?", (value,)).fetchone()[0]
        assert table["rows"][label]["tiny"]["count"] == count, label

    markdown = (report / "table1.md").read_text()
    assert "| paper SC |" in markdown and "| 12.34 |" in markdown   # the paper's Equivalent for StarCoder
    page = (report / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(FIGURES) and "http" not in page.split("<body>")[1]
    assert "| prompt format | completion |" in markdown and "<td>prompt format</td><td>completion</td>" in page

    assert main(["bench", "status", str(out), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["total"] == 192 and status["by_status"] == {"evaluated": 192}
    assert sum(status["by_system"]["tiny"].values()) == 192

    # The same experiment again without --resume is refused; with --resume there is nothing left to do.
    assert main(["bench", "run", str(spec), "--out", str(out), "--plain"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["bench", "run", str(spec), "--out", str(out), "--resume", "--plain"]) == 0
    assert "0 generated and 0 judged now" in capsys.readouterr().out


def test_corrective_retries_keep_every_round_and_judge_the_last_answer(tmp_path, tiny_model, private_cache):
    spec = write_spec(tmp_path / "retry.toml", tiny_model, domains='["gripper"]', extra="retries = 1")
    out = tmp_path / "retry.sqlite"
    assert main(["bench", "run", str(spec), "--out", str(out), "--plain"]) == 0
    db = sqlite3.connect(out)
    rows = db.execute("SELECT answer, generation, result, class FROM tasks").fetchall()
    assert len(rows) == 3
    for answer, generation, result, cls in rows:
        rounds = json.loads(generation)["rounds"]
        first = rounds[0]["evaluation"]["class"]
        # a failed check is told to the model once more; the stored verdict is the last round's
        assert len(rounds) == (2 if first in ("Syntax error", "Semantic error") else 1)
        if len(rounds) == 2:
            assert rounds[0]["diagnostic"]
        assert answer == rounds[-1]["answer"]
        assert json.loads(result)["class"] == cls == rounds[-1]["evaluation"]["class"]


def test_a_model_behind_an_openai_compatible_endpoint_is_benchmarked_the_same_way(tmp_path, tiny_model,
                                                                                  private_cache):
    with serve_llama(tiny_model, tmp_path / "server.log") as url:
        spec = tmp_path / "served.toml"
        spec.write_text(f"""
name = "served"
domains = ["gripper"]
max_tokens = 16
examples = 1
[[models]]
name = "served-tiny"
endpoint = "{url}"
""", encoding="utf-8")
        out = tmp_path / "served.sqlite"
        assert main(["bench", "run", str(spec), "--out", str(out), "--plain"]) == 0
    db = sqlite3.connect(out)
    rows = db.execute("SELECT system, status, json_extract(generation, '$.backend') FROM tasks").fetchall()
    assert len(rows) == 3
    assert all(system == "served-tiny" and status == "evaluated" and backend.startswith("http:")
               for system, status, backend in rows)
