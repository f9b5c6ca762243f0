"""How a tool's work runs in the MCP server: on the event loop's thread while it is quick, else in a worker thread.

Either way its progress reaches the client (when the client asked for it) and every outcome becomes a
CallToolResult: the work's (structured content, text), or a structured tool error (`errors.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

import anyio
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent

from domain_drafter.agents.engine import WarmEngine
from domain_drafter.agents.errors import error_result, error_text
from domain_drafter.core.tasks import TaskState

Work = Callable[[TaskState], tuple[dict, str]]


QUICK_S = 0.05   # how long a call may keep the event loop's thread before it goes to a worker thread


class ToolRunner:
    """Runs one tool's work, forwards its progress, turns every outcome into a result.

    A quick call runs first on the event loop's thread, as the in-process library call runs: each hand-over to a
    worker thread and back costs wake-ups, 2-5 ms on a loaded machine (measured: a warm evaluate_action took 1.3 ms
    of work and 4-5 ms in all through a worker). Its TaskState reads as cancelled once QUICK_S has passed, so a
    call that turns out long stops at its next cancel point, as on a client's cancel; its result and its progress
    are dropped and it runs again in a worker thread (whatever it cached is kept), while the loop serves other
    requests, progress and cancels. Quick are the checks, parses and look-ups, which start no planner or model
    (they run to their end), and a proof on a domain whose reference is explored. The other calls start in a
    worker thread, and the loop waits for it without serving up to QUICK_S: the loop's wake-ups during a warm call
    cost its thread the GIL.
    """

    def __init__(self, engine: WarmEngine) -> None:
        self.engine = engine
        self.pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="mcp-tool")

    async def __call__(self, tool: str, work: Work, ctx: Context | None = None, *,
                       quick: bool | Callable[[], bool] = False) -> CallToolResult:
        """`quick`: whether the call tries the loop's thread first (a callable: asked, on the loop, just before)."""
        if ctx is not None and not _wants_progress(ctx):
            ctx = None   # nobody listens: the engine's reports stay where it runs
        try:
            quick = _asked(quick)
            done = _on_the_loop(work) if quick else None
            if done is None:
                out, text = await self._in_a_thread(work, ctx, wait_first=not quick)
            else:
                (out, text), notes = done
                for note in notes:
                    await _report(ctx, note)
        except Exception as exc:
            exc = _unwrap(exc)
            error = error_result(exc, tool, self.engine.sources.rename)
            return CallToolResult(content=[TextContent(type="text", text=error_text(error))],
                                  structured_content=error, is_error=True)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=out)

    async def _in_a_thread(self, work: Work, ctx: Context | None, wait_first: bool) -> tuple[dict, str]:
        task = TaskState()
        send, receive = anyio.create_memory_object_stream[tuple[int, int, str]](64)
        if ctx is not None:
            task.on_progress = _throttled(_thread_sender(send))

        async def forward() -> None:
            async with receive:
                async for note in receive:
                    if not await _report(ctx, note):
                        return

        try:
            async with anyio.create_task_group() as group:
                if ctx is not None:
                    group.start_soon(forward)
                try:
                    future = self.pool.submit(work, task)
                    if wait_first:
                        wait([future], timeout=QUICK_S)
                    if not future.done():
                        await _finished(future)
                    return future.result()
                finally:
                    send.close()
        except anyio.get_cancelled_exc_class():
            task.cancel()   # the abandoned thread sees it at its next check and stops its planner or model
            raise


class _QuickTask(TaskState):
    """A call's TaskState on the event loop's thread: cancelled once `deadline` (a perf_counter time) passed;
    `overran` says the engine saw it so."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline
        self.overran = False

    @property
    def cancelled(self) -> bool:
        if not self.overran and time.perf_counter() >= self.deadline:
            self.overran = True
        return self.overran

    def wait(self, timeout: float) -> bool:
        time.sleep(max(0.0, min(timeout, self.deadline - time.perf_counter())))
        return self.cancelled


def _on_the_loop(work: Work) -> tuple[tuple[dict, str], list[tuple[int, int, str]]] | None:
    """Run `work` here, within QUICK_S: its result and progress notes, or None when it ran over."""
    task = _QuickTask(time.perf_counter() + QUICK_S)
    notes: list[tuple[int, int, str]] = []
    task.on_progress = _throttled(notes.append)
    try:
        result = work(task)
    except Exception:
        if task.overran:
            return None   # stopped by the deadline (a Cancelled, or what a stopped planner led to)
        raise
    return None if task.overran else (result, notes)


def _asked(quick: bool | Callable[[], bool]) -> bool:
    if not callable(quick):
        return quick
    try:
        return bool(quick())
    except Exception:
        return False   # the call itself, in a thread, says what is wrong


async def _report(ctx: Context | None, note: tuple[int, int, str]) -> bool:
    if ctx is None:
        return False
    try:
        await ctx.report_progress(*note)
    except Exception:
        return False
    return True


PROGRESS_INTERVAL_S = 0.1   # at most ten notes a second on one step; a step done always goes


def _wants_progress(ctx: Context) -> bool:
    meta = getattr(ctx.request_context, "meta", None) or {}
    return meta.get("progress_token", meta.get("progressToken")) is not None


def _throttled(emit: Callable[[tuple[int, int, str]], None]) -> Callable[[int, int, str], None]:
    """A TaskState progress callback that passes on at most one note per PROGRESS_INTERVAL_S on one step."""
    last = [0.0, None]   # when the last note went, and its `done`

    def on_progress(done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if done == last[1] and now - last[0] < PROGRESS_INTERVAL_S:
            return
        last[0], last[1] = now, done
        emit((done, total, message))

    return on_progress


def _thread_sender(send) -> Callable[[tuple[int, int, str]], None]:
    """Hands a worker thread's note to the event loop without waiting for it (a blocking hop per report made the
    engine itself slower in the server than in-process)."""
    import asyncio

    loop = asyncio.get_running_loop()

    def emit(note: tuple[int, int, str]) -> None:
        try:
            loop.call_soon_threadsafe(_offer, send, note)
        except RuntimeError:
            pass   # the loop is closing: the server is on its way out

    return emit


def _offer(send, item) -> None:
    try:
        send.send_nowait(item)
    except Exception:
        pass   # the call is over (cancelled), or the client reads slowly: a progress note is not worth a wait


async def _finished(future: Future) -> None:
    """Wait for `future` on the event loop, serving other requests meanwhile."""
    import asyncio

    loop = asyncio.get_running_loop()
    done = anyio.Event()
    future.add_done_callback(lambda _: loop.call_soon_threadsafe(done.set))
    await done.wait()


def _unwrap(exc: BaseException) -> BaseException:
    while len(getattr(exc, "exceptions", ())) == 1:   # a task group's wrapper (ExceptionGroup from 3.11)
        exc = exc.exceptions[0]
    return exc
