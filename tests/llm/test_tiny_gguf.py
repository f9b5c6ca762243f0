"""The tiny test model itself, and the GGUF header checks run on it."""

from __future__ import annotations

import time

import pytest
from tiny_gguf import build_vocab, write_tiny_llama

from domain_drafter.core.errors import ModelError
from domain_drafter.llm.gguf_check import GGML_BLOCK_SIZES, inspect_gguf


def test_vocab_is_byte_level_and_unique():
    tokens, types, merges, bos, eos = build_vocab()
    assert len(set(tokens)) == len(tokens)
    assert 400 <= len(tokens) <= 600
    assert len(merges) >= 150
    assert (types[bos], types[eos]) == (3, 3)


def test_writer_is_small_fast_and_deterministic(tmp_path):
    t0 = time.perf_counter()
    a = write_tiny_llama(tmp_path / "a.gguf", seed=0)
    elapsed = time.perf_counter() - t0
    b = write_tiny_llama(tmp_path / "b.gguf", seed=0)
    c = write_tiny_llama(tmp_path / "c.gguf", seed=1)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()
    assert a.stat().st_size < 1_000_000
    assert elapsed < 30  # a wide bound a loaded CI meets: the point is "seconds, not a download"


def test_inspect_reads_the_header(tiny_model):
    info = inspect_gguf(tiny_model)
    assert info.architecture == "llama"
    assert info.context_length == 2048
    assert info.vocab_size == len(build_vocab()[0])
    assert info.data_end == info.file_size  # every tensor's bytes are accounted for


def test_block_sizes_agree_with_gguf_package():
    import gguf

    for qtype, (per_block, nbytes) in gguf.GGML_QUANT_SIZES.items():
        if int(qtype) in GGML_BLOCK_SIZES:
            assert GGML_BLOCK_SIZES[int(qtype)] == (per_block, nbytes), qtype.name


def test_duplicate_token_is_refused(tmp_path):
    bad = write_tiny_llama(tmp_path / "dup.gguf", duplicate_token=True)
    with pytest.raises(ModelError) as e:
        inspect_gguf(bad)
    assert "twice" in str(e.value) and str(bad) in str(e.value)
