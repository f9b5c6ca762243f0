"""Every reference action, fed back as an answer, passes both checks with ARE 0; models round-trip."""

from __future__ import annotations

import pytest
from tests.conftest import all_reference_actions

from domain_drafter.core.answers import check_answer
from domain_drafter.core.are import action_reconstruction_error
from domain_drafter.core.reader import read_domain, read_problem

REFERENCE = all_reference_actions()


def test_the_nine_domains_hold_the_32_actions_of_the_paper():
    assert len(REFERENCE) == 32
    assert len({d for d, _ in REFERENCE}) == 9


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_reference_action_as_written_in_the_file_passes_with_are_zero(bundles, domain, action):
    bundle = bundles[domain]
    _, parsed = read_domain(bundle.domain_text)
    written = next(p for p in parsed if p.name == action)
    answer = "Here is the action:\n" + bundle.domain_text[written.span[0]:written.span[1]] + "\nDone."
    report = check_answer(answer, bundle.domain, action)
    assert report.passed, report.findings
    are = action_reconstruction_error(bundle.domain.action(action), report.action)
    assert (are.total, are.pre.value, are.add.value, are.delete.value) == (0, 0, 0, 0)


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_canonical_print_of_reference_action_passes_and_is_identical(bundles, domain, action):
    bundle = bundles[domain]
    reference = bundle.domain.action(action)
    report = check_answer(reference.to_pddl(), bundle.domain, action)
    assert report.passed
    assert report.action == reference


@pytest.mark.parametrize("domain", sorted({d for d, _ in REFERENCE}))
def test_domain_and_problems_round_trip_through_print_and_parse(bundles, domain):
    bundle = bundles[domain]
    reparsed, _ = read_domain(bundle.domain.to_pddl())
    assert reparsed == bundle.domain
    assert len(bundle.problems) == 2
    for problem in bundle.problems:
        assert read_problem(problem.problem.to_pddl()) == problem.problem
        assert problem.problem.goal, "a problem needs a goal"
