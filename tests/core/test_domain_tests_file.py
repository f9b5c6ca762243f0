"""The tests file reader (issue 22): well-formed cases read back, every mistake is a TestsFileError at file:line."""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundle_path, load_bundled
from domain_drafter.core.domain_tests import NEGATIVE_KINDS, CaseKind
from domain_drafter.core.errors import TestsFileError
from domain_drafter.core.tests_reader import load_tests, parse_tests
from domain_drafter.core.tests_toml import case_toml

BLOCKS = load_bundled()[0]   # blocksworld, the first bundled domain by name


def read(text: str):
    assert BLOCKS.name == "blocksworld"
    return parse_tests(text, BLOCKS.domain, BLOCKS.problems)


def error_of(text: str) -> TestsFileError:
    with pytest.raises(TestsFileError) as info:
        read(text)
    return info.value


GOOD = """
[cases.first]
problem = "p01"
kind = "plan"
plan = ["(unstack c a)", "(put-down c)"]
reaches_goal = false
"""


def test_a_good_case_reads_with_its_line():
    tests = read("# a comment\n" + GOOD)
    (case,) = tests.cases
    assert case.kind is CaseKind.PLAN and case.plan == (("unstack", "c", "a"), ("put-down", "c"))
    assert case.line == 3 and case.reaches_goal is False and case.problem == "p01"


@pytest.mark.parametrize(("text", "line", "words"), [
    ('[cases.x]\nproblem = "p01"\nkind = "plann"\nplan = []\n', 3, "unknown kind 'plann'"),
    ('[cases.x]\nproblem = "p01"\nkind = "never"\nstate = "(and (holding ?x) (floating ?x))"\n', 4,
     "predicate 'floating', which the domain does not declare"),
    ('[cases.x]\nproblem = "p01"\nkind = "never"\nstate = """\n(holding ?x)\n(floating ?x)"""\n', 6,
     "does not declare"),
    ('[cases.x]\nproblem = "p09"\nkind = "reachable"\n', 2, "unknown problem 'p09'"),
    ('[cases.x]\nproblem = "p01"\nkind = "never"\nstate = "(on ?x)"\n', 4, "has 1 argument, but 'on' takes 2"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan = """\n(pick-up b)\n(stack b\n"""\n', 6,
     "does not parse"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan = ["(pick-up b)",\n  "(fly b)"]\n', 5,
     "names no action"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan = ["(pick-up z)"]\n', 4, "'z', which is no object"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan = ["(stack a)"]\n', 4, "'stack' takes 2 arguments, got 1"),
    ('[cases.x]\nproblem = "p01"\nkind = "effect"\naction = "(pick-up a)"\nholds = "(holding ?x)"\n', 5,
     "only a never, reachable or unreachable formula may use variables"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan = []\ncolour = "red"\n', 5, "unknown key 'colour'"),
    ('[cases.x]\nproblem = "p01"\nkind = "plan_fails"\nplan = ["(pick-up a)"]\nat_step = 3\n', 5,
     "'at_step' must be a step number from 1 to 1"),
    ('[cases.x]\nkind = "reachable"\n', 1, "needs a problem"),
    ('[cases.x]\nproblem = "p01"\nkind = "never"\nstate = "(or (on a b) (on b a))"\n', 4, "'or' is not supported"),
    ('[cases.x]\nproblem = "p01"\n', 1, "needs a kind"),
    ('[tests.x]\n', 1, "unknown table 'tests'"),
    ('[cases.x\n', 1, "not valid TOML"),
    ('[problems.small]\nobjects = "a b - block"\ninit = "(clear c)"\n[cases.x]\nproblem = "small"\nkind = "reachable"\n'
     'goal = "(on a b)"\n', 3, "'c', which is no object"),
])
def test_a_bad_tests_file_says_file_line_and_what(text, line, words):
    err = error_of(text)
    assert err.where.line == line, err.message
    assert words in err.message, err.message
    assert str(err.where).startswith("tests.toml:")
    assert err.exit_code == 3


def test_inline_problems_and_case_problems_are_read_against_the_domain():
    tests = read('[problems.two]\nobjects = "a b - block"\ninit = "(handempty) (ontable a) (ontable b) (clear a) '
                 '(clear b)"\ngoal = "(on a b)"\n\n[cases.stack]\nproblem = "two"\nkind = "reachable"\n\n'
                 '[cases.own]\nobjects = "a - block"\ninit = "(handempty) (ontable a) (clear a)"\nkind = "applicable"\n'
                 'action = "(pick-up a)"\n')
    assert tests.problems["two"].problem.goal[0].atom.args == ("a", "b")
    own = tests.case("own")
    assert tests.problems[own.problem].inline and tests.problems[own.problem].problem.objects[0].name == "a"
    assert str(tests.case("stack").formula) == "(on a b)"


@pytest.mark.parametrize("bundle", load_bundled(), ids=lambda b: b.name)
def test_every_bundled_domain_ships_a_tests_file_of_eight_cases_three_negative(bundle):
    tests = load_tests(bundle)
    assert len(tests.cases) >= 8
    assert sum(c.kind in NEGATIVE_KINDS for c in tests.cases) >= 3
    assert {c.kind for c in tests.cases} >= {CaseKind.PLAN, CaseKind.PLAN_FAILS, CaseKind.NEVER}


@pytest.mark.parametrize("bundle", load_bundled(), ids=lambda b: b.name)
def test_bundled_cases_written_back_read_back_equal(bundle, tmp_path):
    tests = load_tests(bundle)
    text = "\n".join(case_toml(c) for c in tests.cases if not tests.problems[c.problem].inline)
    again = parse_tests(text, bundle.domain, bundle.problems)
    for case in again.cases:
        original = tests.case(case.name)
        assert case.__class__(**{**case.__dict__, "line": 0, "description": ""}) == \
            original.__class__(**{**original.__dict__, "line": 0, "description": "", "plan_file": None})


def test_a_plan_file_is_read_beside_the_tests_file(tmp_path):
    import shutil

    folder = tmp_path / "bw"
    shutil.copytree(BLOCKS.folder, folder)
    (folder / "plans").mkdir()
    (folder / "plans" / "p01.plan").write_text("(unstack c a)\n(put-down c)\n; cost = 2\n")
    (folder / "tests.toml").write_text('[cases.x]\nproblem = "p01"\nkind = "plan"\nplan_file = "plans/p01.plan"\n'
                                       'reaches_goal = false\n')
    tests = load_tests(load_bundle_path(folder))
    assert tests.case("x").plan == (("unstack", "c", "a"), ("put-down", "c"))
    (folder / "plans" / "p01.plan").write_text("(unstack c a)\n(put-down\n")
    with pytest.raises(TestsFileError) as info:
        load_tests(load_bundle_path(folder))
    assert info.value.where.line == 2 and str(info.value.where.path).endswith("p01.plan")


def test_a_missing_tests_file_says_where_to_write_it(tmp_path):
    (tmp_path / "domain.pddl").write_text(BLOCKS.domain_text)
    with pytest.raises(TestsFileError) as info:
        load_tests(load_bundle_path(tmp_path))
    assert "no tests.toml" in info.value.message and info.value.hint


def test_the_bundle_loader_does_not_read_the_tests_file(tmp_path):
    import shutil

    folder = tmp_path / "bw"
    shutil.copytree(BLOCKS.folder, folder)
    (folder / "tests.toml").write_text("[cases.x\n")          # not even TOML
    bundle = load_bundle_path(folder)                          # loads all the same
    assert bundle.tests_file == folder / "tests.toml" and BLOCKS.tests_file is not None
    with pytest.raises(TestsFileError):
        load_tests(bundle)
    (folder / "tests.toml").unlink()
    assert load_bundle_path(folder).tests_file is None
