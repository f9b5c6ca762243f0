"""Shared fixtures: the real bundled domains, loaded once per session, and a tiny real GGUF model.

`tests/support` (on sys.path) holds helpers every test folder may import, such as `tiny_gguf`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent / "support"))

import pytest
from needs import require

from domain_drafter.core.bundle import DomainBundle, load_bundled


def all_reference_actions() -> list[tuple[str, str]]:
    """(domain, action) for every action of every bundled domain: the 32 of METHOD 9."""
    return [(b.name, a) for b in load_bundled() for a in b.action_names]


@pytest.fixture(scope="session")
def bundles() -> dict[str, DomainBundle]:
    return {b.name: b for b in load_bundled()}


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny real llama-architecture GGUF written by the test run (tests/support/tiny_gguf.py)."""
    require("gguf", "pip install gguf")
    require("llama_cpp", "pip install llama-cpp-python")
    from tiny_gguf import write_tiny_llama

    return write_tiny_llama(tmp_path_factory.mktemp("tiny") / "tiny-llama.gguf", seed=0)


@pytest.fixture(scope="session")
def tiny_backend(tiny_model: Path):
    from domain_drafter.llm.llama import LlamaCppBackend

    with LlamaCppBackend(tiny_model, n_ctx=4096) as backend:
        yield backend


@pytest.fixture(scope="session")
def served_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The model the download tests' local hub serves: the tiny GGUF padded to 6 MiB, six of the 1 MiB
    pieces a pull writes at a time, so a transfer can be dropped or stopped midway."""
    require("gguf", "pip install gguf")
    from hub_server import HUB_FILE, MIB, hub_gguf

    return hub_gguf(tmp_path_factory.mktemp("hub") / HUB_FILE, 6 * MIB).read_bytes()

