"""A quick fix applied the way the app applies it (issue 22): to the working copy only, as an attempt, and undone."""

from __future__ import annotations

import shutil

from domain_drafter.core.bundle import bundled_root, load_bundle_path
from domain_drafter.core.tests_reader import load_tests
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.planning.domain_tests import run_tests
from domain_drafter.planning.quick_fixes import quick_fixes

BROKEN_STACK = """(:action stack
  :parameters (?x - block ?y - block)
  :precondition (and (holding ?x))
  :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))"""


def test_a_quick_fix_goes_to_the_working_copy_and_undo_restores_it(tmp_path):
    folder = tmp_path / "blocksworld"
    shutil.copytree(bundled_root() / "blocksworld", folder)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    bundle = load_bundle_path(folder)
    tests = load_tests(bundle)
    copy = WorkingCopy.from_bundle(bundle)
    broken = copy.add_attempt("stack", BROKEN_STACK)
    copy.accept("stack", attempt=broken.number)
    report = run_tests(copy.working_domain(), tests)
    assert "stack-only-on-a-clear-block" in {r.name for r in report.failed}

    search = quick_fixes(copy.working_domain(), tests, report=report)
    fix = search.fixes[0]
    assert fix.summary == "stack: add (clear ?y) to the precondition"
    applied = copy.add_attempt(fix.action, fix.action_pddl, source="quick fix", message=fix.summary)
    copy.accept(fix.action, attempt=applied.number)
    assert run_tests(copy.working_domain(), tests).all_passed

    copy.accept("stack", attempt=broken.number)          # undo: back to the attempt before the fix
    precondition = copy.working_domain().action("stack").to_pddl().split(":effect")[0]
    assert "(holding ?x)" in precondition and "(clear ?y)" not in precondition
    assert not run_tests(copy.working_domain(), tests).all_passed
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before, "nothing on disk changed"
