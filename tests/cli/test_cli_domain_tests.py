"""`domain-drafter test` (issue 22): exit codes, messages, --json, --case, --fix, and the vscode-pddl interchange."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from domain_drafter.cli import main
from domain_drafter.core.bundle import bundled_names, bundled_root, load_bundle_path
from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.core.tests_reader import load_tests


def run(capsys, *argv: str):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def copy_domain(tmp_path: Path, name: str = "blocksworld") -> Path:
    folder = tmp_path / name
    shutil.copytree(bundled_root() / name, folder)
    return folder


@pytest.mark.parametrize("name", bundled_names())
def test_every_bundled_tests_file_passes_on_its_reference(capsys, name):
    code, out, err = run(capsys, "test", name)
    assert code == 0, out + err
    assert " 0 failed, 0 unproven" in out


def test_json_report_and_one_case(capsys):
    code, out, _ = run(capsys, "test", "blocksworld", "--json", "--case", "solves-p01", "--case", "nothing-on-itself")
    data = json.loads(out)
    assert code == 0 and [r["name"] for r in data["results"]] == ["solves-p01", "nothing-on-itself"]
    assert data["results"][1]["method"] == "exploration" and data["results"][1]["states"] > 0


def test_an_unknown_case_is_a_usage_error(capsys):
    code, _, err = run(capsys, "test", "blocksworld", "--case", "no-such-case")
    assert code == 2 and "no case 'no-such-case'" in err and "solves-p01" in err


def test_a_broken_action_fails_with_evidence_and_a_quick_fix(capsys, tmp_path):
    folder = copy_domain(tmp_path)
    domain = folder / "domain.pddl"
    text = domain.read_text()
    broken = text.replace("(:action stack\n    :parameters (?x - block ?y - block)\n    :precondition (and\n"
                          "      (holding ?x)\n      (clear ?y)\n", "(:action stack\n    :parameters (?x - block ?y - "
                          "block)\n    :precondition (and\n      (holding ?x)\n", 1)
    assert broken != text
    domain.write_text(broken)
    code, out, err = run(capsys, "test", str(folder), "--fix")
    assert code == 1, out + err
    assert "FAIL  stack-only-on-a-clear-block (plan_fails)" in out
    assert "quick fix 1: stack: add (clear ?y) to the precondition" in out
    assert "+    (and (holding ?x) (clear ?y))" in out or "(clear ?y)" in out.split("quick fix 1")[1]
    assert domain.read_text() == broken, "the CLI never writes the domain"


@pytest.mark.parametrize(("tests", "line", "words"), [
    ('[cases.x]\nproblem = "p01"\nkind = "sometimes"\n', 3, "unknown kind 'sometimes'"),
    ('[cases.x]\nproblem = "p01"\nkind = "never"\nstate = "(levitating ?x)"\n', 4, "does not declare"),
    ('[cases.x]\nproblem = "p99"\nkind = "reachable"\n', 2, "unknown problem 'p99'"),
    ('[cases.x]\nproblem = "p01"\nkind = "never"\nstate = "(clear ?x ?y)"\n', 4, "has 2 arguments, but 'clear' takes 1"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan = """\n(pick-up b)\n(stack b c\n"""\n', 6, "does not parse"),
])
def test_a_bad_tests_file_exits_3_at_file_line_without_a_traceback(tmp_path, tests, line, words):
    folder = copy_domain(tmp_path)
    (folder / "tests.toml").write_text(tests)
    script = Path(sys.executable).with_name("domain-drafter")
    done = subprocess.run([str(script), "test", str(folder)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"{folder / 'tests.toml'}:{line}:1: " in done.stderr and words in done.stderr
    assert "Traceback" not in done.stderr


def test_ptest_round_trip(capsys, tmp_path):
    folder = copy_domain(tmp_path)
    manifest = tmp_path / "out" / "blocksworld.ptest.json"
    code, out, _ = run(capsys, "test", str(folder), "--export-ptest", str(manifest))
    assert code == 0
    data = json.loads(manifest.read_text())
    labels = [c["label"] for c in data["cases"]]
    assert labels == ["solves-p01", "solves-p02"]
    assert data["defaultDomain"] == "../blocksworld/domain.pddl"
    assert "not held: nothing-on-itself: a never case" in out
    assert (manifest.parent / data["cases"][0]["expectedPlans"][0]).read_text().startswith("(unstack c a)\n")
    imported = tmp_path / "imported.toml"
    code, _, _ = run(capsys, "test", str(folder), "--import-ptest", str(manifest), "--out", str(imported))
    assert code == 0
    (folder / "tests.toml").write_text(imported.read_text())
    back = load_tests(load_bundle_path(folder))
    original = load_tests(load_bundle_path(bundled_root() / "blocksworld"))
    assert [c.name for c in back.cases] == labels
    for case in back.cases:
        assert case.kind is CaseKind.PLAN and case.plan == original.case(case.name).plan
        assert case.problem == original.case(case.name).problem
    code, out, _ = run(capsys, "test", str(folder))
    assert code == 0 and "2 passed" in out


def test_a_ptest_case_without_expected_plans_becomes_reachable(capsys, tmp_path):
    folder = copy_domain(tmp_path)
    manifest = tmp_path / "m.ptest.json"
    manifest.write_text(json.dumps({"defaultDomain": "blocksworld/domain.pddl",
                                    "cases": [{"label": "Solve p02", "problem": "blocksworld/problems/p02.pddl"}]}))
    code, out, _ = run(capsys, "test", str(folder), "--import-ptest", str(manifest))
    assert code == 0
    assert '[cases.solve-p02]' in out and 'kind = "reachable"' in out and 'problem = "p02"' in out


def test_writing_into_the_bundled_domains_is_refused(capsys, tmp_path):
    code, _, err = run(capsys, "test", "blocksworld", "--export-ptest",
                       str(bundled_root() / "blocksworld" / "x.ptest.json"))
    assert code == 2 and "refusing to write inside the bundled domains" in err
