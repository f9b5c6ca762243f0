"""Greedy decoding under a grammar: the fast path (check the greedy token first) picks exactly the
tokens of llama.cpp's full-vocabulary grammar sampler. Real llama.cpp on the tiny model; nothing mocked.

`backend._grammar_fast_path = False` selects the slow path (grammar sampler over the whole
vocabulary, then greedy) for the comparison.
"""

from __future__ import annotations

import contextlib

import pytest

from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar
from domain_drafter.llm.grammar_sampler import GrammarGreedy as _GrammarGreedy

PROMPTS = [
    "(define (domain blocksworld)\nInput: The robot picks up a block.\nOutput:",
    "x",
    "The quick brown fox jumps over the lazy dog. A planner searches for a plan",
]
GRAMMARS = [
    'root ::= "(" [a-z]+ (" " [a-z?]+){0,6} ")"',
    'root ::= ("yes" | "no" | "maybe") " because " [a-z ]{3,40} "."',
    'root ::= [0-9]{12} ("-" [0-9]{4})?',
    'root ::= "héllo wörld ✓ ∀x"',
]


@pytest.fixture(scope="module")
def backend(tiny_model):
    from domain_drafter.llm.llama import LlamaCppBackend

    # No prompt-cache reuse: both paths then start from bit-identical logits.
    with LlamaCppBackend(tiny_model, n_ctx=4096, reuse_prompt_cache=False) as b:
        yield b


@contextlib.contextmanager
def slow_path(backend):
    backend._grammar_fast_path = False
    try:
        yield
    finally:
        backend._grammar_fast_path = True


@contextlib.contextmanager
def top_size(n: int):
    old = _GrammarGreedy.TOP
    _GrammarGreedy.TOP = n
    try:
        yield
    finally:
        _GrammarGreedy.TOP = old


def both_ways(backend, prompt: str, options: DecodingOptions):
    fast = backend.generate(prompt, options)
    counts = dict(backend._last_grammar_counts)
    with slow_path(backend):
        slow = backend.generate(prompt, options)
    assert backend._last_grammar_counts is None  # the slow path really ran
    return fast, slow, counts


def same(fast, slow) -> None:
    assert fast.text == slow.text
    assert fast.stats.stop_reason == slow.stats.stop_reason
    assert fast.stats.generated_tokens == slow.stats.generated_tokens


@pytest.mark.parametrize("top", [1, 64])  # TOP=1 sends most rejected steps to the full-vocabulary tier
@pytest.mark.parametrize("grammar", GRAMMARS)
def test_fast_path_equals_slow_path(backend, grammar, top):
    tiers = {"argmax": 0, "top": 0, "full": 0}
    with top_size(top):
        for prompt in PROMPTS:
            fast, slow, counts = both_ways(backend, prompt, DecodingOptions(max_tokens=200, stop=(), grammar=grammar))
            same(fast, slow)
            for k, v in counts.items():
                tiers[k] += v
    assert sum(tiers.values()) > 0
    if top == 1:
        assert tiers["full"] > 0


def test_action_grammar_answers_are_complete_sentences(backend, bundles):
    tiers = {"argmax": 0, "top": 0, "full": 0}
    cases = [("blocksworld", "put-down"), ("blocksworld", "stack"), ("gripper", "pick"), ("hiking", "walk")]
    for domain, action in cases:
        grammar = ActionGrammar(bundles[domain].domain, action)
        options = DecodingOptions(max_tokens=2000, stop=(), grammar=grammar.to_gbnf())
        for prompt in PROMPTS[:2]:
            fast, slow, counts = both_ways(backend, prompt, options)
            same(fast, slow)
            assert fast.stats.stop_reason == "eos", (domain, action, fast.text)
            assert grammar.is_complete(fast.text), fast.text
            assert counts["argmax"] + counts["top"] + counts["full"] == fast.stats.generated_tokens
            for k, v in counts.items():
                tiers[k] += v
    # Random weights: the greedy token is mostly rejected and the lower tiers decide.
    assert tiers["top"] + tiers["full"] > tiers["argmax"]


def test_grammar_rejecting_most_greedy_tokens(backend):
    # Digits are rare in the tiny model's free output: nearly every greedy token is rejected.
    grammar = 'root ::= [0-9]{60} "!"'
    fast, slow, counts = both_ways(backend, PROMPTS[0], DecodingOptions(max_tokens=500, stop=(), grammar=grammar))
    same(fast, slow)
    assert fast.stats.stop_reason == "eos"
    assert len(fast.text) == 61 and fast.text[:60].isdigit() and fast.text.endswith("!")
    assert counts["argmax"] < counts["top"] + counts["full"]


def test_streaming_stop_and_cancel_on_the_fast_path(backend):
    from domain_drafter.core.tasks import TaskState

    pieces: list[str] = []
    g = backend.generate("x", DecodingOptions(grammar='root ::= "ab Input: cd"'), on_token=pieces.append)
    assert (g.text, "".join(pieces), g.stats.stop_reason) == ("ab ", "ab ", "stop")

    task = TaskState()
    seen: list[str] = []

    def cancel_after_three(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 3:
            task.cancel()

    g = backend.generate("x", DecodingOptions(max_tokens=500, stop=(), grammar='root ::= [a-z]{400}'),
                         on_token=cancel_after_three, task=task)
    assert g.stats.stop_reason == "cancelled"
    assert g.stats.generated_tokens == 3 and g.text == "".join(seen)


def test_sampling_with_temperature_keeps_the_grammar(backend):
    # Temperature > 0 goes through the shortlist and llama.cpp's sampler chain, not GrammarGreedy; the grammar
    # still holds (tests/llm/test_grammar_sampling_fast_path.py compares it with the whole vocabulary).
    options = DecodingOptions(max_tokens=200, stop=(), temperature=1.0, seed=3, grammar=GRAMMARS[1])
    g = backend.generate(PROMPTS[0], options)
    assert set(backend._last_grammar_counts) == {"top64", "top4096", "top32768", "full"}
    assert g.stats.stop_reason == "eos"
    assert g.text.split(" ")[0] in ("yes", "no", "maybe") and g.text.endswith(".")
