"""Under an action grammar no literal is written twice in one section (llm/literal_guard.py).

The rules on hand-written text, then real llama.cpp on the tiny model, greedy and sampled, one
batch and one at a time: with the literals listed, no answer repeats a literal; without them the
same decoding does (so the guard is what removes them).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from pddl_text import section_literals

from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import DEFAULT_MAX_LITERALS, ActionGrammar
from domain_drafter.llm.literal_guard import LiteralGuard, written_literals

HEAD = "(:action load-airplane\n  :parameters (?pkg - package ?airplane - airplane ?place - airport)\n"


def repeated(text: str) -> int:
    return sum(len(lits) - len(set(lits)) for lits in section_literals(text))


@pytest.fixture(scope="module")
def airplane(bundles):
    return LiteralGuard(ActionGrammar(bundles["logistics"].domain, "load-airplane").literal_sets())


def test_the_grammar_lists_every_literal_of_each_section(bundles):
    pre, eff = ActionGrammar(bundles["logistics"].domain, "load-airplane").literal_sets()
    assert set(pre) == {"(at ?pkg ?place)", "(at ?airplane ?place)", "(in ?pkg ?airplane)"}
    assert set(eff) == set(pre) | {f"(not {lit})" for lit in pre}
    grammar = ActionGrammar(bundles["logistics"].domain, "load-airplane")
    assert all(grammar.accepts_prefix(HEAD + "  :precondition (and " + lit) for lit in pre)


def test_an_unlocked_signature_has_no_list(bundles):
    assert ActionGrammar(bundles["logistics"].domain, "load-airplane", lock_signature=False).literal_sets() is None


def test_a_repeat_is_banned_as_soon_as_it_is_certain(airplane):
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane) "
    state = airplane.state()
    assert state == (0, {"(in ?pkg ?airplane)", "(not (in ?pkg ?airplane))"}, "")
    assert airplane.repeats("(in", state)                  # the only `in` literal is written
    assert airplane.repeats(" (in", state)
    assert airplane.repeats("(in ?pkg ?airplane)", state)
    assert not airplane.repeats("(at", state)               # two `at` literals are left
    assert not airplane.repeats(")", state)                 # closing the conjunction is always free
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane) (at ?pkg ?place) (at"
    state = airplane.state()
    assert state[0] == 0 and {"(in ?pkg ?airplane)", "(at ?pkg ?place)"} <= state[1] and state[2] == "(at"
    assert airplane.repeats(" ?pkg", state) and not airplane.repeats(" ?airplane", state)


def test_each_section_counts_its_own_literals(airplane):
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane))\n  :effect (and "
    state = airplane.state()
    assert state == (1, set(), "")
    assert not airplane.repeats("(in ?pkg ?airplane)", state)      # written in the precondition only
    airplane.text += "(in ?pkg ?airplane) (not (at ?pkg ?place)) (not"
    state = airplane.state()
    assert not airplane.repeats(" (at ?airplane", state)
    assert airplane.repeats(" (at ?pkg ?place)", state)       # written already
    airplane.text = airplane.text[:-len("(not")]
    assert airplane.repeats("(not (in", airplane.state())       # the negation of a literal written


def test_a_literal_and_its_negation_are_never_both_written(bundles):
    guard = LiteralGuard(ActionGrammar(bundles["blocksworld"].domain, "pick-up").literal_sets())
    guard.text = "(:action pick-up\n  :parameters (?x - block)\n  :precondition (and)\n  :effect (and (clear ?x) (not (holding"
    assert not guard.repeats(" ?x)", guard.state())     # (not (holding ?x)) with (clear ?x): allowed
    guard.text += " ?x)) (not (clear"
    assert guard.repeats(" ?x", guard.state())          # (not (clear ?x)) with (clear ?x): banned
    guard.text = guard.text[:-len(" (not (clear")] + " (holding"
    assert guard.repeats(" ?x", guard.state())          # (holding ?x) with (not (holding ?x)): banned


def test_a_space_is_banned_when_no_literal_is_left_to_write(airplane):
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane) (at ?pkg ?place) (at ?airplane ?place)"
    state = airplane.state()
    assert airplane.repeats(" ", state) and not airplane.repeats(")", state)


def test_outside_a_conjunction_nothing_is_banned(airplane):
    logits = np.zeros(8, dtype=np.float32)
    for text in (HEAD, HEAD + "  :precondition (and (in ?pkg ?airplane))\n"):
        airplane.text = text
        assert airplane.state() is None
        assert airplane.mask(logits, lambda t: "(in", lambda ids: np.ones(len(ids), bool)) == 0
    assert np.all(np.isfinite(logits))


def test_mask_never_bans_the_last_way_on(airplane):
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane) "
    pieces = {0: "(in", 1: "(at", 2: " (in"}
    logits = np.array([3.0, 1.0, 2.0], dtype=np.float32)
    assert airplane.mask(logits, pieces.__getitem__, lambda ids: np.ones(len(ids), bool)) == 2
    assert list(np.isfinite(logits)) == [False, True, False]
    logits = np.array([3.0, 1.0, 2.0], dtype=np.float32)   # the grammar refuses "(at": nothing else is left
    assert airplane.mask(logits, pieces.__getitem__, lambda ids: ids != 1) == 0
    assert np.all(np.isfinite(logits))


def test_mask_looks_past_the_likeliest_tokens_for_a_way_on(airplane):
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane) "
    n = LiteralGuard.TOP + 10
    logits = np.arange(n, 0, -1).astype(np.float32)        # token 0 likeliest

    def piece(tok: int) -> str:
        return "(at" if tok == n - 1 else "(in"

    assert airplane.mask(logits, piece, lambda ids: np.ones(len(ids), bool)) == n - 1
    assert int(np.argmax(logits)) == n - 1


def test_for_sampling_every_repeat_above_the_top_k_ways_on_is_banned(airplane):
    airplane.text = HEAD + "  :precondition (and (in ?pkg ?airplane) "
    pieces = ["(in", "(at", "(in", "(at", "(in", "(at"]
    logits = np.array([6, 5, 4, 3, 2, -np.inf], dtype=np.float32)   # token 5: refused by the grammar
    assert airplane.mask_refused(logits, pieces.__getitem__, keep=2) == 2      # 0 and 2; 4 is below two ways on
    assert list(np.isfinite(logits)) == [False, True, False, True, True, False]
    only_repeats = np.array([6, -np.inf, 4, -np.inf, 2, -np.inf], dtype=np.float32)
    assert airplane.mask_refused(only_repeats, pieces.__getitem__, keep=2) == 0


@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_no_answer_of_the_tiny_model_repeats_a_literal(tiny_backend, bundles, temperature):
    """Every action of three domains: the guard removes the repeats the same decoding writes without it."""
    written_without = 0
    for name in ("blocksworld", "depot", "heavy-pack"):
        bundle = bundles[name]
        for action in bundle.action_names:
            grammar = ActionGrammar(bundle.domain, action)
            for seed in range(3):
                base = DecodingOptions(temperature=temperature, seed=seed, max_tokens=300)
                guarded = tiny_backend.generate(f"Write {action} {seed}", grammar.decoding(base))
                bare = tiny_backend.generate(f"Write {action} {seed}", replace(base, grammar=grammar.to_gbnf()))
                assert grammar.is_complete(guarded.text.strip()) or guarded.stats.stop_reason == "length"
                assert repeated(guarded.text) == 0, guarded.text
                written_without += repeated(bare.text)
    assert written_without > 0


def test_guarded_sampling_is_reproducible_for_a_seed(tiny_backend, bundles):
    grammar = ActionGrammar(bundles["depot"].domain, "load")
    options = grammar.decoding(DecodingOptions(temperature=0.9, seed=11))
    first, again = (tiny_backend.generate("Write load", options).text for _ in range(2))
    others = {tiny_backend.generate("Write load", replace(options, seed=s)).text for s in range(12, 18)}
    assert first == again and repeated(first) == 0
    assert others - {first}, "other seeds should give other answers"


def test_batched_answers_repeat_no_literal_either(tiny_backend, bundles):
    bundle = bundles["blocksworld"]
    grammar = ActionGrammar(bundle.domain, "put-down")
    options = [grammar.decoding(DecodingOptions(temperature=t, seed=s)) for t in (0.0, 0.9) for s in range(3)]
    answers = tiny_backend.generate_batch([f"Write put-down {i}" for i in range(len(options))], options)
    assert all(repeated(a.text) == 0 for a in answers)
    assert all(grammar.is_complete(a.text.strip()) for a in answers)


def test_a_forbidden_literal_is_refused_from_the_start_of_its_section_only(bundles):
    literals = ActionGrammar(bundles["logistics"].domain, "load-airplane").literal_sets()
    guard = LiteralGuard(literals, forbidden=((), ("(not (at ?airplane ?place))",)))
    guard.text = HEAD + "  :precondition (and "
    assert not guard.repeats("(at ?airplane ?place)", guard.state())    # the precondition may hold it
    guard.text += "(at ?airplane ?place))\n  :effect (and "
    state = guard.state()
    assert guard.repeats("(not (at ?airplane", state)                   # the only `at ?airplane` delete
    assert not guard.repeats("(not (at ?pkg ?place))", state)
    assert not guard.repeats("(at ?airplane ?place)", state)             # its complement is not forbidden


@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_the_tiny_model_never_writes_a_forbidden_literal(tiny_backend, bundles, temperature):
    """The literals the guard is told to forbid never appear in their section, where the same decoding without
    them writes some of them (so the guard is what keeps them out)."""
    bundle = bundles["blocksworld"]
    written_without = 0
    for action in bundle.action_names:
        grammar = ActionGrammar(bundle.domain, action)
        pre, eff = grammar.literal_sets()
        for seed in range(3):
            base = grammar.decoding(DecodingOptions(temperature=temperature, seed=seed, max_tokens=300))
            bare = tiny_backend.generate(f"Write {action} {seed}", base)
            sections = section_literals(bare.text)
            forbid = tuple(tuple(sorted(set(s))) for s in sections) if len(sections) == 2 else (pre[:2], eff[:2])
            written_without += sum(len(s) for s in forbid)
            guided = tiny_backend.generate(f"Write {action} {seed}", replace(base, forbidden=forbid))
            for held, refused in zip(section_literals(guided.text), forbid):
                assert not set(held) & set(refused), guided.text
    assert written_without > 0


def test_the_effect_is_not_closed_into_an_answer_judged_before(bundles):
    literals = ActionGrammar(bundles["logistics"].domain, "load-airplane").literal_sets()
    judged = HEAD + "  :precondition (and (at ?airplane ?place))\n  :effect (and (in ?pkg ?airplane) (not (at ?pkg ?place))))"
    guard = LiteralGuard(literals, judged=[judged])
    guard.text = HEAD + "  :precondition (and (at ?airplane ?place))\n  :effect (and (not (at ?pkg ?place))"
    state = guard.state()
    assert not guard.repeats(")", state)                     # one effect literal short of the judged answer
    guard.text += " (in ?pkg ?airplane)"                    # now the same answer, in another order
    state = guard.state()
    assert guard.repeats(")", state) and guard.repeats("))", state)
    assert not guard.repeats(" ", state)                     # another literal may still be written
    guard.text = HEAD + "  :precondition (and (at ?airplane ?place) (at ?pkg ?place))\n  :effect (and " \
                        "(in ?pkg ?airplane) (not (at ?pkg ?place))"
    assert not guard.repeats(")", guard.state())             # another precondition: a new answer


def test_written_literals_reads_both_sections_whatever_the_layout():
    text = "(:action a :parameters (?x)\n :precondition (and (p  ?x)\n(not (q ?x)))\n :effect (and ( r ?x ) ))"
    assert written_literals(text) == (frozenset({"(p ?x)", "(not (q ?x))"}), frozenset({"(r ?x)"}))


@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_the_tiny_model_never_writes_an_answer_judged_before(tiny_backend, bundles, temperature):
    """Told its earlier answers, the same decoding writes a new one, unless nothing new can follow the effect
    it has written (every literal or its negation written, or the section full). Without them it repeats
    itself: the guard is what makes the answers new."""
    bundle = bundles["logistics"]
    repeats_without = made_new = 0
    for action in bundle.action_names:
        grammar = ActionGrammar(bundle.domain, action)
        effect_literals = set(grammar.literal_sets()[1])
        base = grammar.decoding(DecodingOptions(temperature=temperature, seed=1, max_tokens=300))
        judged: set[tuple[frozenset[str], frozenset[str]]] = set()
        texts: list[str] = []
        for _ in range(3):
            bare = written_literals(tiny_backend.generate(f"Write {action}", base).text)
            told = tuple(texts) or None
            answer = tiny_backend.generate(f"Write {action}", replace(base, judged=told))
            assert grammar.is_complete(answer.text.strip()), answer.text
            pre, eff = written_literals(answer.text)
            dead_end = len(eff) >= DEFAULT_MAX_LITERALS or not effect_literals - eff - {
                lit[5:-1] if lit.startswith("(not ") else f"(not {lit})" for lit in eff}
            assert (pre, eff) not in judged or dead_end, answer.text
            if bare in judged:
                repeats_without += 1
                made_new += (pre, eff) not in judged
            judged.add((pre, eff))
            texts.append(answer.text)
    assert repeats_without > 0 and made_new > 0


def test_a_token_that_ends_the_last_literal_and_the_effect_at_once_is_refused_too(bundles):
    literals = ActionGrammar(bundles["logistics"].domain, "load-airplane").literal_sets()
    guard = LiteralGuard(literals, judged=[HEAD + "  :precondition (and)\n  :effect (and (in ?pkg ?airplane)))"])
    guard.text = HEAD + "  :precondition (and)\n  :effect (and (in ?pkg ?airplane"
    state = guard.state()
    assert guard.repeats("))", state) and guard.repeats(") )", state)
    assert not guard.repeats(")", state)                     # the literal alone: another may follow it


def test_an_effect_literal_that_leaves_only_judged_answers_is_refused_as_early_as_certain(bundles):
    """depot drive, as Qwen2.5-Coder 1.5B wrote it ten calls in a row: after `(not (at ?truck ?from))`, writing
    `(not (at ?truck ?to))` leaves no literal to add (each is written or negated), so it can only close into the
    judged answer; the guard refuses it there, while `(at ?truck ?to)` and closing stay open."""
    literals = ActionGrammar(bundles["depot"].domain, "drive").literal_sets()
    head = "(:action drive\n  :parameters (?truck - truck ?from ?to - place)\n" \
           "  :precondition (and (at ?truck ?from) (at ?truck ?to))\n  :effect (and "
    judged = head + "(not (at ?truck ?from)) (not (at ?truck ?to))))"
    guard = LiteralGuard(literals, judged=[judged])
    guard.text = head + "(not (at ?truck ?from))"
    state = guard.state()
    assert guard.repeats(" (not (at ?truck ?to))", state) and guard.repeats(" (not", state)
    assert not guard.repeats(" (at ?truck ?to)", state) and not guard.repeats(")", state)
    assert not guard.repeats(" (", state)                    # `(at ?truck ?to)` may still follow
    guard.text = head
    assert not guard.repeats("(not (at ?truck ?to))", guard.state())   # first: `(at ?truck ?from)` may follow it
    other = LiteralGuard(literals, judged=[judged.replace("(at ?truck ?to))\n", "(at ?truck ?from))\n")])
    other.text = head + "(not (at ?truck ?from))"
    assert not other.repeats(" (not (at ?truck ?to))", other.state())   # judged with another precondition


def test_a_precondition_that_leaves_only_judged_effects_is_refused_as_early_as_certain(bundles):
    """gripper move, as Qwen2.5-Coder 1.5B wrote it with tests, blind (8 of its 16 calls were the first answer
    again): after `(not (at-robby ?to))` in the precondition, the effect may not touch at-robby (gripper has no
    :negative-preconditions) and may not delete a gripper's `free` (the search forbids it), so once the four
    effects on `free` are judged, that literal, and closing the precondition after it, lead only to judged answers.
    With one of them judged, both stay open."""
    grammar = ActionGrammar(bundles["gripper"].domain, "move")
    assert grammar.static_negations
    forbidden = ((), ("(not (free left))", "(not (free right))"))   # as the search forbids them (unbalanced deletes)
    head = ("(:action move\n  :parameters (?from ?to - room)\n  :precondition (and (at-robby ?from) (free right) "
            "(free left)")
    pre = head + " (not (at-robby ?to)))\n  :effect (and "
    judged = [pre + effect + "))" for effect in ("(free right) (free left)", "(free right)", "(free left)", "")]
    for told, refused in ((judged[:1], False), (judged, True)):
        guard = LiteralGuard(grammar.literal_sets(), forbidden, told, static_negations=True)
        guard.text = head + " (not (at-robby ?to))"
        assert guard.repeats(")", guard.state()) is refused           # closing the precondition
        guard.text = head + " "
        state = guard.state()
        assert guard.repeats("(not (at-robby ?to))", state) is refused
        assert guard.repeats("(not (at", state) is refused              # as early as it is certain
        assert not guard.repeats("(at-robby ?to)", state)                # another precondition stays open
        guard.text = head
        assert not guard.repeats(")", guard.state())                     # and closing before it


def test_a_token_that_ends_a_literal_and_closes_the_precondition_into_judged_effects_only_is_refused(bundles):
    """As above without `(free left)`: after `(not (at-robby ?to))` the precondition may still grow by `(free
    left)`, so the literal stays open, but closing the precondition right after it, in the same token or the next,
    leaves only the four judged effects."""
    grammar = ActionGrammar(bundles["gripper"].domain, "move")
    forbidden = ((), ("(not (free left))", "(not (free right))"))
    head = "(:action move\n  :parameters (?from ?to - room)\n  :precondition (and (at-robby ?from) (free right)"
    pre = head + " (not (at-robby ?to)))\n  :effect (and "
    judged = [pre + effect + "))" for effect in ("(free right) (free left)", "(free right)", "(free left)", "")]
    guard = LiteralGuard(grammar.literal_sets(), forbidden, judged, static_negations=True)
    guard.text = head + " (not (at-robby ?to"
    state = guard.state()
    assert guard.repeats(")))", state) and guard.repeats("))) ", state)
    assert not guard.repeats("))", state)                               # the literal alone: (free left) may follow
    guard.text = head + " (not (at-robby ?to))"
    assert guard.repeats(")", guard.state()) and not guard.repeats(" (free left)", guard.state())


def test_an_effect_on_a_predicate_the_precondition_negates_is_refused_without_negative_preconditions(bundles):
    """Track-building has no :negative-preconditions: an answer that negates `has-track` in its precondition and
    builds the track is a BPError with itself in place, so the guard refuses that effect; with the flag off it
    does not (the flag is what refuses it)."""
    grammar = ActionGrammar(bundles["track-building"].domain, "build-track")
    assert grammar.static_negations
    head = "(:action build-track\n  :parameters (?loc - location)\n  :precondition (and "
    for static_negations in (True, False):
        guard = LiteralGuard(grammar.literal_sets(), static_negations=static_negations)
        guard.text = head + "(agent-at ?loc) (not (has-track ?loc)))\n  :effect (and "
        state = guard.state()
        assert guard.repeats("(has-track ?loc)", state) is static_negations
        assert guard.repeats("(has", state) is static_negations              # as early as it is certain
        assert not guard.repeats("(agent-at ?loc)", state)                   # another predicate stays open
    guard = LiteralGuard(grammar.literal_sets(), static_negations=True)
    guard.text = head + "(agent-at ?loc))\n  :effect (and "
    assert not guard.repeats("(has-track ?loc)", guard.state())              # nothing negated: nothing refused


def test_the_grammar_tells_the_guard_to_keep_negations_static_only_without_negative_preconditions(bundles):
    assert ActionGrammar(bundles["gripper"].domain, "pick").decoding(DecodingOptions()).static_negations
    assert not ActionGrammar(bundles["hiking"].domain, "walk").decoding(DecodingOptions()).static_negations


def test_an_exclusive_precondition_literal_is_refused_once_the_other_is_written(bundles):
    """Gripper: a ball is never in a room and in a gripper at once, so after `(at ?obj ?room)` the precondition may
    not hold `(carry ?obj ?g)` (as early as `(carry ?obj` is certain); the effect may, and without the pair the
    precondition may too."""
    literals = ActionGrammar(bundles["gripper"].domain, "pick").literal_sets()
    head = "(:action pick\n  :parameters (?obj - ball ?room - room ?g - gripper)\n  :precondition (and "
    pairs = (("(at ?obj ?room)", "(carry ?obj ?g)"),)
    guard = LiteralGuard(literals, exclusive=pairs)
    guard.text = head + "(at ?obj ?room) "
    state = guard.state()
    assert guard.repeats("(carry ?obj ?g)", state)
    assert not guard.repeats("(at-robby ?room)", state)
    guard.text = head + "(carry ?obj ?g) "
    assert guard.repeats("(at ?obj ?room)", guard.state())                # either way round
    guard.text = head + "(at ?obj ?room))\n  :effect (and "
    assert not guard.repeats("(carry ?obj ?g)", guard.state())            # the effect is not the precondition
    plain = LiteralGuard(literals)
    plain.text = head + "(at ?obj ?room) "
    assert not plain.repeats("(carry ?obj ?g)", plain.state())


def test_the_effect_may_not_delete_what_the_precondition_makes_false(bundles):
    """Blocksworld stack: holding a block, the hand is not empty (one invariant group), so `(not (handempty))` in the
    effect does nothing, and written it keeps `(handempty)` out; refused once `(holding ?x)` is in the precondition."""
    from domain_drafter.drafting.options import DraftOptions
    from domain_drafter.drafting.search import draft_decoding

    decoding = draft_decoding(bundles["blocksworld"], "stack", DraftOptions(grammar=True))
    guard = LiteralGuard(decoding.literals, exclusive=decoding.exclusive)
    head = "(:action stack\n  :parameters (?x ?y - block)\n  :precondition (and "
    guard.text = head + "(holding ?x) (clear ?y))\n  :effect (and "
    state = guard.state()
    assert guard.repeats("(not (handempty))", state)
    assert not guard.repeats("(handempty)", state) and not guard.repeats("(not (holding ?x))", state)
    assert guard.repeats("(clear ?y)", state)                          # the precondition holds it already
    assert not guard.repeats("(not (clear ?y))", state)
    guard.text = head + "(clear ?y))\n  :effect (and "
    assert not guard.repeats("(not (handempty))", guard.state())      # nothing says the hand is not empty


def test_a_dead_end_counts_the_effects_that_do_nothing(bundles):
    """Logistics unload-airplane, after Qwen's blind search had judged four answers: once the effect holds
    `(not (in ?pkg ?airplane))`, deleting the airplane's place leaves only judged answers and a delete that does
    nothing (the package is in the plane, so not at the place), so that delete is refused as a dead end, and the
    package's arrival stays open."""
    from domain_drafter.drafting.options import DraftOptions
    from domain_drafter.drafting.search import draft_decoding

    decoding = draft_decoding(bundles["logistics"], "unload-airplane", DraftOptions(grammar=True))
    head = ("(:action unload-airplane\n  :parameters (?pkg - package ?airplane - airplane ?place - airport)\n"
            "  :precondition (and (in ?pkg ?airplane) (at ?airplane ?place))\n  :effect (and ")
    judged = [head + effect + ")" for effect in (
        "(not (in ?pkg ?airplane)) (not (at ?airplane ?place)) (at ?pkg ?place))",
        "(in ?pkg ?airplane) (not (at ?airplane ?place)) (at ?pkg ?place))",
        "(not (in ?pkg ?airplane)) (not (at ?airplane ?place)))",
        "(in ?pkg ?airplane) (not (at ?airplane ?place)))")]
    # The search's grammar now refuses this delete outright (invariants.unbalanced_deletes: nothing the action may
    # add puts the airplane back somewhere); here it stays allowed, to exercise the dead-end count on its own.
    assert "(not (at ?airplane ?place))" in decoding.forbidden[1]
    allowed = ((), ())
    guard = LiteralGuard(decoding.literals, allowed, judged, exclusive=decoding.exclusive)
    guard.text = head + "(not (in ?pkg ?airplane)) "
    state = guard.state()
    assert guard.repeats("(not (at ?airplane ?place))", state)
    assert not guard.repeats("(at ?pkg ?place)", state)
    plain = LiteralGuard(decoding.literals, allowed, judged)     # without the pairs: a way on is left
    plain.text = guard.text
    assert not plain.repeats("(not (at ?airplane ?place))", plain.state())


@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_the_tiny_model_never_writes_an_exclusive_pair(tiny_backend, bundles, temperature):
    """Under the search's decoding (drafting/search.draft_decoding: the grammar and the domain's exclusive pairs)
    no precondition holds both literals of a pair, over blocksworld's actions and three seeds."""
    from domain_drafter.drafting.options import DraftOptions
    from domain_drafter.drafting.search import draft_decoding

    bundle = bundles["blocksworld"]
    checked = 0
    for action in bundle.action_names:
        base = draft_decoding(bundle, action, DraftOptions(grammar=True))
        assert base.exclusive, action
        for seed in range(3):
            text = tiny_backend.generate(f"Write {action} {seed}",
                                         replace(base, temperature=temperature, seed=seed, max_tokens=300)).text
            pre = set(section_literals(text)[0]) if section_literals(text) else set()
            assert not any(a in pre and b in pre for a, b in base.exclusive), text
            checked += len(pre)
    assert checked > 0
