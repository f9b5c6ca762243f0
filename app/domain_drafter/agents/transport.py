"""stdin/stdout for the MCP SDK's stdio_server without a thread per line.

The SDK reads and writes stdio through `anyio.wrap_file`, a worker-thread hop for every line read and two for
every message written; on a busy machine each hop is a wake-up of its own and together they were most of a
warm call's time. Here the event loop reads and writes non-blocking pipes directly. As the SDK does, the
protocol gets private copies of fds 0 and 1 while fd 0 reads the null device and fd 1 writes to stderr, so
nothing a handler or a child process prints can corrupt the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator

MAX_LINE = 256 * 2**20   # one JSON-RPC message; the tools refuse big texts themselves, with a clear error


class LineReader:
    """`async for line in reader`: the lines of a pipe, decoded as the SDK's reader decodes them."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            if not end.partial:
                raise StopAsyncIteration from None
            line = end.partial
        except asyncio.LimitOverrunError as over:
            await self.reader.readexactly(over.consumed)   # drop the oversized message; the SDK reports
            with contextlib.suppress(asyncio.LimitOverrunError, asyncio.IncompleteReadError):
                await self.reader.readuntil(b"\n")
            return "{oversized message dropped}\n"           # ...this unparsable line as an error
        return line.decode("utf-8", errors="replace")


class LineWriter:
    """`await write(text)`, `await flush()` on a pipe."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


@contextlib.asynccontextmanager
async def pipe_stdio() -> AsyncIterator[tuple[LineReader, LineWriter] | None]:
    """The protocol's stdin and stdout as event-loop pipes, or None when they are not pipes (the SDK's own
    streams then serve)."""
    if not (_is_pipe(0) and _is_pipe(1)):
        yield None
        return
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    in_file, out_file = os.fdopen(wire_in, "rb", buffering=0), os.fdopen(wire_out, "wb", buffering=0)
    read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), in_file)
    write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out_file)
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    try:
        yield LineReader(reader), LineWriter(writer)
    finally:
        read_transport.close()
        write_transport.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
