"""The action grammar admits the reference, rejects typical mistakes, and every sentence passes the checks."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
from tests.conftest import all_reference_actions

from domain_drafter.core.answers import check_answer
from domain_drafter.core.model import Atom, Literal
from domain_drafter.drafting.blind import hidden_bundle
from domain_drafter.llm.grammar import ActionGrammar

REFERENCE = all_reference_actions()


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_reference_action_is_a_sentence_of_its_grammar(bundles, domain, action):
    b = bundles[domain]
    grammar = ActionGrammar(b.domain, action)
    text = b.domain.action(action).to_pddl(indent="")
    assert grammar.is_complete(text)
    assert all(grammar.accepts_prefix(text[:i]) for i in range(0, len(text), 7))


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_every_sampled_sentence_passes_syntax_and_semantic_checks(bundles, domain, action):
    b = bundles[domain]
    grammar = ActionGrammar(b.domain, action)
    rng = random.Random(f"{domain}/{action}")
    for _ in range(40):
        sentence = grammar.sample(rng)
        assert grammar.is_complete(sentence)
        report = check_answer(sentence, b.domain, action)
        assert report.passed, (sentence, report.findings)


@pytest.mark.parametrize(("domain", "action"), REFERENCE)
def test_a_blind_grammar_is_the_grammar_and_admits_the_reference(bundles, domain, action):
    """The grammar reads the domain's other actions, never the target's body: with the body hidden (a blind
    search, drafting/blind.py) it is the same grammar, and it still admits the reference. Before, a predicate
    only the hidden action changes (track-building's has-track) was kept out of the effect."""
    b = bundles[domain]
    grammar = ActionGrammar(b.domain, action)
    blind = ActionGrammar(hidden_bundle(b, action).domain, action)
    assert blind.to_gbnf() == grammar.to_gbnf()
    assert blind.is_complete(b.domain.action(action).to_pddl(indent=""))


def test_a_predicate_other_actions_negate_is_never_changed_without_negative_preconditions(bundles):
    """Changing it would make another action's negation one of a fluent (a BPError with the answer in place)."""
    domain = bundles["track-building"].domain
    move = domain.action("move-train")
    never_back = Literal(Atom("forward", ("?next", "?cur")), positive=False)
    domain = domain.with_action(replace(move, precondition=(*move.precondition, never_back)))

    def effect_predicates(target):
        return {re.match(r"\((?:not \()?([^ )]+)", lit).group(1)
                for lit in ActionGrammar(domain, target).literal_sets()[1]}

    assert "forward" not in effect_predicates("build-track")
    assert "has-track" in effect_predicates("build-track")          # only the target changes it: still offered
    assert "forward" in effect_predicates("move-train")              # its own negation is the guard's to refuse


@pytest.mark.parametrize("mistake", [
    "(:action put-down\n  :parameters (?x - block)\n  :precondition (and (holding ?x - block)",   # typed atom
    "(:action putdown",                                                                          # wrong name
    "(:action put-down\n  :parameters (?x - block)\n  :precondition (and (arm-empty",             # made-up predicate
    "(:action put-down\n  :parameters (?x - block)\n  :precondition (and (on ?x)",                # wrong arity
    "(:action put-down\n  :parameters (?x - block)\n  :precondition (and (holding ?y",            # undeclared variable
    "(:action put-down\n  :parameters (?x - block)\n  :precondition (and (not (holding",          # negated fluent
    "(:action put-down\n  :parameters (?x - block)\n  :precondition (or",                         # beyond STRIPS
])
def test_typical_mistakes_are_not_prefixes_of_the_language(bundles, mistake):
    assert not ActionGrammar(bundles["blocksworld"].domain, "put-down").accepts_prefix(mistake)


def test_negated_static_predicate_and_negation_where_declared_are_offered(bundles):
    track = ActionGrammar(bundles["track-building"].domain, "move-train")
    assert track.accepts_prefix("(:action move-train\n  :parameters (?cur ?next - location)\n  :precondition "
                                "(and (not (forward ?next ?cur))")
    hiking = ActionGrammar(bundles["hiking"].domain, "walk")
    assert hiking.accepts_prefix("(:action walk\n  :parameters (?from ?to - loc)\n  :precondition (and (not (at ?to))")


def test_constants_fill_slots_of_their_type_only(bundles):
    grammar = ActionGrammar(bundles["gripper"].domain, "pick")
    head = "(:action pick\n  :parameters (?obj - ball ?room - room ?g - gripper)\n  :precondition (and "
    assert grammar.accepts_prefix(head + "(free left)")
    assert not grammar.accepts_prefix(head + "(at-robby left")


def test_free_signature_admits_other_parameter_names(bundles):
    grammar = ActionGrammar(bundles["blocksworld"].domain, "stack", lock_signature=False)
    assert grammar.is_complete("(:action stack\n  :parameters (?a - block ?b - block)\n  :precondition (and (holding ?a))"
                               "\n  :effect (and (on ?a ?b)))")


def test_gbnf_is_accepted_by_llama_cpp(bundles):
    import llama_cpp

    for b in bundles.values():
        for action in b.action_names:
            for lock in (True, False):
                gbnf = ActionGrammar(b.domain, action, lock_signature=lock).to_gbnf()
                assert gbnf.startswith("root ::= ")
                assert llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False) is not None


def test_sentences_stay_within_the_papers_token_budget(bundles):
    # at most 10 literals per section: the longest sentence must fit 300 tokens (~4 chars each, conservatively 3)
    for b in bundles.values():
        for action in b.action_names:
            grammar = ActionGrammar(b.domain, action)
            rng = random.Random(0)
            longest = max(len(grammar.sample(rng)) for _ in range(30))
            assert longest < 300 * 3


@pytest.mark.parametrize("action", ["drive", "fly", "load", "unload"])
def test_grammar_of_an_either_domain_admits_the_reference_and_only_passing_sentences(tmp_path, action):
    from tests.core.courier import write_courier

    from domain_drafter.core.bundle import load_bundle

    b = load_bundle(write_courier(tmp_path / "courier"))
    grammar = ActionGrammar(b.domain, action)
    assert grammar.is_complete(b.domain.action(action).to_pddl(indent=""))
    rng = random.Random(action)
    sentences = [grammar.sample(rng) for _ in range(40)]
    assert any("(in " in s for s in sentences) or action in ("drive", "fly")
    for sentence in sentences:
        report = check_answer(sentence, b.domain, action)
        assert report.passed, (sentence, report.findings)
