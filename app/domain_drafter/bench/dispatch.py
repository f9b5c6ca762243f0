"""Hand a model's tasks to its generator slots one at a time; the caller stores every answer.

One thread per slot takes the next task when its slot is free and waits for the answer (a generator
process, an endpoint's request, a Dask job). The answers come back to the calling thread through one
queue, so only the caller touches the results file. A task whose slot fails is handed out again:
- a generator process that dies is restarted once, and its task retried; if it dies again the run stops
  with the reason;
- an endpoint that fails cools down (out of the rotation, then tried again) while the others go on; the
  run stops only when every endpoint has failed `MAX_FAILURES` times in a row;
- a model error (a model that cannot load, an answer that makes the model fail) stops the run.
A stopped run leaves the tasks in flight pending, so `--resume` writes them.
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
from collections.abc import Callable, Sequence

from domain_drafter.bench.drafter import Drafted
from domain_drafter.bench.generators import Endpoint, EndpointFailed, GeneratorDied
from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import Cancelled, TaskState

log = logging.getLogger(__name__)
MAX_FAILURES = 3   # failures in a row of every endpoint at once before the run gives up


class _Tasks:
    """The tasks not yet answered: taken one at a time, given back to the front when a slot fails."""

    def __init__(self, rows: Sequence[dict]):
        self._todo = collections.deque(rows)
        self._in_flight = 0
        self._changed = threading.Condition()

    def take(self, stop: TaskState) -> dict | None:
        """The next task; None when there is none left (and none in flight that could come back) or on stop."""
        with self._changed:
            while not self._todo and self._in_flight and not stop.cancelled:
                self._changed.wait(0.1)
            if stop.cancelled or not self._todo:
                return None
            self._in_flight += 1
            return self._todo.popleft()

    def done(self) -> None:
        with self._changed:
            self._in_flight -= 1
            self._changed.notify_all()

    def give_back(self, row: dict) -> None:
        with self._changed:
            self._in_flight -= 1
            self._todo.appendleft(row)
            self._changed.notify_all()


def draft_in_parallel(generators: Sequence, rows: Sequence[dict], on_drafted: Callable[[Drafted], None], *,
                      task: TaskState | None = None, idle: Callable[[], None] = lambda: None,
                      endpoints: Sequence[Endpoint] = (), on_note: Callable[[str], None] = log.warning,
                      on_progress: Callable[[str], None] = lambda _text: None) -> None:
    """Draft `rows` with `generators` (one thread each), calling `on_drafted` here for every answer, `idle`
    between answers, `on_note` for a slot that failed and was routed around, and `on_progress` with what a
    slot's task is doing (a search's model calls, led by the slot's label). Raises Cancelled when `task`
    is cancelled, ModelError when the run must stop."""
    tasks = _Tasks(rows)
    stop = task.child() if task is not None else TaskState()
    results: queue.Queue = queue.Queue()

    def slot(generator) -> None:
        label = generator.label
        doing = stop.reporting_to(lambda _done, _total, text: results.put(("progress", f"{label}: {text}")))
        while (row := tasks.take(stop)) is not None:
            try:
                drafted = generator.draft(row, doing)
            except Cancelled:
                tasks.give_back(row)
                return
            except GeneratorDied as exc:
                tasks.give_back(row)
                if generator.restarts >= 1:
                    results.put(("fatal", f"{exc}, for the second time (it was restarted once); the run stops"))
                    return
                results.put(("note", f"{exc}: restarted, its task is handed out again"))
                generator.restart()
                continue
            except EndpointFailed as exc:
                tasks.give_back(row)
                wait = exc.endpoint.cool_down(str(exc))
                if endpoints and all(e.failures >= MAX_FAILURES for e in endpoints):
                    results.put(("fatal", "every endpoint failed " + str(MAX_FAILURES) + " times in a row: "
                                 + "; ".join(e.last_error for e in endpoints)))
                    return
                results.put(("note", f"{exc}; out of the rotation for {wait:.0f} s"))
                if stop.wait(wait):
                    return
                continue
            except ModelError as exc:
                tasks.give_back(row)
                results.put(("fatal", exc.message))
                return
            except BaseException as exc:   # a bug in a slot must stop the run, not hang it
                tasks.give_back(row)
                results.put(("fatal", f"{generator.label}: {type(exc).__name__}: {exc}"))
                return
            tasks.done()
            results.put(("done", drafted))

    threads = [threading.Thread(target=slot, args=(g,), name=f"slot {g.label}", daemon=True) for g in generators]
    for thread in threads:
        thread.start()
    fatal: str | None = None
    try:
        while any(t.is_alive() for t in threads) or not results.empty():
            try:
                kind, payload = results.get(timeout=0.25)
            except queue.Empty:
                idle()
                continue
            if kind == "done":
                on_drafted(payload)
                idle()
            elif kind == "note":
                on_note(payload)
            elif kind == "progress":
                on_progress(payload)
            elif kind == "fatal" and fatal is None:
                fatal = payload
                stop.cancel()
    finally:
        stop.cancel()
        for thread in threads:
            thread.join(30)
        for generator in generators:
            generator.close()
    if fatal is not None:
        raise ModelError(fatal)
    if task is not None:
        task.check_cancelled()
