"""Quick fixes (issue 22): the smallest action edits after which every case passes, found by exploration.

Real domains and tests, real explorations; nothing is written anywhere (a fix is data).
"""

from __future__ import annotations

import pytest
from tests.planning.test_domain_tests import LAMPS, make_bundle

from domain_drafter.core.bundle import load_bundle_path, load_bundled
from domain_drafter.core.model import canonical_action
from domain_drafter.core.tests_reader import load_tests
from domain_drafter.planning.domain_tests import run_tests
from domain_drafter.planning.quick_fixes import Edit, apply_edits, candidate_edits, quick_fixes

LAMPS_TESTS = """
[cases.on-then-off]
problem = "p01"
kind = "plan"
plan = ["(switch-on a)", "(switch-off a)", "(switch-on b)"]
reaches_goal = false

[cases.lit-is-not-dark]
problem = "p01"
kind = "never"
state = "(and (lit ?x) (dark ?x))"

[cases.no-double-switch]
problem = "p01"
kind = "plan_fails"
plan = ["(switch-on a)", "(switch-on a)"]
at_step = 2
precondition = "(dark a)"

[cases.switch-on]
problem = "p01"
kind = "effect"
action = "(switch-on a)"
holds = "(lit a) (power)"
not_holds = "(dark a)"
"""

BUNDLES = {b.name: b for b in load_bundled()}


@pytest.fixture
def broken_lamps(tmp_path):
    """switch-on without its (dark ?l) precondition: a lamp can be switched on twice."""
    domain = LAMPS.replace("(and (dark ?l) (power))", "(and (power))")
    folder = make_bundle(tmp_path / "lamps", domain, LAMPS_TESTS)
    bundle = load_bundle_path(folder)
    return bundle, load_tests(bundle), folder


def test_a_dropped_precondition_is_put_back(broken_lamps):
    bundle, tests, folder = broken_lamps
    before = (folder / "domain.pddl").read_bytes()
    report = run_tests(bundle.domain, tests)
    assert [r.name for r in report.failed] == ["no-double-switch"]
    search = quick_fixes(bundle.domain, tests, report=report)
    assert search.fixes, search
    fix = search.fixes[0]
    assert fix.action == "switch-on" and fix.edits == (Edit("precondition", "add", fix.edits[0].literal),)
    assert str(fix.edits[0]) == "add (dark ?l) to the precondition"
    assert "+" in fix.diff and "(dark ?l)" in fix.action_pddl
    assert run_tests(fix.domain, tests).all_passed and fix.report.all_passed
    assert (folder / "domain.pddl").read_bytes() == before, "a quick fix writes nothing"
    data = fix.to_dict()
    assert data["summary"] == "switch-on: add (dark ?l) to the precondition" and data["diff"] == fix.diff


def test_no_fix_is_offered_when_every_case_passes():
    bundle = BUNDLES["blocksworld"]
    search = quick_fixes(bundle.domain, load_tests(bundle))
    assert search.fixes == () and search.candidates == 0


def test_swapped_arguments_need_two_edits_and_get_them():
    bundle = BUNDLES["blocksworld"]
    tests = load_tests(bundle)
    stack = bundle.domain.action("stack")
    wrong = next(e for e in candidate_edits(bundle.domain, stack) if str(e) == "remove (on ?x ?y) from the add list")
    swapped = next(e for e in candidate_edits(bundle.domain, apply_edits(stack, [wrong]))
                   if str(e) == "add (on ?y ?x) to the add list")
    mutant = bundle.domain.with_action(apply_edits(stack, [wrong, swapped]))
    search = quick_fixes(mutant, tests, time_limit_s=20)
    assert search.fixes, search
    fix = search.fixes[0]
    assert len(fix.edits) == 2
    assert canonical_action(fix.domain.action("stack")) == canonical_action(stack)


# held-out single-atom mutants of test_proof_mutants.py: the proof calls them Different, the heuristic misses them
HELD_OUT = [
    ("heavy-pack", "pack-first", "remove (unpacked ?item) from the delete list"),
    ("depot", "lift", "remove (at ?crate ?place) from the delete list"),
    ("trap-newspapers", "deliver", "remove (wantspaper ?loc) from the delete list"),
    ("miconic", "board", "add (above ?f ?f) to the add list"),
    ("track-building", "build-track", "add (forward ?loc ?loc) to the add list"),
    ("hiking", "walk", "add (not (iswater ?to)) to the precondition"),
    ("blocksworld", "pick-up", "remove (clear ?x) from the precondition"),
    ("gripper", "move", "remove (at-robby ?from) from the precondition"),
    ("logistics", "drive-truck", "remove (at ?truck ?from) from the delete list"),
]


@pytest.mark.parametrize(("domain", "action", "edit"), HELD_OUT, ids=[f"{d}-{a}" for d, a, _ in HELD_OUT])
def test_held_out_mutants_are_caught_without_the_reference_and_fixed(domain, action, edit):
    bundle = BUNDLES[domain]
    tests = load_tests(bundle)
    schema = bundle.domain.action(action)
    mutation = next(e for e in candidate_edits(bundle.domain, schema) if str(e) == edit)
    mutant = bundle.domain.with_action(apply_edits(schema, [mutation]))
    report = run_tests(mutant, tests)
    assert report.failed, f"the bundled tests of {domain} miss {action}: {edit}"
    search = quick_fixes(mutant, tests, report=report, time_limit_s=10)
    assert any(canonical_action(f.domain.action(action)) == canonical_action(schema) for f in search.fixes)


def _text_mutants():
    from tests.planning.test_equivalence import MUTANTS
    from tests.planning.test_proof_mutants import HEURISTIC_MISSES

    out = [(d, a, old, new) for _, d, a, old, new, expected in MUTANTS if expected.value != "Equivalent"]
    out += [(d, a, old, new) for d, a, old, new, _expected, _why in HEURISTIC_MISSES]
    return out


@pytest.mark.parametrize(("domain", "action", "old", "new"), _text_mutants(),
                         ids=[f"{d}-{a}-{i}" for i, (d, a, *_rest) in enumerate(_text_mutants())])
def test_the_proof_tests_mutants_are_caught_by_the_bundled_tests(domain, action, old, new):
    """The hand-written mutants of test_equivalence.py and test_proof_mutants.py (swapped parameters, effects on
    the wrong object, constants in preconditions...): each one the proof calls Different fails some bundled case."""
    from domain_drafter.core.answers import check_answer

    bundle = BUNDLES[domain]
    text = bundle.domain.action(action).to_pddl()
    assert old in text
    answer = check_answer(text.replace(old, new, 1), bundle.domain, action)
    assert answer.action is not None
    report = run_tests(bundle.domain.with_action(answer.action), load_tests(bundle), fail_fast=True)
    assert report.failed, f"the bundled tests of {domain} miss {action}: {old!r} -> {new!r}"
