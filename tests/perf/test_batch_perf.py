"""Batched generation with the default model (Gemma-3 270M): aggregate speed at B = 1, 2, 4, 8, and
N = 8 candidates of one prompt against 8 separate generations (issue 16 item 4).

B = 1 is the one-at-a-time loop (LlamaCppBackend.generate); B > 1 decodes B sequences per
llama_decode (BatchDecoder). The same 8 experiment prompts each time, greedy, every answer
N_TOKENS long (no stop sequences), prompt-cache reuse off so every configuration evaluates every
prompt in full: answers/s and tokens/s include prompt evaluation, as in `bench run`. The batched
answers are compared with the one-at-a-time ones. Candidates are sampled (temperature 0.8,
seeds 0..7) and compared with separate generations of the same seeds.
"""

from __future__ import annotations

import time

import pytest
from tests.perf.conftest import report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.prompt import build_prompt
from domain_drafter.llm.backend import DecodingOptions

N_TOKENS = 96
BATCHES = (1, 2, 4, 8)


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path_factory.mktemp("ddcache")))
        with LlamaCppBackend(models.default_model_path(), reuse_prompt_cache=False, n_ctx_per_seq=2048) as b:
            yield b


@pytest.fixture(scope="module")
def prompts():
    pool = load_bundled()
    return [build_prompt(b, a, pool).text for b in pool for a in b.action_names][:8]


def test_batched_throughput_at_b_1_2_4_8(backend, prompts):
    options = DecodingOptions(max_tokens=N_TOKENS, stop=())
    rows, speed, texts = [], {}, {}
    for b in BATCHES:
        t0 = time.perf_counter()
        if b == 1:
            out = [backend.generate(p, options) for p in prompts]
        else:
            out = backend.generate_batch(prompts, options, n_slots=b)
        wall = time.perf_counter() - t0
        tokens = sum(g.stats.generated_tokens for g in out)
        speed[b] = tokens / wall
        texts[b] = [g.text for g in out]
        same = sum(x == y for x, y in zip(texts[b], texts[1]))
        rows.append((f"B = {b}", f"{len(out) / wall:.3f} answers/s, {speed[b]:.1f} tok/s "
                     f"({speed[b] / speed[1]:.2f}x B=1), {wall:.1f} s; {same}/{len(out)} answers equal B=1"))
    best = max(BATCHES, key=speed.get)
    rows.append(("best", f"B = {best}: {speed[best] / speed[1]:.2f}x (goal 1.8x; machine shared and busy)"))
    report(f"batched generation, Gemma-3 270M, {len(prompts)} prompts x {N_TOKENS} tokens, "
           f"{backend.n_threads} thread(s)", rows)
    assert all(len(t) == len(prompts) and all(t) for t in texts.values())
    assert texts[2] == texts[1]   # two sequences use the same kernels as one (see the decode-only test)


def test_decode_only_throughput_and_equality_with_and_without_repacked_weights(prompts, tmp_path_factory):
    """Short prompts (16 tokens) so decoding dominates. With llama.cpp's repacked CPU weights
    (extra_buffers, the default), 4+ columns go through a gemm kernel whose summation order differs
    from the single-column gemv: the logits move by rounding and greedy near-ties can flip.
    Without repacking every batch size uses the same dot products: batched == one at a time."""
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend

    short = [p[-60:] for p in prompts]
    options = DecodingOptions(max_tokens=N_TOKENS, stop=())
    rows, equal = [], {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path_factory.mktemp("ddcache2")))
        path = models.default_model_path()
        for extra in (True, False):
            with LlamaCppBackend(path, reuse_prompt_cache=False, n_ctx_per_seq=512, extra_buffers=extra) as b:
                base_speed, base = 0.0, []
                for n in (1, 4, 8) if extra else (1, 4):
                    t0 = time.perf_counter()
                    out = [b.generate(p, options) for p in short] if n == 1 else b.generate_batch(short, options, n_slots=n)
                    speed = sum(g.stats.generated_tokens for g in out) / (time.perf_counter() - t0)
                    if n == 1:
                        base_speed, base = speed, [g.text for g in out]
                    equal[(extra, n)] = sum(g.text == t for g, t in zip(out, base))
                    rows.append((f"repacked weights {'on ' if extra else 'off'}, B = {n}",
                                 f"{speed:.1f} tok/s ({speed / base_speed:.2f}x B=1), "
                                 f"{equal[(extra, n)]}/{len(short)} answers equal B=1"))
    report(f"decode-only throughput, Gemma-3 270M, {len(short)} short prompts x {N_TOKENS} tokens", rows)
    assert equal[(False, 4)] == len(short)   # without repacking, batching changes no answer


def test_eight_candidates_of_one_prompt_vs_eight_generations(backend, prompts):
    prompt = prompts[0]
    sampled = DecodingOptions(max_tokens=N_TOKENS, stop=(), temperature=0.8, seed=0)
    t0 = time.perf_counter()
    separate = [backend.generate(prompt, DecodingOptions(max_tokens=N_TOKENS, stop=(), temperature=0.8, seed=j))
                for j in range(8)]
    t_separate = time.perf_counter() - t0
    t0 = time.perf_counter()
    candidates = backend.generate_candidates(prompt, 8, sampled)
    t_candidates = time.perf_counter() - t0
    same = sum(a.text == b.text for a, b in zip(separate, candidates))
    report("8 candidates of one prompt (prompt evaluated once, cache copied) vs 8 generations", [
        ("8 separate generations", f"{t_separate:.1f} s"),
        ("8 candidates in one batch", f"{t_candidates:.1f} s ({t_separate / t_candidates:.2f}x faster)"),
        ("candidates equal to the separate generation of their seed", f"{same}/8"),
        ("distinct candidates", str(len({c.text for c in candidates}))),
    ])
    assert t_candidates < t_separate   # the prompt is evaluated once instead of 8 times
