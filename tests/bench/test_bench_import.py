"""`bench import`: hand-written answers covering every subclass are judged and stored; bad lines are
reported with their line number and skipped, and the good lines still go in."""

from __future__ import annotations

import json
import sqlite3

import pytest

from domain_drafter.bench.importer import import_answers
from domain_drafter.cli import main
from domain_drafter.core.classes import Subclass

MOVE = ("(:action move :parameters (?from - room ?to - room) :precondition (at-robby ?from) "
        ":effect (and (at-robby ?to) (not (at-robby ?from))))")
PICK = ("(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and (at ?obj ?room) "
        "(at-robby ?room) (free ?g)) :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g))))")
DROP = ("(:action drop :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and (carry ?obj ?g) "
        "(at-robby ?room)) :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g))))")
PUT_DOWN = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
            ":effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))")

# (id, domain, action, answer, expected subclass): one or more per subclass of the paper.
ANSWERS = [
    ("nopddl", "blocksworld", "put-down", "I cannot write PDDL for that.", Subclass.NO_PDDL),
    ("perror", "blocksworld", "put-down", "(:action put-down :parameters (?x - block)\n :precondition (holding ?x)",
     Subclass.P_ERROR),
    ("utoken", "gripper", "drop", "(:action drop :parameters (?obj - ball ?room - room ?g - gripper) :precondition "
     "(carry ?obj ?g) :effect (when (free ?g) (at ?obj ?room)))", Subclass.U_TOKEN),
    ("nerror", "blocksworld", "put-down", PUT_DOWN.replace("put-down", "putdown"), Subclass.N_ERROR),
    ("terror", "blocksworld", "put-down", PUT_DOWN.replace("?x - block", "?x - cube"), Subclass.T_ERROR),
    ("paerror", "blocksworld", "put-down", PUT_DOWN.replace("(handempty)", "(arm-empty)"), Subclass.PA_ERROR),
    ("bperror", "gripper", "drop", DROP.replace("(at-robby ?room))", "(at-robby ?room) (not (free ?g)))"),
     Subclass.BP_ERROR),
    ("noplan", "gripper", "drop", DROP.replace("(at ?obj ?room) (free", "(at-robby ?room) (free"), Subclass.NO_PLAN),
    ("npapp", "gripper", "move", MOVE.replace(":precondition (at-robby ?from) ", ""), Subclass.NP_APP),
    ("opapp", "gripper", "pick", PICK.replace("(free ?g))", "(free ?g) (free left))", 1), Subclass.OP_APP),
    ("equivalent", "gripper", "move", "Sure, here it is:\n" + MOVE, Subclass.EQUIVALENT),
    ("equivalent-again", "gripper", "move", "Sure, here it is:\n" + MOVE, Subclass.EQUIVALENT),
]

BAD_LINES = {
    3: "{this is not json",
    6: json.dumps({"domain": "gripper", "action": "move", "class": "base", "output": MOVE}),     # no model
    9: json.dumps({"domain": "atlantis", "action": "move", "class": "base", "model": "m", "output": MOVE}),
    11: json.dumps({"domain": "gripper", "action": "fly", "class": "base", "model": "m", "output": MOVE}),
    13: json.dumps({"domain": "gripper", "action": "move", "class": "sideways", "model": "m", "output": MOVE}),
    14: json.dumps(["a", "list"]),
}


def write_jsonl(path):
    lines, good = [], iter(ANSWERS)
    total = len(ANSWERS) + len(BAD_LINES)
    for number in range(1, total + 1):
        if number in BAD_LINES:
            lines.append(BAD_LINES[number])
        else:
            ident, domain, action, answer, _ = next(good)
            lines.append(json.dumps({"id": ident, "domain": domain, "action": action, "class": "base",
                                     "model": "hosted-model", "output": answer, "note": f"hand-written {ident}"}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))


def test_import_judges_every_subclass_and_reports_bad_lines(tmp_path, cache, capsys):
    source = write_jsonl(tmp_path / "answers.jsonl")
    out = tmp_path / "imported.sqlite"
    code = main(["bench", "import", str(source), "--out", str(out), "--plain"])
    captured = capsys.readouterr()
    assert code == 1   # some lines were skipped
    assert f"results: {out}" in captured.out
    assert "[bench] 12/12 judged, 12 generated, syn=3 sem=4 diff=3 eq=2" in captured.err
    for number in BAD_LINES:
        assert f"{source}:{number}: skipped" in captured.err
    assert "not valid JSON" in captured.err and "missing field(s) model" in captured.err
    assert "unknown domain 'atlantis'" in captured.err and "no action 'fly'" in captured.err
    assert "sideways" in captured.err and "not a JSON object" in captured.err

    db = sqlite3.connect(out)
    rows = {json.loads(extra)["id"]: (subclass, status, answer, json.loads(extra))
            for subclass, status, answer, extra in db.execute("SELECT subclass, status, answer, extra FROM tasks")}
    assert len(rows) == len(ANSWERS)
    for ident, _, _, answer, expected in ANSWERS:
        subclass, status, stored_answer, extra = rows[ident]
        assert (ident, subclass, status) == (ident, expected.value, "evaluated")
        assert stored_answer == answer
        assert extra["note"] == f"hand-written {ident}"   # extra fields are kept
    assert {s for s, *_ in rows.values()} == {s.value for s in Subclass}
    # The repeated answer was judged once: its copy is marked as coming from a cache.
    cached = dict(db.execute("SELECT json_extract(extra, '$.id'), json_extract(result, '$.cached') FROM tasks"))
    assert cached["equivalent-again"] == 1
    cx = db.execute("SELECT counterexample FROM tasks WHERE json_extract(extra, '$.id') = 'opapp'").fetchone()[0]
    assert json.loads(cx)["plan"]


def test_importing_the_same_file_twice_keeps_one_row_per_line(tmp_path, cache):
    source = tmp_path / "few.jsonl"
    source.write_text("\n".join(json.dumps({"domain": d, "action": a, "class": "base", "model": "m", "output": ans})
                                for _, d, a, ans, _ in ANSWERS[:4]) + "\n", encoding="utf-8")
    out = tmp_path / "few.sqlite"
    first = import_answers(source, out)
    second = import_answers(source, out)
    assert (first.stored, second.stored) == (4, 0)
    assert sqlite3.connect(out).execute("SELECT COUNT(*) FROM tasks").fetchone()[0] == 4


def test_unreadable_answers_file_is_a_usage_error(tmp_path, capsys):
    code = main(["bench", "import", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "x.sqlite")])
    assert code == 2
    assert "cannot read the answers file" in capsys.readouterr().err
