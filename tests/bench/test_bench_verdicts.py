"""Both verdicts per task in the results file (METHOD 6 and 6a): stored side by side, counted in Table 1 and
report.html, old files opened (their verdicts are the paper's), newer files refused, and stored answers
re-judged without generating them again."""

from __future__ import annotations

import json
import sqlite3

import pytest
from bench_helpers import write_spec

from domain_drafter.bench.figures import write_figures
from domain_drafter.bench.importer import import_answers
from domain_drafter.bench.rejudge import rejudge
from domain_drafter.bench.report import write_report
from domain_drafter.bench.spec import load_spec
from domain_drafter.bench.status import run_status
from domain_drafter.bench.store import SCHEMA, SCHEMA_VERSION, ResultsStore
from domain_drafter.bench.table import (
    PAPER_EQUIVALENT,
    PROOF_LABELS,
    PROVEN_DIFFERENT,
    PROVEN_EQUIVALENT,
    UNPROVEN,
    ResultRow,
    Results,
    build_table,
    load_results,
    to_csv,
    to_markdown,
)
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import DomainError

# heavy-pack's pack-first that also re-adds (unpacked ?item): add wins over delete, so the packed item stays
# unpacked in D'. No plan of either domain's top-k passes through a state where that matters, so the paper's
# heuristic calls it Equivalent; the very first step (pack-first x) already has another successor.
STAYS_UNPACKED = ("(:action pack-first :parameters (?item - item) :precondition (and (box-empty)) :effect (and "
                  "(packed ?item) (nothing-above ?item) (not (box-empty)) (not (unpacked ?item)) (unpacked ?item)))")
MOVE = ("(:action move :parameters (?from - room ?to - room) :precondition (at-robby ?from) "
        ":effect (and (at-robby ?to) (not (at-robby ?from))))")
ANSWERS = [  # id, domain, action, answer
    ("equivalent", "gripper", "move", MOVE),
    ("stays-unpacked", "heavy-pack", "pack-first", STAYS_UNPACKED),
    ("syntax", "gripper", "move", "(:action move :parameters (?from - room"),
    ("noplan", "gripper", "move", MOVE.replace("(at-robby ?to)", "(at-robby ?from)")),
]


def write_answers(path):
    path.write_text("".join(json.dumps({"id": i, "domain": d, "action": a, "class": "base", "model": "m",
                                        "output": ans}) + "\n" for i, d, a, ans in ANSWERS), encoding="utf-8")
    return path


def columns(db_path) -> dict[str, dict]:
    db = sqlite3.connect(db_path)
    db.row_factory = sqlite3.Row
    return {json.loads(r["extra"])["id"] if r["extra"] else r["key"]: dict(r) for r in db.execute("SELECT * FROM tasks")}


def test_import_stores_the_paper_verdict_and_the_proof_side_by_side(tmp_path, private_cache):
    out = tmp_path / "both.sqlite"
    summary = import_answers(write_answers(tmp_path / "a.jsonl"), out)
    assert summary.stored == len(ANSWERS)
    rows = columns(out)
    eq, cx, syntax, noplan = (rows[i] for i in ("equivalent", "stays-unpacked", "syntax", "noplan"))
    assert (eq["subclass"], eq["paper_subclass"], eq["proof_subclass"], eq["proof_proven"]) == \
        ("Equivalent", "Equivalent", "Equivalent", 1)
    assert eq["equivalence_mode"] == "proven" and eq["proof_method"] in ("shortcut", "exploration")
    # the heuristic accepts it; the proof shows the difference, and that verdict is the class
    assert (cx["paper_subclass"], cx["proof_proven"]) == ("Equivalent", 1)
    assert cx["proof_subclass"] in ("NPApp", "OPApp") and cx["subclass"] == cx["proof_subclass"]
    problem = json.loads(cx["proof_counterexample"])
    assert problem["plan"] and "(define (problem" in problem["problem_pddl"].lower()
    assert (syntax["subclass"], syntax["paper_subclass"], syntax["proof_subclass"]) == ("PError",) * 3
    assert (noplan["paper_subclass"], noplan["proof_subclass"]) == ("NoPlan", "NoPlan")

    table = build_table(load_results(out))
    assert table.proof_labels == PROOF_LABELS
    counts = {label: table.counts.get((label, "m"), 0) for label in PROOF_LABELS}
    assert counts == {PAPER_EQUIVALENT: 2, PROVEN_EQUIVALENT: 1, PROVEN_DIFFERENT: 1, UNPROVEN: 0}
    assert table.counts[("Equivalent", "m")] == 1       # the class rows follow the proof
    files = write_report(out, tmp_path / "report", figures=False)
    page = next(p for p in files if p.name == "report.html").read_text()
    assert f"<td>{PROVEN_DIFFERENT}</td><td>25.00 <small>(1)</small></td>" in page
    assert f"| {PAPER_EQUIVALENT} | 50.00 (2) |" in (tmp_path / "report" / "table1.md").read_text()
    assert run_status(out)["equivalents"] == {"m": {"paper heuristic": 2, "proven": 1, "proven different": 1,
                                                    "proof unfinished": 0}}


def test_paper_mode_keeps_the_heuristic_as_the_class(tmp_path, private_cache):
    out = tmp_path / "paper.sqlite"
    import_answers(write_answers(tmp_path / "a.jsonl"), out, equivalence="paper")
    rows = columns(out)
    assert rows["stays-unpacked"]["subclass"] == "Equivalent" == rows["stays-unpacked"]["paper_subclass"]
    assert {r["equivalence_mode"] for r in rows.values()} == {"paper"}
    assert build_table(load_results(out)).counts[("Equivalent", "m")] == 2


def rows_of(system, verdicts):
    return [ResultRow(system, system, False, "gripper", "move", "base", i, Subclass.from_name(sub).result_class.value,
                      sub, None, paper, proof, proven) for i, (sub, paper, proof, proven) in enumerate(verdicts)]


def test_heuristic_equivalents_split_into_proven_different_and_unfinished(tmp_path):
    data = rows_of("a", [("Equivalent", "Equivalent", "Equivalent", True),
                         ("NPApp", "Equivalent", "NPApp", True),
                         ("OPApp", "Equivalent", "OPApp", True),
                         ("Equivalent", "Equivalent", "Equivalent", False),     # budget ran out
                         ("NoPlan", "NoPlan", "NoPlan", True),
                         ("PError", "PError", "PError", None)])
    table = build_table(Results(tuple(data), ("a",), {}, 0))
    count = {label: table.counts.get((label, "a"), 0) for label in PROOF_LABELS}
    assert count == {PAPER_EQUIVALENT: 4, PROVEN_EQUIVALENT: 1, PROVEN_DIFFERENT: 2, UNPROVEN: 1}
    assert count[PAPER_EQUIVALENT] == count[PROVEN_EQUIVALENT] + count[PROVEN_DIFFERENT] + count[UNPROVEN]
    markdown = to_markdown(table, with_paper=True)
    assert f"| {PAPER_EQUIVALENT} | 66.67 (4) | 12.34 |" in markdown   # the paper's Equivalent is a heuristic one
    assert f"| {PROVEN_EQUIVALENT} | 16.67 (1) |  |" in markdown
    assert to_csv(table).splitlines()[-1] == f"{UNPROVEN},16.67,1"
    names = {p.name for p in write_figures(Results(tuple(data), ("a",), {}, 0), tmp_path / "with")}
    assert {"fig-equivalence-proof.png", "fig-equivalence-proof.svg"} <= names
    paper_only = rows_of("a", [("Equivalent", "Equivalent", None, None)])
    names = {p.name for p in write_figures(Results(tuple(paper_only), ("a",), {}, 0), tmp_path / "without")}
    assert len(names) == 10 and not any("proof" in n for n in names)


def old_file(path, result: dict):
    """A results file as the version before proven verdicts wrote it (schema 1: no proof columns)."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO runs (name, kind, spec, fingerprint, versions, machine, started) "
               "VALUES ('old', 'import', '{}', 'f', '{}', '{}', 0)")
    db.execute("INSERT INTO tasks (key, run_id, ord, system, model, grammar, domain, action, description_class, "
               "seed, status, answer, class, subclass, result) VALUES ('k', 1, 0, 'm', 'm', 0, 'gripper', 'move', "
               "'base', 0, 'evaluated', ?, 'Equivalent', 'Equivalent', ?)", (MOVE, json.dumps(result)))
    db.commit()
    db.close()


def test_an_old_results_file_opens_and_its_verdicts_are_the_papers(tmp_path):
    path = tmp_path / "old.sqlite"
    old_file(path, {"class": "Equivalent", "subclass": "Equivalent"})
    results = load_results(path)
    assert [(r.subclass, r.paper_subclass, r.proof_subclass) for r in results.rows] == \
        [("Equivalent", "Equivalent", None)]
    table = build_table(results)
    assert table.proof_labels == () and table.counts[("Equivalent", "m")] == 1
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT equivalence_mode FROM tasks").fetchone()[0] == "paper"


def test_a_system_with_no_verdict_gets_no_column_but_its_tasks_count_as_pending(tmp_path):
    path = tmp_path / "merged.sqlite"
    old_file(path, {"class": "Equivalent", "subclass": "Equivalent"})
    db = sqlite3.connect(path)
    db.execute("INSERT INTO tasks (key, run_id, ord, system, model, grammar, domain, action, description_class, "
               "seed, status) VALUES ('k2', 1, 1, 'm [search]', 'm', 0, 'gripper', 'move', 'base', 0, 'pending')")
    db.commit()
    db.close()
    results = load_results(path)
    assert results.systems == ("m",) and results.pending == 1
    assert "m [search]" not in to_markdown(build_table(results))


def test_a_results_file_of_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "new.sqlite"
    ResultsStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(DomainError, match="newer Domain Drafter") as info:
        ResultsStore(path)
    assert info.value.where is not None and "new.sqlite" in str(info.value.where)


def test_stored_answers_are_judged_again_without_generating(tmp_path, tiny_model, private_cache):
    spec_path = write_spec(tmp_path / "re.toml", tiny_model, domains='["gripper"]')
    spec = load_spec(spec_path)
    keys = [t.key for t in spec.tasks()]
    answers = {keys[0]: MOVE, keys[1]: "(:action pick"}    # move and pick; drop has no stored answer
    source = tmp_path / "answers.jsonl"
    source.write_text("".join(json.dumps({"id": k, "output": v}) + "\n" for k, v in answers.items())
                      + json.dumps({"id": "other|gripper|move|base|0", "output": MOVE}) + "\n", encoding="utf-8")
    paper = rejudge(source, tmp_path / "paper.sqlite", spec=spec, equivalence="paper")
    assert (paper.total, paper.judged_now, paper.evaluated) == (3, 2, 2)
    assert paper.missing == (keys[2],) and paper.unknown == ("other|gripper|move|base|0",)
    again = rejudge(source, tmp_path / "paper.sqlite", spec=spec, equivalence="paper")
    assert again.judged_now == 0 and again.evaluated == 2      # a second call continues, it does not redo

    proven = rejudge(tmp_path / "paper.sqlite", tmp_path / "proven.sqlite")   # the spec comes from the file
    rows = {r["key"]: r for r in columns(tmp_path / "proven.sqlite").values()}
    assert rows[keys[0]]["answer"] == MOVE and rows[keys[0]]["equivalence_mode"] == "proven"
    assert rows[keys[0]]["proof_subclass"] == "Equivalent" and rows[keys[1]]["subclass"] == "PError"
    assert rows[keys[2]]["status"] == "pending" and proven.missing == (keys[2],)
    assert json.loads(rows[keys[0]]["generation"])["rejudged_from"] == "paper.sqlite"
    with pytest.raises(Exception, match="file of their own"):
        rejudge(tmp_path / "proven.sqlite", tmp_path / "proven.sqlite")


def test_a_bad_answers_line_stops_rejudging_where_an_import_would_skip_it(tmp_path, tiny_model):
    from domain_drafter.bench.importer import read_answers
    from domain_drafter.bench.jsonl import read_json_lines
    from domain_drafter.core.errors import UsageError

    spec = load_spec(write_spec(tmp_path / "bad.toml", tiny_model, domains='["gripper"]'))
    key = spec.tasks()[0].key
    source = tmp_path / "answers.jsonl"
    source.write_text(json.dumps({"id": key, "output": MOVE, "domain": "gripper", "action": "move", "class": "base",
                                  "model": "m"}) + "\n\n{broken\n[1, 2]\n", encoding="utf-8")
    lines = read_json_lines(source)                      # one reader: blank lines skipped, numbers kept
    assert [(line.number, line.problem is None) for line in lines] == [(1, True), (3, False), (4, False)]
    assert lines[2].problem == "not a JSON object"
    with pytest.raises(UsageError, match="line 3 is not valid JSON") as info:
        rejudge(source, tmp_path / "out.sqlite", spec=spec)
    assert "answers.jsonl" in str(info.value.where)
    tasks, problems = read_answers(source)               # the import goes on past both bad lines
    assert len(tasks) == 1 and [p.line for p in problems] == [3, 4]
    (tmp_path / "latin1.jsonl").write_bytes(b'{"id": "caf\xe9"}\n')
    with pytest.raises(UsageError, match="not UTF-8 text"):
        rejudge(tmp_path / "latin1.jsonl", tmp_path / "out2.sqlite", spec=spec)
