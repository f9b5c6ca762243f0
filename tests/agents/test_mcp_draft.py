"""draft_action on the tiny test GGUF through the real client: progress notifications arrive, and a cancel in
the middle of a generation stops the server's work within a second, leaves no child process, and the next
calls work."""

from __future__ import annotations

import time

import anyio
from mcp_client import cpu_seconds, descendants, mcp_session, server_pid


def test_draft_action_reports_progress_and_a_cancel_stops_it_at_once(cache, tiny_model):
    model = {"domain": "gripper", "action": "drop", "model": str(tiny_model), "n_ctx": 4096}

    async def body() -> None:
        async with mcp_session(cache) as s:
            notes: list[tuple[float, float | None, str | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                notes.append((progress, total, message))

            first = await s.call_tool("draft_action", {**model, "budget": 2, "max_tokens": 32},
                                      progress_callback=on_progress)
            assert not first.is_error, first.content[0].text
            assert first.structured_content["calls"] == 2
            assert notes[0][1] == 2 and any(p == 2 for p, _, _ in notes), notes
            assert any("call 1/2" in (m or "") for _, _, m in notes)

            # a long search (64 calls of up to 4,000 tokens): cancelled once its first model call is under way
            started = anyio.Event()
            notes.clear()

            async def on_long_progress(progress: float, total: float | None, message: str | None) -> None:
                started.set()   # the search has begun: its first model call follows at once

            async def long_draft() -> None:
                await s.call_tool("draft_action", {**model, "budget": 64, "max_tokens": 4000},
                                  progress_callback=on_long_progress)
                raise AssertionError("the search finished before it was cancelled")

            pid = server_pid()
            async with anyio.create_task_group() as group:
                group.start_soon(long_draft)
                with anyio.fail_after(60):
                    await started.wait()
                before = cpu_seconds(pid)
                # wait until the server has worked 0.05 s of CPU (0.5 s on an idle machine; longer where other
                # work shares the cores), well inside the first generation (up to 4,000 tokens)
                with anyio.move_on_after(20):
                    while cpu_seconds(pid) - before <= 0.05:
                        await anyio.sleep(0.1)
                assert cpu_seconds(pid) - before > 0.05, "the model was not generating when the cancel came"

                group.cancel_scope.cancel()
            cancelled_at = time.perf_counter()
            await anyio.sleep(1.0)
            after_1s = cpu_seconds(pid)
            await anyio.sleep(0.5)
            assert cpu_seconds(pid) - after_1s < 0.05, "the server still works 1 s after the cancel"
            assert descendants(pid) == [], "a planner or model process outlived the cancel"

            t = time.perf_counter()
            listed = await s.call_tool("list_domains", {})
            assert not listed.is_error and time.perf_counter() - t < 1.0
            again = await s.call_tool("draft_action", {**model, "budget": 1, "max_tokens": 16})
            assert not again.is_error and again.structured_content["calls"] == 1
            assert time.perf_counter() - cancelled_at < 30

    anyio.run(body)
