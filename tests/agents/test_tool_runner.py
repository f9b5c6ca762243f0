"""The tool runner: a quick call runs on the event loop's thread; one that runs over QUICK_S stops at its next
cancel point and runs again, whole, in a worker thread, its progress from that run only."""

from __future__ import annotations

import threading
import time

import anyio
import pytest

from domain_drafter.agents.engine import WarmEngine
from domain_drafter.agents.runner import QUICK_S, ToolRunner


@pytest.fixture
def runner(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    engine = WarmEngine()
    yield ToolRunner(engine)
    engine.close()


def test_a_quick_call_stays_on_the_loop_and_a_long_one_runs_again_in_a_thread(runner):
    runs: list[tuple[str, bool]] = []   # (thread, finished) per run

    def work_of(seconds: float):
        def work(task):
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                task.check_cancelled()
                task.report(1, 2, "half way")
                time.sleep(0.005)
            runs.append((threading.current_thread().name, True))
            return {"slept": seconds}, "done"
        return work

    async def body() -> None:
        loop_thread = threading.current_thread().name
        quick = await runner("evaluate_action", work_of(0.001), quick=True)
        assert quick.structured_content == {"slept": 0.001} and runs == [(loop_thread, True)]
        runs.clear()
        start = time.perf_counter()
        long = await runner("evaluate_action", work_of(4 * QUICK_S), quick=True)
        assert long.structured_content == {"slept": 4 * QUICK_S} and not long.is_error
        assert len(runs) == 1 and runs[0][0].startswith("mcp-tool")   # the loop's try stopped; the thread's ran
        assert time.perf_counter() - start < 4 * QUICK_S + 2.0
        asked = []
        await runner("check_action", lambda t: (asked.append(threading.current_thread().name), ({}, ""))[1],
                     quick=lambda: False)
        assert asked[0].startswith("mcp-tool")   # the predicate said no: a thread from the start

    anyio.run(body)


def test_an_error_on_the_loop_is_a_structured_tool_error(runner):
    def work(task):
        raise ValueError("boom")

    async def body() -> None:
        out = await runner("check_action", work, quick=True)
        assert out.is_error and out.structured_content["error"]["kind"] == "internal"
        assert "boom" in out.structured_content["error"]["what"]

    anyio.run(body)
