"""Description classes are generated from the templates, deterministically, for any domain."""

from __future__ import annotations

import pytest
from tests.conftest import all_reference_actions

from domain_drafter.core.descriptions import (
    DescriptionClass,
    base_description,
    consistency_problems,
    describe_action,
    describe_literal,
)
from domain_drafter.core.model import Atom, Literal

REFERENCE = all_reference_actions()


@pytest.mark.parametrize("domain", sorted({d for d, _ in REFERENCE}))
def test_bundled_descriptions_cover_every_predicate_and_action(bundles, domain):
    bundle = bundles[domain]
    assert consistency_problems(bundle.descriptions, bundle.domain) == []


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
@pytest.mark.parametrize("cls", list(DescriptionClass))
def test_description_is_deterministic_for_a_seed(bundles, domain, action, cls):
    b = bundles[domain]
    first = describe_action(b.domain, b.descriptions, action, cls, seed=7)
    assert first == describe_action(b.domain, b.descriptions, action, cls, seed=7)
    assert "{" not in first and "}" not in first, "every placeholder is filled"


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_base_names_the_action_and_every_parameter_with_its_type(bundles, domain, action):
    b = bundles[domain]
    schema = b.domain.action(action)
    text = describe_action(b.domain, b.descriptions, action, DescriptionClass.BASE)
    assert f'"{action}"' in text
    for p in schema.parameters:
        assert f"{p.name} of type {p.type}" in text
    assert "(" not in text, "base descriptions name no predicate"


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_flipped_states_each_precondition_the_action_deletes_as_a_condition(bundles, domain, action):
    b = bundles[domain]
    schema = b.domain.action(action)
    text = describe_action(b.domain, b.descriptions, action, DescriptionClass.FLIPPED)
    flipped = [l for l in schema.precondition if l.positive and l.atom in schema.delete]
    base = base_description(schema, b.descriptions)
    if not flipped:
        assert text == base
        return
    assert text.startswith(base) and " if " in text
    for literal in flipped:
        assert describe_literal(literal, b.domain, b.descriptions) in text


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_random_draws_as_many_items_as_flipped_has_and_varies_with_the_seed(bundles, domain, action):
    b = bundles[domain]
    schema = b.domain.action(action)
    n = sum(1 for l in schema.precondition if l.positive and l.atom in schema.delete)
    texts = {describe_action(b.domain, b.descriptions, action, DescriptionClass.RANDOM, s) for s in range(12)}
    if n == 0:
        assert texts == {base_description(schema, b.descriptions)}
    else:
        for text in texts:
            extra = text[len(base_description(schema, b.descriptions)):]
            assert extra.count(" and ") + extra.count(", ") + ("if" in extra) + ("After the action" in extra) >= n


def test_blocksworld_flipped_put_down_reads_as_the_paper_intends(bundles):
    b = bundles["blocksworld"]
    text = describe_action(b.domain, b.descriptions, "put-down", DescriptionClass.FLIPPED)
    assert text.endswith("The action can only happen if the hand is holding block ?x.")


def test_delete_effect_is_phrased_with_the_negated_template(bundles):
    b = bundles["blocksworld"]
    said = describe_literal(Literal(Atom("holding", ("?x",)), positive=False), b.domain, b.descriptions)
    assert said == "the hand is not holding block ?x"
