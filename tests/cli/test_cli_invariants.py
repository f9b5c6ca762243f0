"""Invariant findings on the command line (issue 37): check, evaluate and test, text and --json, and dismissals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from domain_drafter.cli import main
from domain_drafter.core.bundle import bundled_root, load_bundle, load_bundle_path
from domain_drafter.core.dismissals import DISMISSED_FILE, read_dismissals
from domain_drafter.core.errors import DomainError

KEY = "breaks (at ?0 *) (carry ?0 *)"
PICK_KEEPS_AT = ("(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and (at ?obj ?room)"
                 " (at-robby ?room) (free ?g)) :effect (and (carry ?obj ?g) (not (free ?g))))")


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch) -> Path:
    """The user's data folder, where the copies of bundled domains (and their dismissals) go."""
    folder = tmp_path / "data"
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(folder))
    return folder


def run(capsys, *argv: str):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def answer(tmp_path) -> str:
    path = tmp_path / "pick.pddl"
    path.write_text(PICK_KEEPS_AT, encoding="utf-8")
    return str(path)


def test_check_shows_the_finding_with_its_state_and_the_key_that_dismisses_it(capsys, answer):
    code, out, _ = run(capsys, "check", "gripper", "pick", answer)
    assert code == 0   # the checks pass: an invariant finding is shown, it is not a syntax or semantic class
    assert "invariants: 1 finding on pick" in out
    assert "after (pick ball1 rooma left): (at ball1 rooma) and (carry ball1 left) both hold" in out
    assert "so add (not (at ?obj ?room)) to the effect" in out and f'--dismiss "{KEY}"' in out
    code, out, _ = run(capsys, "check", "gripper", "pick", answer, "--json")
    finding = json.loads(out)["invariants"]["findings"][0]
    assert finding["kind"] == "breaks-invariant" and finding["key"] == KEY
    assert finding["atoms"] == ["(at ball1 rooma)", "(carry ball1 left)"]


def test_evaluate_shows_the_findings_beside_the_verdict(capsys, answer):
    _, out, _ = run(capsys, "evaluate", "gripper", "pick", answer, "--json")
    data = json.loads(out)
    assert data["subclass"] == "NPApp" and data["invariants"]["findings"][0]["step"] == "(pick ball1 rooma left)"
    _, out, _ = run(capsys, "evaluate", "gripper", "pick", answer)
    assert "NPApp" in out and "invariants: 1 finding on pick" in out


def test_a_dismissal_of_a_bundled_domain_is_saved_in_the_users_copy_and_honoured(capsys, answer, data_folder):
    code, out, err = run(capsys, "check", "gripper", "pick", answer, "--dismiss", KEY)
    assert code == 0
    saved = data_folder / "domains" / "gripper" / DISMISSED_FILE
    assert saved.is_file() and str(saved) in err and not (bundled_root() / "gripper" / DISMISSED_FILE).exists()
    assert "invariants: nothing found on pick (1 dismissed)" in out
    assert read_dismissals(load_bundle("gripper")) == {"pick": frozenset({KEY})}
    _, out, _ = run(capsys, "check", "gripper", "pick", answer)       # remembered
    assert "nothing found on pick (1 dismissed)" in out
    _, out, _ = run(capsys, "check", "gripper", "pick", answer, "--restore", KEY)
    assert "invariants: 1 finding on pick" in out and read_dismissals(load_bundle("gripper")) == {}


def test_test_shows_the_findings_on_the_domains_own_actions(capsys, tmp_path):
    folder = tmp_path / "gripper"
    shutil.copytree(bundled_root() / "gripper", folder)
    domain = folder / "domain.pddl"
    domain.write_text(domain.read_text().replace("(not (at ?obj ?room))", "", 1), encoding="utf-8")
    code, out, _ = run(capsys, "test", str(folder))
    assert code == 1   # a gripper case catches it too; the finding is shown beside the cases
    assert "invariants: 1 finding on pick" in out and "(carry ball1 left) both hold" in out
    _, out, _ = run(capsys, "test", str(folder), "--json")
    data = json.loads(out)["invariants"]
    assert sorted(data) == ["drop", "move", "pick"] and data["pick"]["findings"][0]["key"] == KEY
    assert data["move"]["findings"] == [] and data["drop"]["findings"] == []


def test_a_bad_dismissals_file_is_an_error_at_its_line(tmp_path):
    folder = tmp_path / "gripper"
    shutil.copytree(bundled_root() / "gripper", folder)
    (folder / DISMISSED_FILE).write_text("[dismissed]\npick = [\"never-applies\"\nmove = 3\n", encoding="utf-8")
    with pytest.raises(DomainError) as caught:
        read_dismissals(load_bundle_path(folder))
    assert caught.value.where.line == 3 and DISMISSED_FILE in str(caught.value)
    (folder / DISMISSED_FILE).write_text("# mine\n[dismissed]\nmove = 3\n", encoding="utf-8")
    with pytest.raises(DomainError, match="move must be a list of finding keys") as caught:
        read_dismissals(load_bundle_path(folder))
    assert caught.value.where.line == 3
