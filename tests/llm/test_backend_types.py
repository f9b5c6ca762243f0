"""DecodingOptions defaults and the stop-sequence scanner (pure Python)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain_drafter.llm.backend import (
    DecodingOptions,
    Generation,
    GenerationBackend,
    GenerationStats,
    StopScanner,
    make_stats,
)


def test_decoding_defaults_are_the_papers():
    o = DecodingOptions()
    assert o.max_tokens == 300
    assert o.temperature == 0.0
    assert o.stop == ("Input:", "Allowed Predicates:")
    assert o.seed == 0
    assert o.grammar is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.max_tokens = 5  # type: ignore[misc]


def test_decoding_options_validate():
    assert DecodingOptions(stop="END").stop == ("END",)
    assert DecodingOptions(stop=["a", "b"]).stop == ("a", "b")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        DecodingOptions(max_tokens=0)
    with pytest.raises(ValueError):
        DecodingOptions(temperature=-1)
    with pytest.raises(ValueError):
        DecodingOptions(stop=("",))


def test_make_stats():
    s = make_stats(prompt_tokens=5, generated_tokens=11, t_start=1.0, t_first=1.5, t_end=2.5, stop_reason="length")
    assert s == GenerationStats(5, 11, 0.5, 10.0, 1.5, "length")
    none = make_stats(prompt_tokens=5, generated_tokens=0, t_start=1.0, t_first=None, t_end=1.2, stop_reason="cancelled")
    assert none.tokens_per_s == 0.0 and none.time_to_first_token_s == pytest.approx(0.2)
    assert Generation("x", s).text == "x"


def test_backends_satisfy_the_protocol(tiny_backend):
    from domain_drafter.llm.http import OpenAICompletionsBackend

    assert isinstance(tiny_backend, GenerationBackend)
    assert isinstance(OpenAICompletionsBackend("http://127.0.0.1:9"), GenerationBackend)


def _run(pieces: list[str], stops: tuple[str, ...]) -> tuple[str, str, bool]:
    sc = StopScanner(stops)
    out = "".join(sc.feed(p) for p in pieces)
    if not sc.stopped:
        out += sc.finish()
    return out, sc.text, sc.stopped


def test_scanner_cuts_a_stop_split_over_pieces():
    out, text, stopped = _run(["(:action a)\nIn", "pu", "t: more"], ("Input:", "Allowed Predicates:"))
    assert (out, text, stopped) == ("(:action a)\n", "(:action a)\n", True)


def test_scanner_holds_back_only_possible_stop_prefixes():
    sc = StopScanner(("Input:",))
    assert sc.feed("abc In") == "abc "  # "In" could start "Input:"
    assert sc.feed("k") == "Ink"  # it did not
    assert sc.finish() == ""


def test_scanner_earliest_of_several_stops_wins():
    out, _, stopped = _run(["xx Allowed Predicates: yy Input: zz"], ("Input:", "Allowed Predicates:"))
    assert out == "xx " and stopped


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="abIn:put ", max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=12),
    stops=st.lists(st.text(alphabet="abIn:put ", min_size=1, max_size=6), max_size=3),
)
def test_scanner_property(text, cuts, stops):
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    out, kept, stopped = _run(pieces, tuple(stops))
    # Streaming semantics (as in llama.cpp's servers): generation ends with the first piece after
    # which some stop string has appeared; the text is cut where the earliest stop found then starts.
    expected, hit = text, False
    seen = ""
    for piece in pieces:
        seen += piece
        starts = [i for i in (seen.find(s) for s in stops) if i != -1]
        if starts:
            expected, hit = seen[: min(starts)], True
            break
    assert out == kept == expected
    assert stopped == hit
    assert not any(s in out for s in stops)


def test_scanner_stops_as_soon_as_a_stop_completes():
    # ":" completes first; the longer "I::" could only have matched with text not yet generated
    assert _run(["I:", ":"], (":", "I::"))[0] == "I"
    assert _run(["I::"], (":", "I::"))[0] == ""  # in one piece the earliest start wins
