"""Plan files as VAL and planners write them (planning/validator.read_plan): steps, numbers, costs,
comments, and junk refused with file:line:column."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.errors import PddlSyntaxError
from domain_drafter.planning.validator import PlanValidator, read_plan

BLOCKS_P01 = (("unstack", "c", "a"), ("put-down", "c"), ("pick-up", "b"), ("stack", "b", "c"),
              ("pick-up", "a"), ("stack", "a", "b"))


@pytest.fixture(scope="module")
def blocks_p01():
    bundle = next(b for b in load_bundled() if b.name == "blocksworld")
    return PlanValidator(bundle.domain, next(pf for pf in bundle.problems if pf.name == "p01").problem)


VAL_STYLE = """; a plan as VAL and planners write it
; cost = 6 (unit cost)
0: (unstack c a) [1]
1: (PUT-DOWN C) [1]

0.000: (pick-up b)  [1.000]
(stack b c)   ; b onto c
[4] (pick-up a)
(stack a b)
"""


def test_read_plan_reads_val_style_files(blocks_p01):
    plan = read_plan(VAL_STYLE)
    assert plan == BLOCKS_P01
    assert blocks_p01.validate(plan)


def test_read_plan_of_an_empty_or_comment_only_file():
    assert read_plan("") == ()
    assert read_plan("; nothing\n\n   ; still nothing\n") == ()


def test_read_plan_reads_several_steps_on_a_line():
    assert read_plan("(pick-up b)(stack b c)") == (("pick-up", "b"), ("stack", "b", "c"))


@pytest.mark.parametrize("text,line,column", [
    ("(pick-up b)\n  pick-up a\n", 2, 3),             # no parentheses
    ("(pick-up b)\n(pick-up a\n", 2, 1),              # unclosed step
    ("(pick-up b) junk\n", 1, 13),                     # junk after a step
    ("(pick-up b))\n", 1, 12),                         # stray closing parenthesis
    ("(pick-up (b))\n", 1, 1),                         # nested parentheses
    ("x: (pick-up b)\n", 1, 1),                        # not a step number
    ("(pick-up b) [one]\n", 1, 13),                    # not a cost
    ("\n\n   ()\n", 3, 4),                             # empty step
])
def test_read_plan_rejects_junk_with_line_and_column(text, line, column):
    with pytest.raises(PddlSyntaxError) as caught:
        read_plan(text, Path("plans/p01.plan"))
    where = caught.value.where
    assert (where.line, where.column) == (line, column)
    assert where.path == Path("plans/p01.plan")
    assert f"p01.plan:{line}:{column}" in str(caught.value)


def test_read_plan_without_a_path_says_text():
    with pytest.raises(PddlSyntaxError, match=r"<text>:1:1"):
        read_plan("junk")
