"""`test DOMAIN --starters` and `--keep ID` (issue 37, tests that grow with use): real K* in a private cache,
real files; a kept case is run at once, runs again with `test DOMAIN`, and fails on a wrong action."""

from __future__ import annotations

import json
import shutil

import pytest

from domain_drafter.cli import main
from domain_drafter.core.bundle import bundled_root

PICK_KEEPS_AT = """(:action pick
    :parameters (?obj - ball ?room - room ?g - gripper)
    :precondition (and (at ?obj ?room) (at-robby ?room) (free ?g))
    :effect (and (carry ?obj ?g) (not (free ?g))))"""


@pytest.fixture(autouse=True)
def private_folders(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))


def run(capsys, *argv: str):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def copy_without_tests(tmp_path, name: str = "gripper"):
    folder = tmp_path / name
    shutil.copytree(bundled_root() / "gripper", folder)
    (folder / "tests.toml").unlink()
    return folder


def test_starters_are_listed_kept_run_and_a_wrong_pick_fails_the_kept_case(capsys, tmp_path):
    folder = copy_without_tests(tmp_path)
    code, out, _ = run(capsys, "test", str(folder))
    assert code == 3 and not (folder / "tests.toml").exists()
    code, out, _ = run(capsys, "test", str(folder), "--starters")
    assert code == 0 and out.startswith("10 starter cases (keep one with --keep ID")
    assert "  never-at-with-carry  [invariant]  never (at ?ball ?room) and (carry ?ball ?gripper) at once" in out
    assert "  p01-plan-stays-valid  [plan]  the 5-step plan the planner found for p01" in out
    code, out, err = run(capsys, "test", str(folder), "--keep", "never-at-with-carry", "--keep", "p01-stays-solvable")
    assert code == 0 and f"kept never-at-with-carry in {folder / 'tests.toml'}" in err
    assert "pass  never-at-with-carry (never)" in out and "pass  p01-stays-solvable (reachable)" in out
    assert "[cases.never-at-with-carry]" in (folder / "tests.toml").read_text(encoding="utf-8")
    code, out, _ = run(capsys, "test", str(folder), "--starters", "--json")
    offered = [s["id"] for s in json.loads(out)["starters"]]
    assert code == 0 and "never-at-with-carry" not in offered and "p02-stays-solvable" in offered

    # the same domain with a pick that leaves the ball in the room: the kept case fails
    wrong = copy_without_tests(tmp_path, "wrong")
    shutil.copyfile(folder / "tests.toml", wrong / "tests.toml")
    text = (folder / "domain.pddl").read_text(encoding="utf-8")
    start = text.index("(:action pick")
    end = text.index("(:action drop")
    (wrong / "domain.pddl").write_text(text[:start] + PICK_KEEPS_AT + "\n  " + text[end:], encoding="utf-8")
    code, out, _ = run(capsys, "test", str(wrong))
    assert code == 1 and "FAIL  never-at-with-carry (never)" in out and "pass  p01-stays-solvable" in out


def test_an_unknown_starter_writes_nothing_and_a_bundled_domains_case_goes_to_the_users_copy(capsys, tmp_path):
    folder = copy_without_tests(tmp_path)
    code, _, err = run(capsys, "test", str(folder), "--keep", "p01-stays-solvable", "--keep", "nope")
    assert code == 2 and "no starter case 'nope'" in err and not (folder / "tests.toml").exists()
    shipped = (bundled_root() / "gripper" / "tests.toml").read_bytes()
    code, out, _ = run(capsys, "test", "gripper", "--starters")
    # the bundled cases hold the ball's one place already (carried-ball-is-in-no-room, on p02, other names)
    assert code == 0 and "never-at-with-carry" not in out and "  p01-stays-solvable  [goal]" in out
    assert f"it goes to {tmp_path / 'data' / 'domains' / 'gripper' / 'tests.toml'}" in out
    code, out, err = run(capsys, "test", "gripper", "--keep", "never-two-carry")
    copy = tmp_path / "data" / "domains" / "gripper" / "tests.toml"
    assert code == 0 and f"kept never-two-carry in {copy}" in err
    assert (bundled_root() / "gripper" / "tests.toml").read_bytes() == shipped
    code, out, _ = run(capsys, "test", "gripper")   # the domain's tests are read from the copy now
    assert code == 0 and "pass  never-two-carry (never)" in out and f"from {copy}" in out
