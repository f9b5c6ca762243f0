"""Ending an answer that repeats itself (DecodingOptions.stop_loops, llm/backend.py LoopWatch).

Free decoding with a small model often writes an effect whose literals come again and again until the
token limit (38 of the 396 calls of the sixth strategies run, each three times as long as a normal call).
A search ends such a call at the third copy and lets the quick fix close the answer.
"""

from __future__ import annotations

import dataclasses

import pytest

from domain_drafter.llm.backend import DecodingOptions, LoopWatch


def fed(text: str, piece: int = 3) -> int | None:
    """The offset at which the watch says 'loop', feeding `text` in pieces of `piece` characters."""
    watch = LoopWatch()
    for i in range(0, len(text), piece):
        if watch.feed(text[i:i + piece]):
            return i + piece
    return None


def test_a_literal_repeated_is_caught_in_its_third_copy_and_not_before():
    head = "(:action pick-up :parameters (?p - paper) :effect (and "
    stretch = "(not (satisfied ?loc)) (carrying ?paper) "
    at = fed(head + stretch * 6, piece=1)
    assert at is not None and len(head) + 2 * len(stretch) < at <= len(head) + 3 * len(stretch)


@pytest.mark.parametrize("text", [
    "(:action stack :parameters (?x ?y - block) :precondition (and (holding ?x) (clear ?y)) "
    ":effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))",
    "The hand puts the block down. " * 5,          # prose repeated: no '(' in it
    "(at a) " * 3,                                  # shorter than the shortest period (12 characters)
])
def test_an_answer_without_such_a_loop_is_left_alone(text):
    assert fed(text) is None


def test_the_option_is_off_in_the_papers_protocol():
    assert DecodingOptions().stop_loops is False


LOOPING = "Continue the list:\n" + "(at ?a ?b) (not (free ?b)) " * 4


def test_the_default_model_looping_on_a_pattern_is_ended_early(default_cache):
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend

    prompt = LOOPING
    with LlamaCppBackend(models.default_model_path(), n_threads=2) as backend:
        free = backend.generate(prompt, DecodingOptions(max_tokens=120, stop=()))
        cut = backend.generate(prompt, DecodingOptions(max_tokens=120, stop=(), stop_loops=True))
    assert free.stats.stop_reason == "length", free.text     # greedy: the pattern goes on to the limit
    assert cut.stats.stop_reason == "loop"
    assert cut.stats.generated_tokens < free.stats.generated_tokens / 2
    assert free.text.startswith(cut.text)                    # the same greedy answer, ended sooner


def test_a_server_stream_that_loops_is_ended_early_too(llama_server):
    """The tiny model behind a real llama_cpp.server, held to one literal again and again by a grammar (the
    default model cannot be served: llama_cpp.server's stream breaks off on Gemma 3)."""
    from domain_drafter.llm.http import OpenAICompletionsBackend

    backend = OpenAICompletionsBackend(llama_server)
    options = DecodingOptions(max_tokens=200, stop=(), grammar='root ::= "(at ?a ?b) " root')   # no end
    free = backend.generate("Continue the list:", options)
    cut = backend.generate("Continue the list:", dataclasses.replace(options, stop_loops=True))
    assert free.stats.stop_reason == "length", free.text
    assert cut.stats.stop_reason == "loop"
    assert free.text.startswith(cut.text) and len(cut.text) < len(free.text) / 2
