"""Helpers for the benchmark tests (a module of its own: test module names must be unique across tests/)."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator


def write_spec(path: Path, model: Path, *, domains: str = '"all"', classes: str = '["base"]', prompts: int = 1,
               workers: int = 1, max_tokens: int = 32, extra: str = "") -> Path:
    """A spec on the tiny GGUF: one context example and few new tokens (its answers are noise either way;
    shorter prompts only make the run cheaper)."""
    path.write_text(f"""
name = "{path.stem}"
domains = {domains}
classes = {classes}
prompts_per_action = {prompts}
workers = {workers}
max_tokens = {max_tokens}
k = 10
examples = 1
time_limit_s = 20.0
{extra}
[[models]]
name = "tiny"
model = "{model}"
size_b = 0.0001
""", encoding="utf-8")
    return path


def subclass_by_key(db_path: Path) -> dict[str, tuple[str, str]]:
    with sqlite3.connect(db_path) as db:
        return {k: (s, a) for k, s, a in db.execute("SELECT key, subclass, answer FROM tasks")}


@contextlib.contextmanager
def llama_server(model: Path, log_path: Path) -> Iterator[str]:
    """`python -m llama_cpp.server` on the tiny model (a real OpenAI-compatible server); yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                                 "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
                                stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, f"llama_cpp.server exited:\n{log_path.read_text()[-3000:]}"
                try:
                    with urllib.request.urlopen(f"{url}/v1/models", timeout=1) as r:
                        json.load(r)
                    break
                except OSError:
                    assert time.monotonic() < deadline, f"no answer in 60 s:\n{log_path.read_text()[-3000:]}"
                    time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
