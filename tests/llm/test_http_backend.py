"""OpenAICompletionsBackend against a real `python -m llama_cpp.server` serving the tiny model.

The prompts are decoded under an ASCII grammar: llama_cpp.server decodes stray bytes of the
random model with errors="ignore" (we use "replace"), and its streaming slows to a crawl on
long runs of invalid UTF-8, so unconstrained random output would make comparisons meaningless.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import TOP_K, TOP_P, DecodingOptions
from domain_drafter.llm.http import OpenAICompletionsBackend

ASCII = 'root ::= [a-z :()?-]+'
PROMPT = "(define (domain blocksworld)\nInput: The robot picks up a block.\nOutput:"


def test_streamed_equals_non_streamed_and_in_process(llama_server, tiny_backend):
    options = DecodingOptions(max_tokens=40, stop=(), grammar=ASCII)
    pieces: list[str] = []
    with OpenAICompletionsBackend(llama_server) as streaming:
        g = streaming.generate(PROMPT, options, on_token=pieces.append)
    plain = OpenAICompletionsBackend(f"{llama_server}/v1", stream=False).generate(PROMPT, options)
    assert g.text and g.text == plain.text
    assert "".join(pieces) == g.text and len(pieces) > 5
    # greedy with repeat_penalty 1.0 on both sides: the server agrees with llama.cpp in-process
    assert g.text == tiny_backend.generate(PROMPT, options).text

    s = g.stats
    assert s.prompt_tokens == len(tiny_backend.tokenize(PROMPT))
    assert s.generated_tokens == 40 and s.stop_reason == "length"
    assert 0 < s.time_to_first_token_s <= s.wall_time_s and s.tokens_per_s > 0
    assert plain.stats.generated_tokens == 40 and plain.stats.stop_reason == "length"
    assert plain.stats.prompt_tokens == s.prompt_tokens


def test_a_sampled_call_asks_the_server_for_the_in_process_sampler_chain(llama_server):
    backend = OpenAICompletionsBackend(llama_server)
    greedy = backend._body(PROMPT, DecodingOptions())
    assert not {"top_k", "top_p", "min_p", "samplers"} & set(greedy)   # greedy: argmax, nothing to say
    sampled = backend._body(PROMPT, DecodingOptions(temperature=0.8, seed=3))
    assert (sampled["top_k"], sampled["top_p"], sampled["min_p"]) == (TOP_K, TOP_P, 0.0)
    assert sampled["samplers"] == ["top_k", "temperature", "top_p"] and sampled["temperature"] == 0.8
    options = DecodingOptions(max_tokens=20, stop=(), grammar=ASCII, temperature=0.8, seed=3)
    first, again = backend.generate(PROMPT, options), backend.generate(PROMPT, options)
    assert first.text and first.text == again.text       # the server takes the fields; the seed still rules


def test_stop_sequence_over_http(llama_server):
    b = OpenAICompletionsBackend(llama_server)
    g = b.generate("x", DecodingOptions(grammar='root ::= "ab Input: cd"'))
    assert g.text == "ab " and g.stats.stop_reason == "stop"


def test_cancel_closes_the_stream(llama_server):
    b = OpenAICompletionsBackend(llama_server)
    task = TaskState()
    cancelled_at: list[float] = []

    def cancel() -> None:
        cancelled_at.append(time.perf_counter())
        task.cancel()

    first_token = threading.Event()

    def cancel_soon_after_the_first_token() -> None:   # a loaded machine may take long for the first
        first_token.wait(60)
        time.sleep(0.2)
        cancel()

    timer = threading.Thread(target=cancel_soon_after_the_first_token)
    timer.start()
    g = b.generate(PROMPT, DecodingOptions(max_tokens=3000, stop=(), grammar=ASCII), task=task,
                   on_token=lambda _piece: first_token.set())
    returned = time.perf_counter()
    timer.join()
    assert g.stats.stop_reason == "cancelled"
    assert returned - cancelled_at[0] < 5  # wide bound for a loaded CI; the point is "stops, not 3000 tokens"
    assert 0 < g.stats.generated_tokens < 3000
    # the server is free again for the next request
    after = b.generate(PROMPT, DecodingOptions(max_tokens=5, stop=(), grammar=ASCII))
    assert after.stats.generated_tokens == 5


def test_connection_refused_names_the_url():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(ModelError) as e:
        OpenAICompletionsBackend(url, timeout_s=5).generate("x", DecodingOptions(max_tokens=3))
    assert f"{url}/v1/completions" in str(e.value)
    assert "llama_cpp.server" in e.value.hint


def test_wrong_path_is_explained(llama_server):
    with pytest.raises(ModelError) as e:
        OpenAICompletionsBackend(f"{llama_server}/nothing/here").generate("x", DecodingOptions(max_tokens=3))
    assert "HTTP 404" in str(e.value)


def test_not_a_url():
    with pytest.raises(ModelError):
        OpenAICompletionsBackend("localhost:8080")


def test_callback_exception_passes_through(llama_server):
    class Stop(Exception):
        pass

    def boom(_piece: str) -> None:
        raise Stop()

    b = OpenAICompletionsBackend(llama_server)
    with pytest.raises(Stop):
        b.generate(PROMPT, DecodingOptions(max_tokens=10, stop=(), grammar=ASCII), on_token=boom)
    assert b.generate(PROMPT, DecodingOptions(max_tokens=3, stop=(), grammar=ASCII)).stats.generated_tokens == 3
