"""Sampling under a grammar: the shortlist (ask the grammar about the likeliest tokens only) draws exactly the
tokens of llama.cpp's grammar over the whole vocabulary followed by top-k, temperature, top-p and the draw.

Real llama.cpp, nothing mocked: the tiny test model (random weights, so the likeliest token is mostly refused and
the lower tiers and the whole vocabulary decide) and the default model (Gemma-3, 262k tokens, where the shortlist
is what makes sampling under the grammar fast). `backend._grammar_fast_path = False` selects the whole-vocabulary
path for the comparison; both paths use the same seeded draw, so equal text means equal tokens.
"""

from __future__ import annotations

import collections
import contextlib
from dataclasses import replace

import numpy as np
import pytest

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.prompt import build_prompt
from domain_drafter.llm.backend import TOP_K, TOP_P, DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar
from domain_drafter.llm.grammar_sampler import GrammarShortlist, nucleus_inside

PROMPTS = [
    "(define (domain blocksworld)\nInput: The robot picks up a block.\nOutput:",
    "The quick brown fox jumps over the lazy dog. A planner searches for a plan",
]
GRAMMARS = [
    'root ::= "(" [a-z]+ (" " [a-z?]+){0,6} ")"',
    'root ::= ("yes" | "no" | "maybe") " because " [a-z ]{3,40} "."',
    'root ::= [0-9]{12} ("-" [0-9]{4})?',
]


@contextlib.contextmanager
def whole_vocabulary(backend):
    backend._grammar_fast_path = False
    try:
        yield
    finally:
        backend._grammar_fast_path = True


@contextlib.contextmanager
def sizes(*n: int):
    old = GrammarShortlist.SIZES
    GrammarShortlist.SIZES = n
    try:
        yield
    finally:
        GrammarShortlist.SIZES = old


def both_ways(backend, prompt: str, options: DecodingOptions, tiers: collections.Counter):
    fast = backend.generate(prompt, options)
    counts = backend._last_grammar_counts
    assert counts is not None and sum(counts.values()) == fast.stats.generated_tokens   # one draw per token
    tiers.update(counts)
    with whole_vocabulary(backend):
        slow = backend.generate(prompt, options)
    assert backend._last_grammar_counts is None   # the whole-vocabulary path really ran
    assert (fast.text, fast.stats.stop_reason, fast.stats.generated_tokens) == \
        (slow.text, slow.stats.stop_reason, slow.stats.generated_tokens), (prompt, options.seed)
    return fast


@pytest.fixture(scope="module")
def tiny(tiny_model):
    from domain_drafter.llm.llama import LlamaCppBackend

    with LlamaCppBackend(tiny_model, n_ctx=4096, reuse_prompt_cache=False) as b:
        yield b


def test_shortlist_draws_what_the_whole_vocabulary_draws_on_the_tiny_model(tiny):
    tiers: collections.Counter = collections.Counter()
    with sizes(4, 64):   # the tiny model's vocabulary is small: small shortlists, so that every tier decides
        for temperature in (0.1, 0.5, 1.0, 2.0):   # random weights: only a cool draw is decided by few tokens
            for grammar in GRAMMARS:
                for prompt in PROMPTS:
                    for seed in range(3):
                        options = DecodingOptions(max_tokens=80, stop=(), temperature=temperature, seed=seed,
                                                  grammar=grammar)
                        both_ways(tiny, prompt, options, tiers)
    assert tiers["top4"] > 0 and tiers["top64"] > 0 and tiers["full"] > 0, tiers


def test_shortlist_with_the_literal_guard_on_the_tiny_model(tiny, bundles):
    # An action grammar with its literal lists: the guard's bans go between the grammar and the chain.
    tiers: collections.Counter = collections.Counter()
    with sizes(4, 64):
        for domain, action in [("blocksworld", "stack"), ("gripper", "pick")]:
            grammar = ActionGrammar(bundles[domain].domain, action)
            for seed in range(3):
                options = grammar.decoding(DecodingOptions(max_tokens=400, stop=(), temperature=1.0, seed=seed))
                assert options.literals is not None
                fast = both_ways(tiny, PROMPTS[0], options, tiers)
                assert grammar.accepts_prefix(fast.text)
    assert tiers["top4"] + tiers["top64"] > 0 and tiers["full"] > 0, tiers


def test_the_nucleus_test_by_hand():
    # One sure token, 39 others at most 10 below it: they weigh at most 39 e^-10 = 0.0018 of it, far under 5%.
    assert nucleus_inside(np.array([10.0]), 0.0, 39, 1.0, 0.95)
    # The same token with the others just below it: they could hold most of the mass.
    assert not nucleus_inside(np.array([1.0]), 0.9, 39, 1.0, 0.95)
    # No others can join (the whole vocabulary was asked about): the kept tokens decide alone.
    assert nucleus_inside(np.array([1.0, 1.0, 1.0]), -np.inf, 37, 1.0, 0.95)
    # Two tokens of equal weight: the nucleus needs both (1/2 < 95%), and others far below cannot change that.
    assert nucleus_inside(np.array([5.0, 5.0]), -20.0, 38, 1.0, 0.95)
    # Top-p reaches 95% at the first token alone (e^3 / (e^3 + 1) = 95.3%) when nothing else weighs;
    # 38 others at most 5 below could push that under 95%, so the cut is not known.
    kept = np.array([3.0, 0.0])
    assert nucleus_inside(kept, -np.inf, 38, 1.0, 0.95)
    assert not nucleus_inside(kept, -2.0, 38, 1.0, 0.95)
    # A hotter draw flattens the distribution: 10 apart at temperature 5 is only 2 apart.
    assert not nucleus_inside(np.array([10.0]), 0.0, 39, 5.0, 0.95)
    assert TOP_K == 40 and TOP_P == 0.95   # the figures above assume the chain's settings


@pytest.fixture(scope="module")
def gemma(default_cache):
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend, _cpu_count

    with LlamaCppBackend(models.default_model_path(), n_threads=_cpu_count(), reuse_prompt_cache=True) as backend:
        yield backend


def test_shortlist_on_the_default_model_with_judged_and_forbidden(gemma, bundles):
    """A guided search child's decoding: the action grammar, its literal guard, answers judged before and literals
    it was told to remove, at the search's temperatures."""
    pool = list(bundles.values())
    tiers: collections.Counter = collections.Counter()
    cases = [("blocksworld", "stack", 0.8, 0), ("depot", "drive", 1.2, 1)]
    for domain, action, temperature, seed in cases:
        bundle = bundles[domain]
        prompt = build_prompt(bundle, action, pool, DescriptionClass.BASE).text
        grammar = ActionGrammar(bundle.domain, action)
        base = grammar.decoding(DecodingOptions(temperature=temperature, max_tokens=200))
        # an answer judged before: the model's own greedy answer
        gemma.generate(prompt, DecodingOptions(max_tokens=1))   # both runs below start from the same cached prefix
        judged = gemma.generate(prompt, grammar.decoding(DecodingOptions())).text
        pre, _ = base.literals
        options = replace(base, seed=seed, judged=(judged,), forbidden=((pre[0],), ()))
        gemma.generate(prompt, DecodingOptions(max_tokens=1))
        fast = both_ways(gemma, prompt, options, tiers)
        assert fast.text != judged
    # Most tokens are drawn without asking the grammar about the whole vocabulary.
    shortlisted = sum(v for k, v in tiers.items() if k != "full")
    assert shortlisted > 2 * tiers["full"], tiers
