"""LlamaCppBackend on the tiny random-weight model: real llama.cpp, nothing mocked."""

from __future__ import annotations

import threading
import time

import pytest

from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import DecodingOptions

PROMPT = "(define (domain blocksworld)\nInput: The robot picks up a block.\nOutput:"
FREE = DecodingOptions(max_tokens=120, stop=())  # no stop sequences


def test_generates_text_with_sane_stats(tiny_backend):
    g = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=50, stop=()))
    s = g.stats
    assert g.text
    assert s.prompt_tokens == len(tiny_backend.tokenize(PROMPT))
    assert s.generated_tokens == 50 and s.stop_reason == "length"
    assert 0 < s.time_to_first_token_s <= s.wall_time_s < 5
    assert s.tokens_per_s > 100  # thousands on any machine; a regression would show here


def test_greedy_is_deterministic(tiny_backend):
    a = tiny_backend.generate(PROMPT, FREE)
    tiny_backend.generate("something else entirely", FREE)  # disturb the prompt cache
    b = tiny_backend.generate(PROMPT, FREE)
    assert a.text == b.text


def test_max_tokens_is_respected(tiny_backend):
    g = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=7, stop=()))
    assert g.stats.generated_tokens == 7
    assert g.stats.stop_reason == "length"


def test_streamed_pieces_equal_the_text(tiny_backend):
    pieces: list[str] = []
    g = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=200, stop=()), on_token=pieces.append)
    assert len(pieces) > 10
    assert "".join(pieces) == g.text
    # Random weights emit stray bytes (invalid UTF-8): they become U+FFFD, never an exception.
    assert isinstance(g.text, str)


def test_multibyte_utf8_split_over_tokens(tiny_backend):
    # The vocabulary is byte-level: each non-ASCII character spans several tokens.
    pieces: list[str] = []
    g = tiny_backend.generate("x", DecodingOptions(grammar='root ::= "héllo wörld ✓ ∀x"'), on_token=pieces.append)
    assert g.text == "héllo wörld ✓ ∀x"
    assert "".join(pieces) == g.text
    assert g.stats.stop_reason == "eos"  # the grammar is complete: only end-of-text is allowed


def test_grammar_forced_stop_sequence(tiny_backend):
    pieces: list[str] = []
    g = tiny_backend.generate("x", DecodingOptions(grammar='root ::= "ab Input: cd"'), on_token=pieces.append)
    assert g.text == "ab "
    assert "".join(pieces) == "ab "
    assert g.stats.stop_reason == "stop"


def test_stop_sequence_found_in_free_output(tiny_backend):
    full = tiny_backend.generate(PROMPT, FREE).text
    # pick a short ASCII-letter stretch from the middle of the free output as a stop string
    stop = next(
        full[i : i + 3] for i in range(20, len(full) - 3) if full[i : i + 3].isascii() and full[i : i + 3].isalpha()
    )
    pieces: list[str] = []
    g = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=120, stop=(stop,)), on_token=pieces.append)
    assert g.text == full[: full.index(stop)]
    assert "".join(pieces) == g.text
    assert g.stats.stop_reason == "stop"
    assert stop not in g.text


def test_cancel_from_another_thread(tiny_backend):
    task = TaskState()
    seen: list[float] = []

    def slow_consumer(_piece: str) -> None:  # ~1 ms per token, so 4000 tokens would take 4 s
        seen.append(time.perf_counter())
        time.sleep(0.001)

    cancelled_at: list[float] = []

    def cancel() -> None:
        cancelled_at.append(time.perf_counter())
        task.cancel()

    timer = threading.Timer(0.15, cancel)
    timer.start()
    g = tiny_backend.generate("x", DecodingOptions(max_tokens=4000, stop=()), on_token=slow_consumer, task=task)
    returned = time.perf_counter()
    timer.join()
    assert g.stats.stop_reason == "cancelled"
    assert 0 < g.stats.generated_tokens < 4000
    assert returned - cancelled_at[0] < 5  # wide bound; 4000 tokens at 1 ms each would take 4 s more
    assert g.text  # the partial text comes back

    after = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=20, stop=()))
    assert after.stats.stop_reason == "length" and after.stats.generated_tokens == 20
    assert after.text == tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=20, stop=())).text


def test_cancelled_before_start(tiny_backend):
    task = TaskState()
    task.cancel()
    g = tiny_backend.generate(PROMPT, FREE, task=task)
    assert (g.text, g.stats.generated_tokens, g.stats.stop_reason) == ("", 0, "cancelled")


def test_generation_stops_at_the_context_end(tiny_model):
    from domain_drafter.llm.llama import LlamaCppBackend

    with LlamaCppBackend(tiny_model, n_ctx=256) as b:
        prompt = "word " * 60
        n = len(b.tokenize(prompt))
        assert n < b.n_ctx
        g = b.generate(prompt, DecodingOptions(max_tokens=300, stop=()))
        assert g.stats.stop_reason == "length"
        assert g.stats.generated_tokens == b.n_ctx - n


def test_concurrent_calls_queue_up(tiny_backend):
    results: list[str] = []

    def work() -> None:
        results.append(tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=30, stop=())).text)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3 and len(set(results)) == 1


def test_sampling_with_temperature_uses_the_seed(tiny_backend):
    a = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=40, stop=(), temperature=1.0, seed=7))
    b = tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=40, stop=(), temperature=1.0, seed=7))
    assert a.text == b.text


@pytest.mark.parametrize("reuse", [True, False])
def test_prompt_cache_does_not_change_greedy_output(tiny_model, reuse):
    from domain_drafter.llm.llama import LlamaCppBackend

    with LlamaCppBackend(tiny_model, n_ctx=1024, reuse_prompt_cache=reuse) as b:
        first = b.generate(PROMPT + " one", FREE).text
        b.generate(PROMPT + " two", FREE)
        assert b.generate(PROMPT + " one", FREE).text == first


def test_callback_exceptions_pass_through(tiny_backend):
    from domain_drafter.core.tasks import Cancelled

    def boom(_piece: str) -> None:
        raise Cancelled()

    with pytest.raises(Cancelled):
        tiny_backend.generate(PROMPT, FREE, on_token=boom)
    assert tiny_backend.generate(PROMPT, DecodingOptions(max_tokens=4, stop=())).stats.generated_tokens == 4
