"""The chat prompt format over HTTP: a real `python -m llama_cpp.server` serving a tiny GGUF that
has a chat template. The server applies the template; greedy answers must equal the in-process
backend's in chat format (which applies the same template through llama.cpp).

The template here writes BOS itself, as Llama 3's does: llama_cpp.server assumes that every GGUF
template does (it then adds none), while llama.cpp and our backend add BOS when the model's
metadata asks for it and the template did not write one. With a template that writes no BOS on a
model that wants one (this tiny model), the server would read the prompt without BOS, a different
context (measured: the answers part after 11 characters)."""

from __future__ import annotations

import pytest
from llama_server import serve_llama

from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.factory import open_backend
from domain_drafter.llm.http import OpenAICompletionsBackend

ASCII = 'root ::= [a-z :()?-]+'   # see test_http_backend.py: the server drops invalid UTF-8
PROMPT = "(define (domain blocksworld)\nInput: The robot picks up a block.\nOutput:"
GREEDY = DecodingOptions(max_tokens=24, stop=(), grammar=ASCII)


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory):
    from tiny_gguf import CHATML_TEMPLATE, write_tiny_llama

    return write_tiny_llama(tmp_path_factory.mktemp("chat-http") / "tiny-chat.gguf",
                            chat_template="{{ bos_token }}" + CHATML_TEMPLATE)


@pytest.fixture(scope="module")
def chat_server(chat_model, tmp_path_factory):
    with serve_llama(chat_model, tmp_path_factory.mktemp("chat-server") / "server.log", timeout_s=30) as url:
        yield url


def test_chat_over_http_equals_chat_in_process(chat_server, chat_model):
    pieces: list[str] = []
    with open_backend(chat_server, prompt_format="chat") as remote:
        assert remote.url.endswith("/v1/chat/completions")
        streamed = remote.generate(PROMPT, GREEDY, on_token=pieces.append)
    whole = OpenAICompletionsBackend(chat_server, prompt_format="chat", stream=False).generate(PROMPT, GREEDY)
    with open_backend(chat_model, prompt_format="chat") as local, open_backend(chat_model) as plain:
        here = local.generate(PROMPT, GREEDY)
        completion = plain.generate(PROMPT, GREEDY)
    assert streamed.text and streamed.text == whole.text == here.text
    assert "".join(pieces) == streamed.text
    assert streamed.stats.generated_tokens == 24 and streamed.stats.stop_reason == "length"
    assert here.text != completion.text   # the template really reached the model on both sides


def test_completion_format_still_posts_the_plain_prompt(chat_server, chat_model):
    with open_backend(chat_server) as remote, open_backend(chat_model) as local:
        assert remote.url.endswith("/v1/completions")
        assert remote.generate(PROMPT, GREEDY).text == local.generate(PROMPT, GREEDY).text
