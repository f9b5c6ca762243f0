"""Generate through an OpenAI-compatible server (standard library only).

The "completion" prompt format posts the paper's prompt to `/v1/completions`; "chat" posts it as
one user message to `/v1/chat/completions`, where the server applies the model's chat template.
Works with llama.cpp's `llama-server`, `python -m llama_cpp.server` and vLLM: a way to use models
too big for the desktop (e.g. the paper's LLaMA-2 70B) on another machine. Text is streamed with
server-sent events; cancelling closes the connection, which stops the server's generation too.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import (
    CallbackError,
    DecodingOptions,
    Generation,
    GenerationStats,
    LoopWatch,
    PromptFormat,
    StopReason,
    StopScanner,
    make_stats,
    messages_of,
)
from domain_drafter.llm.sampling_chain import server_sampling
from domain_drafter.llm.sse import choice_text, retry_after_seconds, role_only, sse_events

# Sent with every request unless the caller passes other `extra_body`. llama_cpp.server samples
# with repeat_penalty=1.1 by default, which would make "greedy" differ from the paper's (and
# from LlamaCppBackend's) plain argmax decoding. Servers that do not know the field ignore it.
DEFAULT_EXTRA_BODY: Mapping[str, Any] = {"repeat_penalty": 1.0}


# Transient failures (connection refused or reset before an answer, HTTP 429 and 5xx) are retried
# after 0.5, 1, 2, 4, 8 s (a Retry-After header of the server wins, up to RETRY_MAX_S).
RETRIES = 5
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0
TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})


class _Cancelled(Exception):
    pass


class TransientServerError(ModelError):
    """A failure worth retrying: the server was unreachable or said it is busy or broken (429, 5xx)."""

    def __init__(self, what: str, *, where: str, hint: str | None = None, retry_after_s: float | None = None):
        super().__init__(what, where=where, hint=hint)
        self.retry_after_s = retry_after_s


class OpenAICompletionsBackend:
    """A model behind an OpenAI-compatible HTTP server.

    base_url: the server root, with or without the trailing /v1 (http://127.0.0.1:8080 or
    http://127.0.0.1:8080/v1). model: sent as "model" (some servers host several). stream=False
    makes one plain request (on_token then gets the whole text at once; no time-to-first-token).
    retries: how often a transient failure (see TRANSIENT_STATUS) is retried, with doubling waits
    from retry_first_s; a cancel during a wait returns at once. `attempts` counts the requests
    the last generate() made.
    """

    steers_tokens = False   # a server samples its own logits: `judged` and `forbidden` cannot act (see _body)

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120,
        *,
        stream: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        prompt_format: PromptFormat = "completion",
        retries: int | None = None,
        retry_first_s: float | None = None,
    ):
        parsed = urllib.parse.urlsplit(base_url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ModelError(
                "not an http(s) URL",
                where=base_url,
                hint="give the server's address, e.g. http://127.0.0.1:8080",
            )
        self.base_url = base_url.rstrip("/")
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        prefix = parsed.path.rstrip("/")
        if prefix.endswith("/v1"):
            prefix = prefix[: -len("/v1")]
        self._prefix = prefix
        self._route = "/v1/chat/completions" if prompt_format == "chat" else "/v1/completions"
        self.url = f"{parsed.scheme}://{parsed.netloc}{prefix}{self._route}"
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.stream = stream
        self.extra_body = dict(DEFAULT_EXTRA_BODY if extra_body is None else extra_body)
        self.prompt_format: PromptFormat = prompt_format
        self.retries = RETRIES if retries is None else retries   # None: the module's RETRIES at this call
        self.retry_first_s = RETRY_FIRST_S if retry_first_s is None else retry_first_s
        self.attempts = 0
        self._tokenize_route: str | None = None  # which token-count route this server has
        self._closed = False

    @property
    def name(self) -> str:
        return f"http:{self.model or self.base_url}"

    def __enter__(self) -> OpenAICompletionsBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._closed = True  # no connection is kept between calls

    # --- requests ---------------------------------------------------------------------------
    def _connect(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=self.timeout_s)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _unreachable(self, e: BaseException) -> ModelError:
        return ModelError(
            f"cannot reach the model server: {e}",
            where=self.url,
            hint="start the server (e.g. `python -m llama_cpp.server --model M.gguf --port 8080` or "
            "`llama-server -m M.gguf --port 8080`) or fix the URL",
        )

    def _post(self, conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> http.client.HTTPResponse:
        try:
            conn.request("POST", path, body=json.dumps(body).encode("utf-8"), headers=self._headers())
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            err = self._unreachable(e)
            raise TransientServerError(err.what, where=self.url, hint=err.hint) from e
        if resp.status != 200:
            detail = resp.read(2000).decode("utf-8", errors="replace").strip()
            retry_after = resp.getheader("Retry-After")
            conn.close()
            if resp.status in TRANSIENT_STATUS:
                raise TransientServerError(f"the server answered HTTP {resp.status}: {detail}", where=self.url,
                                           hint="the server is busy or failing; try again later",
                                           retry_after_s=retry_after_seconds(retry_after))
            hint = "check the API key" if resp.status in (401, 403) else (
                f"is this an OpenAI-compatible server with {self._route}?" if resp.status == 404 else None
            )
            raise ModelError(f"the server answered HTTP {resp.status}: {detail}", where=self.url, hint=hint)
        return resp

    def _body(self, prompt: str, options: DecodingOptions) -> dict[str, Any]:
        body: dict[str, Any] = {
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "seed": options.seed,
            "stream": self.stream,
        }
        if self.prompt_format == "chat":
            body["messages"] = [{"role": role, "content": content} for role, content in messages_of(prompt)]
        else:
            body["prompt"] = str(prompt)
        body.update(server_sampling(options))   # the in-process chain's top-k, temperature, top-p
        if options.stop:
            body["stop"] = list(options.stop)
        if options.grammar is not None:
            body["grammar"] = options.grammar
        if self.model is not None:
            body["model"] = self.model
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        body.update(self.extra_body)
        return body

    # --- generation -------------------------------------------------------------------------
    def generate(
        self,
        prompt: str,
        options: DecodingOptions = DecodingOptions(),
        *,
        on_token: Callable[[str], None] | None = None,
        task: TaskState | None = None,
    ) -> Generation:
        """One answer; a transient failure before any text arrived is retried (see the class)."""
        t_start = time.perf_counter()
        self.attempts = 0
        while True:
            self.attempts += 1
            try:
                return self._generate_once(prompt, options, on_token, task)
            except TransientServerError as e:
                if self.attempts > self.retries:
                    raise ModelError(f"{e.what} (gave up after {self.attempts} attempts in "
                                     f"{time.perf_counter() - t_start:.1f} s)", where=e.where, hint=e.hint) from e
                delay = self.retry_first_s * 2 ** (self.attempts - 1)
                if e.retry_after_s is not None:
                    delay = max(delay, e.retry_after_s)
                if task is not None and task.wait(min(delay, RETRY_MAX_S)):
                    return Generation("", make_stats(prompt_tokens=0, generated_tokens=0, t_start=t_start,
                                                     t_first=None, t_end=time.perf_counter(), stop_reason="cancelled"))
                if task is None:
                    time.sleep(min(delay, RETRY_MAX_S))

    def _generate_once(self, prompt: str, options: DecodingOptions, on_token: Callable[[str], None] | None,
                       task: TaskState | None) -> Generation:
        if self._closed:
            raise ModelError("the backend was closed", where=self.url)
        t_start = time.perf_counter()
        scanner = StopScanner(options.stop)
        loops = LoopWatch() if options.stop_loops and self.stream else None   # a whole answer is read at once
        looped = False
        usage: dict[str, Any] = {}
        n_chunks = 0
        t_first: float | None = None
        finish: str | None = None
        reason: StopReason = "length"

        def emit(text: str) -> None:
            if text and on_token is not None:
                try:
                    on_token(text)
                except BaseException as e:  # the caller's exception, not a server failure
                    raise CallbackError(e) from e

        if task is not None and task.cancelled:
            return Generation("", make_stats(prompt_tokens=0, generated_tokens=0, t_start=t_start,
                                             t_first=None, t_end=time.perf_counter(), stop_reason="cancelled"))
        conn = self._connect()
        done = threading.Event()
        watcher = None
        if task is not None:
            watcher = threading.Thread(target=self._watch, args=(task, conn, done), daemon=True)
            watcher.start()
        try:
            resp = self._post(conn, f"{self._prefix}{self._route}", self._body(prompt, options))
            if not self.stream:
                data = json.loads(resp.read().decode("utf-8"))
                choice = (data.get("choices") or [{}])[0]
                emit(scanner.feed(choice_text(choice)))
                finish = choice.get("finish_reason")
                usage = data.get("usage") or {}
            else:
                for event in sse_events(resp):
                    if task is not None and task.cancelled:
                        raise _Cancelled()
                    if event.get("usage"):
                        usage = event["usage"]
                    for choice in event.get("choices") or []:
                        text = choice_text(choice)
                        if text or (choice.get("finish_reason") is None and not role_only(choice)):
                            n_chunks += 1
                            if t_first is None:
                                t_first = time.perf_counter()
                        emit(scanner.feed(text))
                        if choice.get("finish_reason"):
                            finish = choice["finish_reason"]
                        if loops is not None and text and loops.feed(text):
                            looped = True
                    if scanner.stopped or looped:
                        break  # the server did not cut the stop sequence, or the answer loops: stop reading
        except _Cancelled:
            reason = "cancelled"
        except CallbackError as e:
            raise e.original from None
        except ModelError:
            if task is not None and task.cancelled:
                reason = "cancelled"
            else:
                raise
        except (OSError, http.client.HTTPException, ValueError) as e:
            if task is not None and task.cancelled:
                reason = "cancelled"
            else:
                raise ModelError(f"the stream from the server broke off: {e}", where=self.url) from e
        else:
            if scanner.stopped:
                reason = "stop"
            elif looped:
                reason = "loop"
            elif finish == "length":
                reason = "length"
            elif finish is not None:
                reason = "stop"  # OpenAI reports both a stop sequence and end-of-text as "stop"
            if finish is None and not scanner.stopped and not looped:
                if task is not None and task.cancelled:
                    reason = "cancelled"
                else:
                    raise ModelError(
                        "the server ended the answer without saying why (no finish_reason): "
                        "did it crash or run out of memory?",
                        where=self.url,
                    )
        finally:
            done.set()
            conn.close()
            if watcher is not None:
                watcher.join(timeout=1.0)
        if reason != "cancelled" and not scanner.stopped:
            try:
                emit(scanner.finish())
            except CallbackError as e:
                raise e.original from None
        generated = int(usage.get("completion_tokens") or 0) or n_chunks
        if not self.stream and not generated and scanner.text:
            generated = 1
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        if not prompt_tokens and reason != "cancelled":
            prompt_tokens = self.count_tokens(prompt)
        t_end = time.perf_counter()
        if not self.stream:  # one answer: no first-token time; speed is over the whole call
            wall = t_end - t_start
            stats = GenerationStats(prompt_tokens, generated, wall, generated / wall if wall > 0 else 0.0, wall, reason)
            return Generation(text=scanner.text, stats=stats)
        stats = make_stats(
            prompt_tokens=prompt_tokens,
            generated_tokens=generated,
            t_start=t_start,
            t_first=t_first,
            t_end=t_end,
            stop_reason=reason,
        )
        return Generation(text=scanner.text, stats=stats)

    @staticmethod
    def _watch(task: TaskState, conn: http.client.HTTPConnection, done: threading.Event) -> None:
        """Close the socket as soon as the task is cancelled, which unblocks a pending read."""
        while not done.is_set():
            if task.wait(0.02):
                sock = conn.sock
                if sock is not None and not done.is_set():
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                return

    def count_tokens(self, text: str) -> int:
        """Prompt length in the server's tokens, for servers that do not report usage when
        streaming. Tries llama_cpp.server's /extras/tokenize and llama.cpp's /tokenize; 0 if
        the server has neither."""
        routes = [self._tokenize_route] if self._tokenize_route else ["extras", "llama.cpp"]
        for route in routes:
            path, body = (
                (f"{self._prefix}/extras/tokenize", {"input": text})
                if route == "extras"
                else (f"{self._prefix}/tokenize", {"content": text, "add_special": True})
            )
            if self.model is not None:
                body["model"] = self.model
            conn = self._connect()
            try:
                conn.request("POST", path, body=json.dumps(body).encode("utf-8"), headers=self._headers())
                resp = conn.getresponse()
                payload = resp.read()
                if resp.status != 200:
                    continue
                tokens = json.loads(payload.decode("utf-8")).get("tokens")
                if isinstance(tokens, list):
                    self._tokenize_route = route
                    return len(tokens)
            except (OSError, http.client.HTTPException, ValueError):
                continue
            finally:
                conn.close()
        return 0
