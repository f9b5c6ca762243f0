"""Batched generation on the tiny model (issue 16 item 4): real llama.cpp, several sequences per llama_decode.

Greedy batched answers must equal the one-at-a-time answers byte for byte, with and without a
grammar; candidates of one prompt share its evaluated cache (llama_memory_seq_cp) and equal the
separate generations with the same seeds; a cancel stops one sequence, or all.
"""

from __future__ import annotations

import threading

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.prompt import build_prompt
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar

GREEDY = DecodingOptions(max_tokens=24, stop=())


@pytest.fixture(scope="module")
def jobs():
    pool = load_bundled()
    pairs = [(b, a) for b in pool for a in b.action_names]
    return [(b, a, build_prompt(b, a, pool, k=1).text) for b, a in pairs]


@pytest.fixture(scope="module")
def backend(tiny_model):
    from domain_drafter.llm.llama import LlamaCppBackend

    with LlamaCppBackend(tiny_model, n_ctx=2048) as b:
        yield b


def test_batched_greedy_answers_equal_one_at_a_time(backend, jobs):
    prompts = [p for _, _, p in jobs][:12]
    sequential = [backend.generate(p, GREEDY).text for p in prompts]
    for n_slots in (1, 4):
        batched = backend.generate_batch(prompts, GREEDY, n_slots=n_slots)
        assert [g.text for g in batched] == sequential, n_slots
        assert all(g.stats.generated_tokens == 24 and g.stats.stop_reason == "length" for g in batched)


def test_batched_grammar_answers_equal_one_at_a_time(backend, jobs):
    chosen = jobs[:6]
    options = [DecodingOptions(max_tokens=80, grammar=ActionGrammar(b.domain, a).to_gbnf()) for b, a, _ in chosen]
    prompts = [p for _, _, p in chosen]
    sequential = [backend.generate(p, o) for p, o in zip(prompts, options)]
    batched = backend.generate_batch(prompts, options, n_slots=3)
    assert [(g.text, g.stats.stop_reason) for g in batched] == [(g.text, g.stats.stop_reason) for g in sequential]
    assert any(g.stats.stop_reason == "eos" for g in batched)   # a grammar completed and forced the end


def test_streamed_pieces_per_sequence_equal_the_texts(backend, jobs):
    prompts = [p for _, _, p in jobs][:3]
    pieces: dict[int, list[str]] = {0: [], 1: [], 2: []}
    out = backend.generate_batch(prompts, GREEDY, on_token=lambda i, piece: pieces[i].append(piece))
    assert ["".join(pieces[i]) for i in range(3)] == [g.text for g in out]


def test_a_finished_slot_takes_the_next_request_at_once(backend, jobs):
    from domain_drafter.llm.batch import BatchRequest

    short, long = DecodingOptions(max_tokens=2, stop=()), DecodingOptions(max_tokens=40, stop=())
    prompts = [p for _, _, p in jobs][:5]
    order: list[int] = []
    requests = [BatchRequest(prompts[0], long, 0)] + [BatchRequest(p, short, i) for i, p in enumerate(prompts[1:], 1)]
    backend.generate_stream(iter(requests), lambda r, g: order.append(r.tag), n_slots=2)
    assert order == [1, 2, 3, 4, 0]   # the short ones go through slot 2 while slot 1 writes the long one


def test_candidates_share_the_prompt_and_equal_separate_generations(backend, jobs):
    prompt = jobs[0][2]
    sampled = DecodingOptions(max_tokens=24, stop=(), temperature=1.0, seed=5)
    candidates = backend.generate_candidates(prompt, 4, sampled)
    # a batch decodes one token at a time and draws with llama.cpp's chain, as a call without speculation does
    separate = [backend.generate(prompt, DecodingOptions(max_tokens=24, stop=(), temperature=1.0, seed=5 + j,
                                                         speculate=False)).text for j in range(4)]
    assert [g.text for g in candidates] == separate
    assert len(set(separate)) > 1   # different seeds, different answers
    greedy = backend.generate_candidates(prompt, 3, GREEDY)
    assert [g.text for g in greedy] == [backend.generate(prompt, GREEDY).text] * 3


def test_cancel_one_sequence_leaves_the_others(backend, jobs):
    from domain_drafter.llm.batch import BatchRequest

    prompts = [p for _, _, p in jobs][:3]
    mine = TaskState()
    seen: list[str] = []

    def cancel_after_five(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 5:
            mine.cancel()

    long = DecodingOptions(max_tokens=60, stop=())
    results = {}
    requests = [BatchRequest(prompts[0], long, 0), BatchRequest(prompts[1], long, 1, mine, cancel_after_five),
                BatchRequest(prompts[2], long, 2)]
    backend.generate_stream(iter(requests), lambda r, g: results.__setitem__(r.tag, g), n_slots=3)
    assert results[1].stats.stop_reason == "cancelled" and 5 <= results[1].stats.generated_tokens < 60
    assert [results[i].stats.stop_reason for i in (0, 2)] == ["length", "length"]
    assert results[0].text == backend.generate(prompts[0], long).text


def test_cancel_all_stops_every_sequence_and_the_backend_still_works(backend, jobs):
    prompts = [p for _, _, p in jobs][:6]
    task = TaskState()
    timer = threading.Timer(0.3, task.cancel)
    timer.start()
    out = backend.generate_batch(prompts, DecodingOptions(max_tokens=2000, stop=()), n_slots=3, task=task)
    timer.join()
    assert len(out) == 6 and out[-1].stats.stop_reason == "cancelled"   # the last never started
    assert all(g.stats.stop_reason == "cancelled" and g.stats.generated_tokens < 2000 for g in out[3:])
    again = backend.generate_batch(prompts[:2], GREEDY)
    assert [g.text for g in again] == [backend.generate(p, GREEDY).text for p in prompts[:2]]


def test_callback_exception_passes_through_and_the_batch_recovers(backend, jobs):
    prompts = [p for _, _, p in jobs][:2]

    def boom(i: int, piece: str) -> None:
        raise KeyError("from the caller")

    with pytest.raises(KeyError):
        backend.generate_batch(prompts, GREEDY, on_token=boom)
    assert [g.text for g in backend.generate_batch(prompts, GREEDY)] == [backend.generate(p, GREEDY).text
                                                                          for p in prompts]
