"""`compare`, `describe` and `draft-domain` through main(): exit codes, messages, the saved folder."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from domain_drafter.cli import main
from domain_drafter.core.bundle import DESCRIPTIONS_FILE, bundled_root, load_bundle_path
from domain_drafter.core.model import Atom, Literal
from domain_drafter.core.reader import read_domain
from domain_drafter.drafting.workspace import HISTORY_FILE, WorkingCopy


def run(capsys, *argv: str):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def candidate(tmp_path: Path, domain, name="cand") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "domain.pddl").write_text(domain.to_pddl())
    return folder


def stricter(domain, action: str, atom: Atom):
    a = domain.action(action)
    return domain.with_action(dataclasses.replace(a, precondition=a.precondition + (Literal(atom),)))


def drop_delete(domain, action: str):
    a = domain.action(action)
    first = next(l for l in a.effect if not l.positive)
    return domain.with_action(dataclasses.replace(a, effect=tuple(l for l in a.effect if l != first)))


def test_a_bundled_domain_against_its_own_folder_is_equivalent(capsys):
    code, out, _ = run(capsys, "compare", "blocksworld", bundled_root() / "blocksworld")
    assert code == 0
    assert out.startswith("Equivalent\n  Equivalent, proven: all 4 actions ") and "put-down same" in out


def test_a_changed_action_is_blamed_with_the_plan_step_and_words(capsys, bundles, tmp_path):
    domain = stricter(bundles["blocksworld"].domain, "put-down", Atom("clear", ("?x",)))
    folder = candidate(tmp_path, domain)
    code, out, _ = run(capsys, "compare", "blocksworld", folder)
    assert code == 1
    assert out.startswith("Different\n  ") and "blame 'put-down'" in out
    assert "put-down changed (ARE 1)" in out and "<-- here" in out
    assert "in the reference domain, in words:" in out and "the hand puts block" in out


def test_two_changed_actions_are_both_listed_and_one_is_blamed(capsys, bundles, tmp_path):
    domain = drop_delete(stricter(bundles["blocksworld"].domain, "put-down", Atom("clear", ("?x",))), "pick-up")
    code, out, _ = run(capsys, "compare", "blocksworld", candidate(tmp_path, domain), "--json")
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "Different"
    assert data["changed"] == ["pick-up", "put-down"] and data["are_total"] == 2
    assert data["divergence"]["action"] in ("pick-up", "put-down")
    assert data["divergence"]["step"] >= 1 and data["divergence"]["plan"]


def test_a_candidate_missing_an_action_is_incomplete(capsys, bundles, tmp_path):
    domain = bundles["gripper"].domain
    domain = dataclasses.replace(domain, actions=tuple(a for a in domain.actions if a.name != "drop"))
    code, out, _ = run(capsys, "compare", "gripper", candidate(tmp_path, domain) / "domain.pddl", "--json")
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "Incomplete" and data["missing"] == ["drop"]
    assert data["subclass"] == "Equivalent"   # with the reference's drop in its place, the rest is equivalent
    assert data["message"].startswith("the candidate has no drop; with the reference's in its place, Equivalent, proven: ")


def test_a_broken_candidate_exits_3_naming_file_line_and_column(capsys, bundles, tmp_path):
    folder = candidate(tmp_path, bundles["blocksworld"].domain)
    path = folder / "domain.pddl"
    good = path.read_text()
    at = good.index("(holding ?x)", good.index(":action put-down"))
    path.write_text(good[:at] + "(holding ?x - block)" + good[at + len("(holding ?x)"):])
    code, _, err = run(capsys, "compare", "blocksworld", folder)
    assert code == 3
    dash = at + len("(holding ?x ")
    line, column = good.count("\n", 0, dash) + 1, dash - good.rfind("\n", 0, dash)
    assert f"{path}:{line}:{column}: unexpected '-'" in err
    code, _, err = run(capsys, "compare", "blocksworld", tmp_path / "nowhere")
    assert code == 2 and "no such domain file" in err


def test_a_candidate_that_cannot_state_the_problems_exits_3(capsys, bundles, tmp_path):
    domain = bundles["blocksworld"].domain
    domain = dataclasses.replace(domain, predicates=tuple(p for p in domain.predicates if p.name != "ontable"),
                                 actions=())
    code, _, err = run(capsys, "compare", "blocksworld", candidate(tmp_path, domain))
    assert code == 3 and "p01.pddl: (ontable a) uses 'ontable'" in err


def test_describe_prints_writes_and_refuses_to_overwrite(capsys, tmp_path):
    folder = tmp_path / "trap"
    shutil.copytree(bundled_root() / "trap-newspapers", folder)
    (folder / DESCRIPTIONS_FILE).unlink()
    code, out, _ = run(capsys, "describe", folder)
    assert code == 0 and '[predicates.isHomeBase]' not in out and 'text = "loc {loc} is home base"' in out
    code, out, _ = run(capsys, "describe", folder, "--out", folder / DESCRIPTIONS_FILE)
    assert code == 0 and "every entry under a # REVIEW line" in out
    assert load_bundle_path(folder).require_descriptions().actions["deliver"] == "Deliver: paper {paper} and loc {loc}."
    code, _, err = run(capsys, "describe", folder, "--out", folder / DESCRIPTIONS_FILE)
    assert code == 2 and "--force" in err


def test_draft_domain_with_the_tiny_model_saves_a_folder_that_loads_back(capsys, tiny_model, bundles, tmp_path):
    out_dir = tmp_path / "drafted"
    code, out, err = run(capsys, "draft-domain", "blocksworld", "--out", out_dir, "--model", tiny_model,
                         "--n-ctx", "4096", "--json")
    assert code == 1, err
    data = json.loads(out)
    assert [a["action"] for a in data["actions"]] == list(bundles["blocksworld"].action_names)
    assert all(a["class"] in ("Syntax error", "Semantic error") for a in data["actions"])
    assert data["verdict"] == "Incomplete" and data["failed_checks"] == list(bundles["blocksworld"].action_names)
    # the domain's tests run on the drafted domain, reported per action (every action has cases about it)
    assert list(data["tests"]) == list(bundles["blocksworld"].action_names)
    assert all(row["total"] > 0 and row["passed"] + len(row["failing"]) == row["total"]
               for row in data["tests"].values())
    bundle = load_bundle_path(out_dir)
    read_domain((out_dir / "domain.pddl").read_text())          # parses on its own
    assert bundle.require_descriptions() and len(bundle.problems) == 2
    history = WorkingCopy.open(out_dir)
    assert all(e.attempts and e.attempts[0].model for e in history.entries.values())
    assert (out_dir / HISTORY_FILE).is_file()


def test_draft_domain_text_report_and_a_used_out_folder(capsys, tiny_model, tmp_path):
    out_dir = tmp_path / "drafted"
    code, out, _ = run(capsys, "draft-domain", "gripper", "--out", out_dir, "--model", tiny_model, "--grammar")
    assert code in (0, 1)
    for action in ("move", "pick", "drop"):
        assert f"  {action} " in out
    assert "ARE total" in out and f"saved: {out_dir}" in out
    assert "domain tests (tests.toml) on the drafted domain, per action:" in out and "cases pass" in out
    assert [a.name for a in load_bundle_path(out_dir).domain.actions] == ["move", "pick", "drop"]
    code, _, err = run(capsys, "draft-domain", "gripper", "--out", out_dir, "--model", tiny_model)
    assert code == 2 and "not an empty folder" in err


def test_draft_domain_with_a_model_that_cannot_load_exits_5_and_writes_nothing(capsys, tmp_path):
    bogus = tmp_path / "not-a-model.gguf"
    bogus.write_bytes(b"this is no GGUF file")
    code, _, err = run(capsys, "draft-domain", "gripper", "--out", tmp_path / "out", "--model", bogus)
    assert code == 5 and "not-a-model.gguf" in err
    assert not (tmp_path / "out").exists()
