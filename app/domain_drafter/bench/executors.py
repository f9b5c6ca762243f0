"""Where evaluation runs: a local pool of worker processes, or a Dask distributed cluster.

Both are `concurrent.futures.Executor`s, so the runner has one code path. Local workers are
started with 'spawn': the parent may hold a loaded llama.cpp model and its threads (or Qt),
which a forked child must not inherit. A local worker ends itself when its parent is gone (a run
killed with SIGKILL, or by anything that gives it no time to shut the pool down): measured before,
the idle workers stayed forever, adopted by init.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor

from domain_drafter.core.errors import UsageError

DASK_PREFIX = "dask://"


PARENT_CHECK_S = 1.0


def _exit_with_parent(parent: int) -> None:
    """Pool worker initializer: a daemon thread that ends this process once `parent` is gone."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def describe(target: str | None, workers: int) -> str:
    return target if target and target != "local" else f"local pool of {workers} worker process(es)"


@contextlib.contextmanager
def open_executor(target: str | None, workers: int) -> Iterator[Executor]:
    """`None`/'local' -> a process pool of `workers`; 'dask://HOST:PORT' -> that Dask scheduler."""
    if not target or target == "local":
        if workers < 1:
            raise UsageError(f"workers must be at least 1, got {workers}")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_exit_with_parent, initargs=(os.getpid(),))
        try:
            yield pool
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return
    if not target.startswith(DASK_PREFIX):
        raise UsageError(f"unknown executor '{target}'", hint="use 'local' or dask://HOST:PORT")
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("the Dask executor needs the 'distributed' package",
                         hint="pip install 'domain-drafter[dask]' (or: pip install 'dask[distributed]')") from None
    address = "tcp://" + target[len(DASK_PREFIX):]
    try:
        client = Client(address, timeout=20)
    except OSError as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}",
                         hint="start one with `dask scheduler` and workers with `dask worker HOST:PORT` "
                              "on machines where domain-drafter (with K*) is installed") from None
    try:
        yield client.get_executor(pure=False)
    finally:
        client.close()
