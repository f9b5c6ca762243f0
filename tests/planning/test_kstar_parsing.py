"""The K* adapter's settings and the parsing of its plans file, without running the planner."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain_drafter.planning.kstar import KStarPlanner, parse_plans, parse_step


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError):
        KStarPlanner(k=0)
    with pytest.raises(ValueError):
        KStarPlanner(time_limit_s=0)


def test_parse_step_and_plans_are_robust() -> None:
    assert parse_step("(PICK-UP A)") == ("pick-up", "a")
    assert parse_step("  stack  b   c ") == ("stack", "b", "c")
    assert parse_step("finish ") == ("finish",)
    plans, costs = parse_plans({"plans": [{"cost": 2, "actions": ["(a x)", "b"]},
                                          {"cost": 2, "actions": ["A X", "(B)"]},
                                          {"cost": 3, "actions": ["c"]}]})
    assert plans == ((("a", "x"), ("b",)), (("c",),)) and costs == (2.0, 3.0)
    for bad in ([], {"plans": None}, {"plans": [{"cost": 1}]}):
        with pytest.raises(ValueError):
            parse_plans(bad)


@given(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,8}", fullmatch=True), min_size=1, max_size=5),
       st.booleans())
def test_parse_step_round_trips(parts: list[str], parenthesised: bool) -> None:
    text = " ".join(parts)
    assert parse_step(f"({text})" if parenthesised else text) == tuple(p.lower() for p in parts)
