"""Speculative decoding from the prompt (llm/speculate.py, llm/decode_loop.py): real llama.cpp, nothing mocked.

Greedy answers are byte-identical with and without speculation on the tiny model, with and without the
grammar (on the default model, in tests marked `model`, they differ only where the model's two likeliest tokens
are a near tie), sampled answers are reproducible for a seed, the
accept/reject rule keeps the sampling distribution (chi-square on a small vocabulary), a guess never
holds a token the grammar, the literal guard or the answer tabu refuses, and a stop ends a call at once.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest
from tests.llm.test_reproducible_decoding import experiment_prompts

from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.decode_loop import admissible
from domain_drafter.llm.grammar import ActionGrammar
from domain_drafter.llm.sequence import Sequence
from domain_drafter.llm.speculate import K_MAX, PromptLookup, accept_or_redraw

# chi-square critical values at p = 0.001 (a correct rule fails one run in a thousand per comparison)
CHI2_001 = {3: 16.27, 4: 18.47}


def test_the_guess_follows_the_longest_most_recent_match():
    lookup = PromptLookup([1, 2, 3, 4, 9, 2, 3, 5, 6], k=3, n_max=2)
    lookup.add(2)
    lookup.add(3)          # "2 3" last came before 5 6
    assert lookup.guess() == [5, 6, 2]
    lookup = PromptLookup([7, 1, 8, 4, 1, 5], k=2, n_max=2)
    lookup.add(4)
    lookup.add(1)          # the 2-gram "4 1" beats the more recent 1-gram "1"
    assert lookup.guess() == [5, 4]
    assert PromptLookup([1, 2, 3], k=4).guess(limit=1) == []   # 3 never came before
    assert lookup.guess(limit=1) == [5]


def chi_square(counts: np.ndarray, expected: np.ndarray) -> float:
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("guess", [0, 2, 4, 7])
def test_accept_or_redraw_keeps_the_distribution_for_any_guess(guess):
    ids = np.array([0, 2, 4, 5, 7])            # 7 is outside: a guess the distribution never draws
    p = np.array([0.45, 0.3, 0.15, 0.1, 0.0])
    n = 40_000
    rng = np.random.default_rng(11)
    drawn = np.array([accept_or_redraw(ids, p, guess, rng) for _ in range(n)])
    plain = np.array([accept_or_redraw(ids, p, None, rng) for _ in range(n)])
    counts = np.array([(drawn == t).sum() for t in ids[:4]])
    base = np.array([(plain == t).sum() for t in ids[:4]])
    assert (drawn == 7).sum() == 0
    assert chi_square(counts, n * p[:4]) < CHI2_001[3], counts
    # with and without the guess: a two-sample chi-square on the same four tokens
    both = counts + base
    two = float(((counts - both / 2) ** 2 / (both / 2)).sum() + ((base - both / 2) ** 2 / (both / 2)).sum())
    assert two < CHI2_001[3], (counts, base)


def test_a_certain_guess_is_always_kept_and_an_impossible_one_never():
    ids, rng = np.array([3, 4]), np.random.default_rng(0)
    assert {accept_or_redraw(ids, np.array([1.0, 0.0]), 3, rng) for _ in range(200)} == {3}
    assert {accept_or_redraw(ids, np.array([1.0, 0.0]), 4, rng) for _ in range(200)} == {3}


def test_speculative_sampling_keeps_the_chains_distribution_on_the_tiny_model(tiny_backend):
    # One place of a real model: the first token after a prompt, drawn 600 times by the chain's own draw and by
    # the speculative draw with a guess; the frequencies of the likeliest tokens agree.
    prompt = "(:action pick-up :parameters (?x"
    options = DecodingOptions(max_tokens=1, temperature=1.5, stop=(), speculate=False)
    firsts = [tiny_backend.generate(prompt, replace(options, seed=s)).text for s in range(300)]
    guess_text = max(set(firsts), key=firsts.count)
    guess = tiny_backend.tokenize(guess_text, add_bos=False)[0]
    spec = []
    b = tiny_backend
    for s in range(300):
        seq = Sequence(b._lc, b._vocab, b._pieces, replace(options, seed=s, speculate=True), n_prompt=1, max_new=1,
                       speculate=True)
        try:
            b._eval_prompt(b._prompt_tokens(prompt), None)
            spec.append(b._pieces(seq.sample(b._llm.ctx, -1, guess)).decode("utf-8", "replace"))
        finally:
            seq.close()
    top = sorted(set(firsts), key=firsts.count, reverse=True)[:4]
    a = np.array([firsts.count(t) for t in top] + [len(firsts) - sum(firsts.count(t) for t in top)], float)
    c = np.array([spec.count(t) for t in top] + [len(spec) - sum(spec.count(t) for t in top)], float)
    both = a + c
    keep = both > 0
    stat = float((((a - both / 2) ** 2 + (c - both / 2) ** 2) / (both / 2))[keep].sum())
    assert stat < CHI2_001[4], (top, a, c)


def run_both(backend, prompts, options):
    on, off = [], []
    for p in prompts:
        on.append(backend.generate(p, replace(options, speculate=True)).text)
        off.append(backend.generate(p, replace(options, speculate=False)).text)
    return on, off


def test_greedy_answers_of_the_tiny_model_are_byte_identical_with_speculation(tiny_backend):
    before = tiny_backend._speculator.kept if tiny_backend._speculator else 0
    on, off = run_both(tiny_backend, experiment_prompts(examples=1), DecodingOptions(max_tokens=48, stop=()))
    assert all(off) and on == off
    assert tiny_backend._speculator.kept - before > 20, "hardly a guess was kept: the test would prove nothing"


def test_greedy_answers_under_the_grammar_are_byte_identical_with_speculation(tiny_backend, bundles):
    kept = tiny_backend._speculator.kept if tiny_backend._speculator else 0
    for bundle, action in [("logistics", "load-airplane"), ("blocksworld", "stack"), ("depot", "drive")]:
        grammar = ActionGrammar(bundles[bundle].domain, action)
        prompt = experiment_prompts(examples=1)[0] + f"(:action {action}\n"
        for options in (grammar.decoding(DecodingOptions(max_tokens=80)),
                        replace(grammar.decoding(DecodingOptions(max_tokens=80)), literals=None)):
            on, off = run_both(tiny_backend, [prompt], options)
            assert on == off and grammar.accepts_prefix(off[0])
    assert tiny_backend._speculator.kept > kept


def test_sampled_answers_are_reproducible_for_a_seed(tiny_backend, bundles):
    grammar = ActionGrammar(bundles["logistics"].domain, "load-truck")
    prompt = experiment_prompts(examples=1)[3]
    for options in (DecodingOptions(max_tokens=40, temperature=0.8, stop=()),
                    grammar.decoding(DecodingOptions(max_tokens=60, temperature=0.8))):
        texts = [tiny_backend.generate(prompt, replace(options, seed=s)).text for s in (1, 1, 2, 3, 4)]
        assert texts[0] == texts[1]
        assert len(set(texts[1:])) > 1, "other seeds should give other answers"


def guard_sequence(backend, options: DecodingOptions) -> Sequence:
    return Sequence(backend._lc, backend._vocab, backend._pieces, options, n_prompt=1, max_new=100, speculate=True)


def test_a_guess_is_cut_at_the_first_token_the_grammar_refuses(tiny_backend, bundles):
    grammar = ActionGrammar(bundles["blocksworld"].domain, "pick-up")
    seq = guard_sequence(tiny_backend, grammar.decoding(DecodingOptions()))
    try:
        good = tiny_backend.tokenize("(:action pick-up\n  :parameters (?x - block)", add_bos=False)
        bad = tiny_backend.tokenize(" zebra", add_bos=False)
        assert admissible(tiny_backend._lc, seq, good + bad + good) == good
        assert admissible(tiny_backend._lc, seq, bad + good) == []
        # the check used a copy: the sequence's own grammar still accepts the whole good prefix
        assert admissible(tiny_backend._lc, seq, good) == good
    finally:
        seq.close()


def test_a_guess_is_cut_where_the_literal_guard_would_refuse_a_repeat(tiny_backend, bundles):
    grammar = ActionGrammar(bundles["logistics"].domain, "load-airplane")
    seq = guard_sequence(tiny_backend, grammar.decoding(DecodingOptions()))
    head = "(:action load-airplane\n  :parameters (?pkg - package ?airplane - airplane ?place - airport)\n" \
           "  :precondition (and (in ?pkg ?airplane)"
    try:
        lc = tiny_backend._lc
        written = tiny_backend.tokenize(head, add_bos=False)
        assert admissible(lc, seq, written) == written
        for tok in written:          # the sequence writes it: the grammar and the guard follow
            lc.llama_sampler_accept(seq.grammar_state(), tok)
            seq.guard.feed(tiny_backend._pieces(tok).decode())
        again = tiny_backend.tokenize(" (in ?pkg ?airplane)", add_bos=False)
        other = tiny_backend.tokenize(" (at ?pkg ?place)", add_bos=False)
        assert admissible(lc, seq, other) == other
        cut = admissible(lc, seq, again)
        assert len(cut) < len(again)
        assert "(in ?pkg ?airplane)" not in tiny_backend._llm.detokenize(cut).decode()
    finally:
        seq.close()


def test_every_guess_checked_during_a_grammar_call_is_one_the_grammar_allows(tiny_backend, bundles):
    from domain_drafter.core.prompt import build_prompt
    from domain_drafter.llm.decode_loop import Speculator

    b, pool = tiny_backend, list(bundles.values())
    grammar = ActionGrammar(bundles["depot"].domain, "lift")
    options = grammar.decoding(DecodingOptions(max_tokens=120))
    prompt = b._prompt_tokens(build_prompt(bundles["depot"], "lift", pool, k=1).text)
    checked: list[list[int]] = []

    class Recording(Speculator):
        def _decode(self, tokens):   # the answer so far, the last token and its guess
            checked.append(list(self.llm.input_ids[len(prompt):self.llm.n_tokens]) + list(tokens))
            super()._decode(tokens)

    rec = Recording(b._lc, b._llm)
    seq = Sequence(b._lc, b._vocab, b._pieces, options, n_prompt=len(prompt), max_new=120, speculate=True)
    try:
        assert b._eval_prompt(prompt, None)
        rec.run(seq, prompt)
    finally:
        seq.close()
        rec.close()
    assert checked, "no guess was checked: the test would prove nothing"
    for tokens in checked:
        text = b"".join(b._pieces(t) for t in tokens).decode("utf-8", "replace")
        assert grammar.accepts_prefix(text), text


def test_a_stop_ends_a_speculating_call_within_a_second(tiny_backend):
    task = TaskState()
    stopped_at: list[float] = []

    def on_token(_piece: str) -> None:
        if not stopped_at and len(_piece):
            stopped_at.append(time.perf_counter())
            task.cancel()

    prompt = "(on a b) (on b c) (on c d) (on a b) (on b c) (on c d) " * 20
    options = DecodingOptions(max_tokens=3000, stop=())
    g = tiny_backend.generate(prompt, options, on_token=on_token, task=task)
    returned = time.perf_counter()
    assert stopped_at and g.stats.stop_reason == "cancelled"
    assert returned - stopped_at[0] < 1.0
    assert g.stats.generated_tokens <= 1 + 2 * (K_MAX + 1)


def first_difference(backend, prompt: str, on: str, off: str) -> tuple[int, int, int, np.ndarray] | None:
    """Where two answers to `prompt` first differ, by token: (index, token of `on`, token of `off`, the logits
    the model gives after the prompt and the tokens they share, read in one evaluation); None if they are equal."""
    if on == off:
        return None
    a, b = backend.tokenize(on, add_bos=False), backend.tokenize(off, add_bos=False)
    k = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), min(len(a), len(b)))
    lc, llm = backend._lc, backend._llm
    backend._forget_cache()   # a fresh context: the whole prefix is read in this one evaluation
    llm.eval(backend._prompt_tokens(prompt) + b[:k])
    n_vocab = lc.llama_vocab_n_tokens(backend._vocab)
    logits = np.ctypeslib.as_array(lc.llama_get_logits_ith(llm.ctx, -1), shape=(n_vocab,)).copy()
    backend._forget_cache()
    return k, (a[k] if k < len(a) else -1), (b[k] if k < len(b) else -1), logits


@pytest.mark.model
def test_default_model_greedy_answers_with_speculation_differ_only_at_near_ties(default_cache, bundles):
    # Byte-identity does not hold on the default model (Gemma-3 270M), even with flash attention: a batch of
    # guesses computes the answer's cells in another order than one token at a time, the small differences add
    # up over the answer, and a near tie goes the other way (measured: 2 of these 4 free answers, at gaps of 0.12
    # and 0.34 logits, 38 and 73 tokens in). What must hold: where an answer differs, the two tokens are the
    # model's two likeliest there, within half a logit; never a token the model does not nearly prefer.
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend

    grammar = ActionGrammar(bundles["blocksworld"].domain, "unstack")
    cases = [(p, DecodingOptions(max_tokens=120)) for p in experiment_prompts(examples=3)[::8]]
    cases.append((experiment_prompts(examples=3)[3], grammar.decoding(DecodingOptions(max_tokens=120))))
    with LlamaCppBackend(models.default_model_path(), flash_attn=True) as b:
        answers = [run_both(b, [prompt], options) for prompt, options in cases]
        kept = b._speculator.kept
        assert kept > 40, "hardly a guess was kept: the comparison would prove nothing"
        same = 0
        for (prompt, _), (on, off) in zip(cases, answers):
            assert off[0], "the plain answer is empty"
            where = first_difference(b, prompt, on[0], off[0])
            if where is None:
                same += 1
                continue
            k, tok_on, tok_off, logits = where
            assert k >= 10, f"they differ {k} tokens in: {on[0]!r} against {off[0]!r}"
            top2 = [int(t) for t in np.argsort(-logits)[:2]]
            assert {tok_on, tok_off} == set(top2), (k, tok_on, tok_off, top2)
            assert abs(float(logits[tok_on] - logits[tok_off])) < 0.5, (k, logits[tok_on], logits[tok_off])
        assert same >= 2, f"only {same} of {len(cases)} answers are byte-identical"
