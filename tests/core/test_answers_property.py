"""Property tests: no answer string, however odd, makes the checks raise; each gets exactly one verdict."""

from __future__ import annotations

import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.classes import Subclass

BLOCKS = load_bundle("blocksworld")
GRIPPER = load_bundle("gripper")
REFERENCE = BLOCKS.domain.action("stack").to_pddl()

PDDL_PIECES = ["(", ")", ":action", ":parameters", ":precondition", ":effect", "and", "not", "or", "=", "?x", "?y",
               "- block", "stack", "on", "clear", "holding", "handempty", "left", " ", "\n", ";", "forall", "when",
               "\x00", "\udcff", "é", "–"]  # noqa: RUF001 - an en dash on purpose: non-ASCII text


def assert_one_verdict(answer: str, bundle=BLOCKS, action: str = "stack") -> None:
    limit = getattr(sys, "tracebacklimit", None)
    report = check_answer(answer, bundle.domain, action)
    # exactly one verdict: either passed, or a deciding subclass of the first two classes
    assert report.passed == (report.subclass is None)
    if not report.passed:
        assert report.subclass.result_class.is_error
        for finding in report.findings:
            assert 0 <= finding.span[0] <= finding.span[1] <= len(answer)
            assert finding.message
        decided = report.findings[0].subclass
        assert all(f.subclass.rank >= decided.rank for f in report.findings)
    assert getattr(sys, "tracebacklimit", None) == limit


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_arbitrary_text_never_raises(answer):
    assert_one_verdict(answer)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PDDL_PIECES), max_size=60).map(" ".join))
def test_pddl_shaped_noise_never_raises(answer):
    assert_one_verdict(answer)


@st.composite
def mutated_reference(draw):
    text = REFERENCE
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if op == "delete":
            j = draw(st.integers(i, min(len(text), i + 12)))
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(PDDL_PIECES)) + text[i:]
        else:
            j = draw(st.integers(i, min(len(text), i + 30)))
            text = text[:j] + text[i:j] + text[j:]
    return text


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_reference())
def test_mutated_reference_actions_never_raise(answer):
    assert_one_verdict(answer)
    assert_one_verdict(answer, GRIPPER, "move")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_non_utf8_junk_decoded_with_replacement_never_raises(data):
    assert_one_verdict(data.decode("utf-8", errors="replace"))
    assert_one_verdict(data.decode("latin-1"))
    assert_one_verdict(data.decode("utf-8", errors="surrogateescape"))


def test_ten_thousand_deep_parentheses_are_a_syntax_error_not_a_crash():
    for answer in ["(" * 10_000 + ")" * 10_000, "(" * 10_000, "(:action stack " + "(not " * 10_000 + ")" * 10_001,
                   ")" * 10_000 + "(" * 10_000 + ")" * 10_000]:
        report = check_answer(answer, BLOCKS.domain, "stack")
        assert report.subclass in (Subclass.U_TOKEN, Subclass.P_ERROR)


def test_a_megabyte_answer_is_checked_without_trouble():
    report = check_answer("blah " * 200_000 + REFERENCE, BLOCKS.domain, "stack")
    assert report.passed
