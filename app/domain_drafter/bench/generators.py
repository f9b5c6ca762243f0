"""Who writes a benchmark's answers: generator processes on this machine, endpoints, endpoints via Dask.

Each kind has the same two methods, `draft(row, task) -> Drafted` and `close()`, and a `label` that the
results record as who wrote each answer. `bench/dispatch.py` runs one thread per generator slot and
hands the tasks out one at a time.

- `ProcessGenerator`: a spawned process with its own loaded llama.cpp model and `threads` cores. It is
  started with 'spawn' (the parent may hold threads, a model or Qt) and ends itself when the parent is
  gone. A process that dies is restarted once (`restart`); its task is handed out again.
- `EndpointGenerator`: one request slot of an OpenAI-compatible server (`parallel` slots per server).
  A server that fails is taken out of the rotation for a while (`Endpoint.cool_down`) and tried again.
- `DaskGenerator`: the same slot, but the request and the strategy's judging run on a Dask worker, so
  one command drives a cluster's whole experiment.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain_drafter.bench.drafter import Drafted, TaskDrafter
from domain_drafter.bench.spec import ExperimentSpec, ModelSpec
from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import Cancelled, TaskState

POLL_S = 0.1            # how often a waiting slot looks at the cancel flag
LOAD_TIMEOUT_S = 600.0  # a generator process that has not loaded its model by then is taken as dead


class GeneratorDied(Exception):
    """A generator process ended without an answer (killed, out of memory, a crash in llama.cpp)."""


class EndpointFailed(Exception):
    """An endpoint's request failed (refused, timed out, or a server error after its retries)."""

    def __init__(self, endpoint: Endpoint, cause: BaseException):
        super().__init__(f"{endpoint.url}: {getattr(cause, 'message', None) or cause}")
        self.endpoint = endpoint


def open_backend(model: ModelSpec, spec: ExperimentSpec):
    """The model's backend: llama.cpp in this process, or its (first) OpenAI-compatible server."""
    from domain_drafter.llm.factory import open_backend as open_any

    if model.endpoint:
        return endpoint_backend(model, model.endpoints[0], many=False)
    return open_any(str(model.model), n_ctx=spec.n_ctx, n_threads=spec.threads,
                    reuse_prompt_cache=spec.reuse_prompt_cache, prompt_format=model.prompt_format)


# ---------------------------------------------------------------------------------------------------------
# generator processes


def _generator_main(conn, spec: ExperimentSpec, model: ModelSpec, parent: int) -> None:
    """A generator process: load the model once, then draft each row the parent sends, until 'stop'."""
    from domain_drafter.bench.executors import _exit_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's: it stops the children
    _exit_with_parent(parent)
    try:
        backend = open_backend(model, spec)
    except ModelError as exc:
        conn.send(("load-error", exc.message))
        return
    drafter = TaskDrafter(spec, model)
    conn.send(("ready", os.getpid()))
    with backend:
        while True:
            try:
                message = conn.recv()
            except EOFError:
                return
            if message[0] == "stop":
                break
            progress = TaskState(lambda _done, _total, text: conn.send(("progress", text)))
            try:
                conn.send(("done", drafter.draft(message[1], backend, progress)))
            except ModelError as exc:
                conn.send(("model-error", exc.message))
    drafter.close()


class ProcessGenerator:
    """A generator process of this machine, driven from one thread of the parent."""

    def __init__(self, spec: ExperimentSpec, model: ModelSpec, index: int):
        self.spec, self.model, self.index = spec, model, index
        self.label = f"generator {index}"
        self.restarts = 0
        self.pid: int | None = None
        self._process = None
        self._conn = None
        self._ready = False
        self._start()

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_generator_main, name=f"domain-drafter {self.label}",
                                        args=(child, self.spec, self.model, os.getpid()), daemon=True)
        self._process.start()
        child.close()
        self.pid, self._ready = self._process.pid, False

    def restart(self) -> None:
        """Start a fresh process after this one died (the caller allows it once)."""
        self._kill()
        self.restarts += 1
        self._start()

    def _receive(self, task: TaskState | None, timeout_s: float | None = None):
        """The child's next message; Cancelled on cancel (the child is killed), GeneratorDied if it ended."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            if task is not None and task.cancelled:
                self._kill()
                raise Cancelled()
            try:
                if self._conn.poll(POLL_S):
                    return self._conn.recv()
            except (EOFError, OSError):   # the pipe broke: the process is gone or going
                break
            if not self._process.is_alive():
                break
            if deadline is not None and time.monotonic() > deadline:
                self._kill()
                raise GeneratorDied(f"{self.label} (pid {self.pid}) did not load its model in {timeout_s:.0f} s")
        self._process.join(5)
        raise GeneratorDied(f"{self.label} (pid {self.pid}) ended with exit code {self._process.exitcode}")

    def draft(self, row: dict, task: TaskState | None = None) -> Drafted:
        if not self._ready:
            kind, detail = self._receive(task, LOAD_TIMEOUT_S)
            if kind == "load-error":
                raise ModelError(f"{self.label} could not load the model: {detail}")
            self._ready = True
        try:
            self._conn.send(("draft", row))
        except (BrokenPipeError, OSError):
            raise GeneratorDied(f"{self.label} (pid {self.pid}) is gone") from None
        kind, payload = self._receive(task)
        while kind == "progress":   # the child's search under way: passed on as this task's progress
            if task is not None:
                task.report(0, 0, payload)
            kind, payload = self._receive(task)
        if kind == "model-error":
            raise ModelError(f"{self.label}: {payload}")
        return payload.with_generator(self.label)

    def _kill(self) -> None:
        if self._process is not None and self._process.is_alive():
            self._process.kill()
        if self._process is not None:
            self._process.join(5)
        if self._conn is not None:
            self._conn.close()

    def close(self) -> None:
        if self._process is not None and self._process.is_alive() and self._ready:
            try:
                self._conn.send(("stop",))
                self._process.join(10)
            except (BrokenPipeError, OSError):
                pass
        self._kill()


# ---------------------------------------------------------------------------------------------------------
# endpoints


@dataclass
class Endpoint:
    """One OpenAI-compatible server and its health, shared by its `parallel` request slots."""

    url: str
    failures: int = 0              # in a row, since its last answer
    down_until: float = 0.0
    answers: int = 0
    last_error: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    FIRST_COOL_DOWN_S = 5.0
    MAX_COOL_DOWN_S = 120.0

    def succeeded(self) -> None:
        with self._lock:
            self.failures, self.down_until = 0, 0.0
            self.answers += 1

    def cool_down(self, error: str) -> float:
        """Take the endpoint out of the rotation after a failure: 5 s, then twice as long each time."""
        with self._lock:
            self.failures += 1
            self.last_error = error
            wait = min(self.FIRST_COOL_DOWN_S * 2 ** (self.failures - 1), self.MAX_COOL_DOWN_S)
            self.down_until = time.monotonic() + wait
            return wait


def endpoint_backend(model: ModelSpec, url: str, many: bool):
    """The HTTP backend of one endpoint. With several endpoints (or slots) a failure is routed around
    at once, so the backend retries only once itself."""
    from domain_drafter.llm.http import OpenAICompletionsBackend

    key = os.environ.get(model.api_key_env) if model.api_key_env else None
    return OpenAICompletionsBackend(url, api_key=key, prompt_format=model.prompt_format,
                                    timeout_s=model.timeout_s, retries=1 if many else None)


def slot_label(model: ModelSpec, endpoint: Endpoint, slot: int) -> str:
    """An endpoint slot's name in messages: the URL, with the slot's number when the endpoint has several."""
    return endpoint.url if model.parallel == 1 else f"{endpoint.url} #{slot}"


def answered_by(endpoint: Endpoint, request: Callable[[], Drafted]) -> Drafted:
    """`request()`'s answer, recorded as the endpoint's; a model error is the endpoint's failure."""
    try:
        drafted = request()
    except ModelError as exc:
        raise EndpointFailed(endpoint, exc) from exc
    endpoint.succeeded()
    return drafted.with_generator(endpoint.url)


class EndpointGenerator:
    """One request slot of an endpoint, in a thread of this process (generating is waiting on the server)."""

    def __init__(self, spec: ExperimentSpec, model: ModelSpec, endpoint: Endpoint, slot: int, many: bool):
        self.endpoint = endpoint
        self.label = slot_label(model, endpoint, slot)
        self._drafter = TaskDrafter(spec, model)
        self._backend = endpoint_backend(model, endpoint.url, many)

    def draft(self, row: dict, task: TaskState | None = None) -> Drafted:
        return answered_by(self.endpoint, lambda: self._drafter.draft(row, self._backend, task))

    def close(self) -> None:
        self._drafter.close()
        self._backend.close()


_worker_drafters: dict[tuple, tuple[Any, Any]] = {}


def draft_on_worker(spec: ExperimentSpec, model: ModelSpec, url: str, row: dict) -> Drafted:
    """A Dask job: draft one row against `url` on the worker (its drafter and backend are kept per worker)."""
    ident = (spec.fingerprint, model.name, url)
    if ident not in _worker_drafters:
        _worker_drafters[ident] = (TaskDrafter(spec, model), endpoint_backend(model, url, many=True))
    drafter, backend = _worker_drafters[ident]
    drafted = drafter.draft(row, backend)
    return Drafted(drafted.key, drafted.answer, drafted.prompt, {**drafted.generation, "worker_pid": os.getpid()},
                   drafted.evaluation)


class DaskGenerator:
    """One request slot of an endpoint whose requests (and the strategy's judging) run on a Dask worker."""

    def __init__(self, executor, spec: ExperimentSpec, model: ModelSpec, endpoint: Endpoint, slot: int):
        self.executor, self.spec, self.model, self.endpoint = executor, spec, model, endpoint
        self.label = slot_label(model, endpoint, slot)

    def draft(self, row: dict, task: TaskState | None = None) -> Drafted:
        future = self.executor.submit(draft_on_worker, self.spec, self.model, self.endpoint.url, row)
        while not future.done():
            if task is not None and task.wait(POLL_S):
                future.cancel()
                raise Cancelled()
        return answered_by(self.endpoint, future.result)

    def close(self) -> None:
        pass
