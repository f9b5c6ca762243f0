"""Grammar mode with the default model (Gemma-3 270M): no answer is a syntax or semantic error.

`make test` drafts all 32 reference actions once, the description classes taking turns (seed 0);
`make test-model` drafts all 32 x 3 classes (about 6-7 minutes on 2 cores, too long for CI's budget).
Greedy decoding, DraftOptions(grammar=True).
The grammar only admits well-formed actions over the domain's predicates, so every answer must
reach the planner checks (Different domain or Equivalent). Also checks, on real prompts, that the
grammar fast path picks exactly the tokens of llama.cpp's full-vocabulary grammar sampler.

The model is loaded once and uses every core, and the drafts run in the order of their prompt text so that consecutive prompts share the longest prefix
(the backend keeps the KV cache of the common prefix).
"""

from __future__ import annotations

import collections
import time

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.prompt import build_prompt
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar


@pytest.fixture(scope="module")
def gemma(default_cache):
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend, _cpu_count

    with LlamaCppBackend(models.default_model_path(), n_threads=_cpu_count(), reuse_prompt_cache=True) as backend:
        yield backend


@pytest.fixture(scope="module")
def evaluator(default_cache):
    from domain_drafter.planning.evaluate import Evaluator

    with Evaluator() as ev:
        yield ev


def test_grammar_fast_path_matches_full_grammar_sampler_on_gemma(gemma, bundles):
    pool = list(bundles.values())
    cases = [("blocksworld", "unstack", DescriptionClass.FLIPPED), ("blocksworld", "stack", DescriptionClass.RANDOM),
             ("depot", "drive", DescriptionClass.BASE)]
    tiers = collections.Counter()
    for domain, action, dc in cases:
        bundle = bundles[domain]
        prompt = build_prompt(bundle, action, pool, dc).text
        grammar = ActionGrammar(bundle.domain, action)
        options = DecodingOptions(grammar=grammar.to_gbnf())
        # Both runs below then reuse the same cached prompt prefix and evaluate its last token alone,
        # so they start from bit-identical logits.
        gemma.generate(prompt, DecodingOptions(max_tokens=1))
        fast = gemma.generate(prompt, options)
        tiers.update(gemma._last_grammar_counts)
        gemma._grammar_fast_path = False
        try:
            slow = gemma.generate(prompt, options)
        finally:
            gemma._grammar_fast_path = True
        assert (fast.text, fast.stats.stop_reason) == (slow.text, slow.stats.stop_reason), (domain, action, dc)
        assert fast.stats.stop_reason == "eos" and grammar.is_complete(fast.text)
    print(f"\ngrammar tiers on Gemma: {dict(tiers)}")
    assert tiers["top"] > 0  # the greedy token was rejected at some steps


def grammar_jobs(pool, every_class: bool) -> list:
    """(bundle, action, class) to draft: every class for every action, or one class per action in turn."""
    actions = [(b, a) for b in pool for a in b.action_names]
    classes = list(DescriptionClass)
    if every_class:
        return [(b, a, dc) for b, a in actions for dc in classes]
    return [(b, a, classes[i % len(classes)]) for i, (b, a) in enumerate(actions)]


def assert_grammar_answers_reach_the_planner(gemma, evaluator, jobs) -> None:
    from domain_drafter.drafting.loop import DraftOptions, draft_action

    pool = load_bundled()
    jobs = sorted(jobs, key=lambda job: build_prompt(job[0], job[1], pool, job[2]).text)
    t0 = time.perf_counter()
    bad: list[str] = []
    counts: collections.Counter = collections.Counter()
    for bundle, action, dc in jobs:
        draft = draft_action(bundle, action, gemma, evaluator, pool, DraftOptions(grammar=True, description_class=dc))
        final = draft.final
        counts[(final.result_class.value if final.result_class else "-", final.subclass.value if final.subclass else "-")] += 1
        if final.error is not None or final.result_class in (ResultClass.SYNTAX_ERROR, ResultClass.SEMANTIC_ERROR):
            bad.append(f"{bundle.name}/{action}/{dc.name}: {final.subclass} {final.error or final.message}\n"
                       f"{final.answer}")
    print(f"\ngrammar mode, {len(jobs)} answers in {time.perf_counter() - t0:.0f} s:")
    for (cls, sub), n in sorted(counts.items()):
        print(f"   {cls:<18} {sub:<12} {n}")
    assert not bad, "\n\n".join(bad)


def test_grammar_mode_has_no_syntax_or_semantic_errors(gemma, evaluator):
    jobs = grammar_jobs(load_bundled(), every_class=False)
    assert len(jobs) == 32 and {dc for _, _, dc in jobs} == set(DescriptionClass)
    assert_grammar_answers_reach_the_planner(gemma, evaluator, jobs)


@pytest.mark.model
def test_grammar_mode_has_no_syntax_or_semantic_errors_in_any_class(gemma, evaluator):
    jobs = grammar_jobs(load_bundled(), every_class=True)
    assert len(jobs) == 96
    assert_grammar_answers_reach_the_planner(gemma, evaluator, jobs)
