"""Hosted endpoints fail now and then (issue 16 item 7): transient errors are retried with backoff.

The server is a real HTTP server on 127.0.0.1 (http.server in a thread) that fails the first
requests the way busy hosted endpoints do (503, 429 with Retry-After), then answers like an
OpenAI-compatible /v1/completions stream. A run whose endpoint keeps failing stops cleanly with
the remaining tasks pending, and --resume completes it once the server answers again.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm import http as http_backend
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.http import OpenAICompletionsBackend

ANSWER = "(:action pick-up :parameters (?x))"


class FlakyServer:
    """Answers `failures` (a list of (status, headers)) first, then streams ANSWER."""

    def __init__(self, failures):
        self.failures = list(failures)
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests += 1
                if outer.failures:
                    status, headers = outer.failures.pop(0)
                    body = f"failure {outer.requests}".encode()
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                events = [{"choices": [{"text": ANSWER[:10], "finish_reason": None}]},
                          {"choices": [{"text": ANSWER[10:], "finish_reason": "stop"}]},
                          {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}]
                payload = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_an_endpoint_that_fails_twice_then_answers():
    with FlakyServer([(503, {}), (429, {"Retry-After": "0"})]) as server:
        backend = OpenAICompletionsBackend(server.url, retry_first_s=0.05)
        t0 = time.monotonic()
        g = backend.generate("prompt", DecodingOptions(stop=()))
    assert g.text == ANSWER and g.stats.stop_reason == "stop"
    assert server.requests == 3 and backend.attempts == 3
    assert time.monotonic() - t0 >= 0.05 + 0.1   # it waited, doubling


def test_a_client_error_is_not_retried():
    with FlakyServer([(400, {})]) as server:
        backend = OpenAICompletionsBackend(server.url, retry_first_s=0.01)
        with pytest.raises(ModelError, match="HTTP 400"):
            backend.generate("prompt")
    assert server.requests == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused_gives_up_after_the_retries_naming_them():
    backend = OpenAICompletionsBackend(f"http://127.0.0.1:{free_port()}", retries=2, retry_first_s=0.01)
    with pytest.raises(ModelError) as info:
        backend.generate("prompt")
    assert "cannot reach the model server" in info.value.what and "gave up after 3 attempts" in info.value.what
    assert "start the server" in info.value.hint


def test_a_cancel_during_the_backoff_returns_at_once():
    with FlakyServer([(503, {"Retry-After": "20"})]) as server:
        backend = OpenAICompletionsBackend(server.url)
        task = TaskState()
        threading.Timer(0.2, task.cancel).start()
        t0 = time.monotonic()
        g = backend.generate("prompt", task=task)
    assert g.stats.stop_reason == "cancelled" and time.monotonic() - t0 < 5


def test_a_run_whose_endpoint_keeps_failing_stops_cleanly_and_resumes(tmp_path, monkeypatch):
    from domain_drafter.bench.runner import run_experiment
    from domain_drafter.bench.spec import spec_from_dict

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(http_backend, "RETRIES", 2)         # the run's backend is built by the factory
    monkeypatch.setattr(http_backend, "RETRY_FIRST_S", 0.01)
    out = tmp_path / "hosted.sqlite"
    with FlakyServer([(503, {})] * 100) as bad:
        spec = spec_from_dict({"name": "hosted", "domains": ["gripper"], "k": 10, "time_limit_s": 20.0,
                               "models": [{"name": "remote", "endpoint": bad.url}]})
        with pytest.raises(ModelError) as info:
            run_experiment(spec, out)
        assert "HTTP 503" in info.value.what and "--resume" in info.value.hint
        assert bad.requests == 3
        with sqlite3.connect(out) as db:
            assert db.execute("SELECT DISTINCT status FROM tasks").fetchall() == [("pending",)]
        bad.failures.clear()   # the server recovers
        summary = run_experiment(spec, out, resume=True)
    assert summary.evaluated == summary.total == 3 and not summary.cancelled
    with sqlite3.connect(out) as db:
        assert {a for (a,) in db.execute("SELECT answer FROM tasks")} == {ANSWER}
