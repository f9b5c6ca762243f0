"""`describe`: starter descriptions from a bare domain.pddl load, fit the domain, and are marked for review."""

from __future__ import annotations

import shutil

import pytest

from domain_drafter.core.bundle import DESCRIPTIONS_FILE, bundled_names, bundled_root, load_bundle_path, load_bundled
from domain_drafter.core.descriptions import consistency_problems, load_descriptions
from domain_drafter.core.prompt import build_prompt
from domain_drafter.core.reader import read_domain
from domain_drafter.core.scaffold import REVIEW_MARK, describe, descriptions_toml, original_spelling, scaffold, words_of


def test_names_split_into_words_at_dashes_underscores_and_camel_case():
    assert words_of("isHomeBase") == ["is", "home", "base"]
    assert words_of("at-robby") == ["at", "robby"]
    assert words_of("nothing_above") == ["nothing", "above"]


def test_camel_case_is_recovered_from_the_text_although_the_model_lower_cases():
    text = "(define (domain d) (:predicates (isWater ?loc - loc) (water ?x)))"
    assert original_spelling("iswater", text) == "isWater"
    assert original_spelling("water", text) == "water"   # not the tail of isWater


def test_sentences_come_from_predicate_variable_and_type_names(bundles):
    hiking = bundles["hiking"]
    starter = scaffold(hiking.domain, hiking.domain_text)
    assert starter.predicates["iswater"].text == "loc {loc} is water"
    assert starter.predicates["iswater"].negated == "loc {loc} is not water"
    assert starter.predicates["adjacent"].text == "loc {from} is adjacent loc {to}"
    blocks = scaffold(bundles["blocksworld"].domain, bundles["blocksworld"].domain_text)
    assert blocks.predicates["handempty"].text == "handempty holds"
    assert blocks.actions["pick-up"] == "Pick up: block {x}."
    assert blocks.actions["stack"] == "Stack: block {x} and block {y}."


@pytest.mark.parametrize("name", bundled_names())
def test_describe_on_a_bare_bundled_domain_loads_and_prompts_every_action(name, tmp_path):
    folder = tmp_path / name
    shutil.copytree(bundled_root() / name, folder)
    (folder / DESCRIPTIONS_FILE).unlink()
    bare = load_bundle_path(folder)
    assert bare.descriptions is None
    text = describe(bare.domain, bare.domain_text)
    assert text.splitlines().count(REVIEW_MARK) == 1 + len(bare.domain.predicates) + len(bare.domain.actions)
    (folder / DESCRIPTIONS_FILE).write_text(text, encoding="utf-8")
    bundle = load_bundle_path(folder)
    assert consistency_problems(bundle.require_descriptions(), bundle.domain) == []
    pool = load_bundled()
    for action in bundle.action_names:
        prompt = build_prompt(bundle, action, pool)
        assert prompt.text.endswith("PDDL Action:\n")
        assert f'The action "{action}"' in prompt.description


def test_the_writer_escapes_quotes_and_odd_keys(tmp_path, bundles):
    domain = bundles["blocksworld"].domain
    desc = scaffold(domain)
    desc = type(desc)('a "quoted" summary\\ with a backslash', desc.predicates, desc.actions)
    path = tmp_path / DESCRIPTIONS_FILE
    path.write_text(descriptions_toml(desc, domain), encoding="utf-8")
    loaded = load_descriptions(path)
    assert loaded.summary == desc.summary
    assert loaded.predicates == desc.predicates and loaded.actions == desc.actions


def test_a_domain_with_untyped_and_ternary_predicates_gets_sentences():
    domain, _ = read_domain("(define (domain d) (:requirements :strips) (:predicates (between ?a ?b ?c) (lit ?x))"
                            " (:action go :parameters () :precondition (and (lit ?x)) :effect (and)))")
    starter = scaffold(domain)
    assert starter.predicates["between"].text == "between holds for {a}, {b} and {c}"
    assert starter.actions["go"] == "Go."
