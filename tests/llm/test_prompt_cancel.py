"""Stop while the prompt is read: llama.cpp stops in the middle of a prompt chunk, and the answers stay the same.

A random-weight model wider than the tiny one (64 MB, written by the test) reads a one-chunk prompt
in a measurable time T. Before the abort callback, a cancel waited for the whole chunk (>= T); now the
call returns a fraction of T after the cancel.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tiny_gguf import write_tiny_llama

from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.llama import LlamaCppBackend

PROMPT = "The robot picks up a clear block from the table. " * 45   # one 512-token chunk, not a whole one
GREEDY = DecodingOptions(max_tokens=8, stop=())


@pytest.fixture(scope="module")
def wide_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("wide") / "wide-llama.gguf", seed=1, n_embd=512, n_ff=2048,
                            n_layer=4)


@pytest.fixture(scope="module")
def backend(wide_model: Path):
    with LlamaCppBackend(wide_model, n_ctx=2048, prompt_chunk=512) as b:
        yield b


def read_time(backend: LlamaCppBackend) -> tuple[float, str]:
    """Seconds to read the prompt and write one token (the fastest of two), and the greedy answer."""
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        backend.generate(PROMPT, DecodingOptions(max_tokens=1, stop=()))
        times.append(time.perf_counter() - t0)
    return min(times), backend.generate(PROMPT, GREEDY).text


def cancelled_after(delay: float, call) -> tuple[float, object]:
    task = TaskState()
    timer = threading.Timer(delay, task.cancel)
    t0 = time.perf_counter()
    timer.start()
    result = call(task)
    elapsed = time.perf_counter() - t0
    timer.join()
    return elapsed, result


def test_stop_lands_in_the_middle_of_a_prompt_chunk(backend):
    tokens = len(backend.tokenize(PROMPT))
    assert 256 < tokens < backend.prompt_chunk   # the whole prompt is one llama_decode call
    read_s, answer = read_time(backend)
    delay = read_s / 4
    elapsed, g = cancelled_after(delay, lambda task: backend.generate(PROMPT, GREEDY, task=task))
    assert g.stats.stop_reason == "cancelled" and g.stats.generated_tokens == 0 and g.text == ""
    assert elapsed < delay + read_s / 2, f"cancel after {delay:.2f} s returned at {elapsed:.2f} s (read: {read_s:.2f} s)"
    assert elapsed - delay < 1.0
    assert backend.generate(PROMPT, GREEDY).text == answer   # nothing of the stopped read is left behind


def test_stop_lands_in_the_middle_of_a_batched_prompt(backend):
    read_s, answer = read_time(backend)
    delay = read_s / 4
    elapsed, gens = cancelled_after(delay, lambda task: backend.generate_candidates(PROMPT, 2, GREEDY, task=task))
    assert [g.stats.stop_reason for g in gens] == ["cancelled", "cancelled"] and all(g.text == "" for g in gens)
    assert elapsed < delay + read_s / 2, f"cancel after {delay:.2f} s returned at {elapsed:.2f} s (read: {read_s:.2f} s)"
    assert [g.text for g in backend.generate_candidates(PROMPT, 2, GREEDY)] == [answer, answer]
