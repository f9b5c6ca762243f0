"""A real `python -m llama_cpp.server` (OpenAI-compatible) on a GGUF, for the HTTP backend's and the
benchmark's tests. Fails (never skips) when the server extras are missing."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from needs import require


@contextlib.contextmanager
def serve_llama(model: Path, log_path: Path, *, timeout_s: float = 60.0, extra_args: tuple[str, ...] = ()
                ) -> Iterator[str]:
    """Start the server on a free loopback port, wait until it answers, yield its base URL, stop it.
    `extra_args` go to the server's command line (e.g. ("--n_threads", "1"))."""
    for module in ("fastapi", "uvicorn", "sse_starlette", "pydantic_settings", "starlette_context"):
        require(module, "pip install fastapi uvicorn sse-starlette pydantic-settings starlette-context "
                "(the extras of llama-cpp-python[server])")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                                 "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", *extra_args],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
                try:
                    with urllib.request.urlopen(f"{url}/v1/models", timeout=1) as r:
                        json.load(r)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        pytest.fail(f"llama_cpp.server did not answer within {timeout_s:.0f} s:\n"
                                    f"{log_path.read_text()[-3000:]}")
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
