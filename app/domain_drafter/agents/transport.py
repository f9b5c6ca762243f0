"""The MCP server's stdio transport: JSON-RPC messages straight off and onto event-loop pipes.

The SDK's `stdio_server` reads and writes stdio through `anyio.wrap_file`, a worker-thread hop for every line
read and two for every message written; on a busy machine each hop is a wake-up of its own. It also puts a task
between the pipe and the protocol on each side (a reader task that parses each line and hands it over, a writer
task that takes each message and prints it): two more task switches per call, ~0.1 ms of a warm call. Here the
protocol's read stream parses the next line when the SDK asks for it, and its write stream prints a message when
the SDK sends it, on non-blocking pipes the event loop serves. The SDK's protocol code is unchanged: the same
parsing (`jsonrpc_message_adapter`), the same JSON out, lines in the order sent. As the SDK does, the protocol
gets private copies of fds 0 and 1 while fd 0 reads the null device and fd 1 writes to stderr, so nothing a
handler or a child process prints can corrupt the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage

MAX_LINE = 256 * 2**20   # one JSON-RPC message; the tools refuse big texts themselves, with a clear error


class MessageReader(ObjectReceiveStream[SessionMessage | Exception]):
    """The client's messages, one per line of the pipe, parsed as the SDK's stdio reader parses them; a line
    that does not parse is handed on as its exception, as the SDK's reader does."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.closed = False

    async def receive(self) -> SessionMessage | Exception:
        if self.closed:
            raise anyio.ClosedResourceError
        line = await self._line()
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
        except Exception as exc:   # what the SDK's reader passes on: the protocol answers or logs it
            return exc

    async def _line(self) -> str:
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            if not end.partial:
                raise anyio.EndOfStream from None
            line = end.partial
        except asyncio.LimitOverrunError as over:
            await self.reader.readexactly(over.consumed)   # drop the oversized message...
            with contextlib.suppress(asyncio.LimitOverrunError, asyncio.IncompleteReadError):
                await self.reader.readuntil(b"\n")
            return "{oversized message dropped}\n"           # ...as a line that does not parse
        return line.decode("utf-8", errors="replace")

    async def aclose(self) -> None:
        self.closed = True


class MessageWriter(ObjectSendStream[SessionMessage]):
    """Prints each message the SDK sends as one line (the SDK's stdio writer's JSON), whole and in the order
    sent; waits while the pipe is full."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.closed = False

    async def send(self, item: SessionMessage) -> None:
        if self.closed:
            raise anyio.ClosedResourceError
        if self.writer.is_closing():
            raise anyio.BrokenResourceError   # the client closed its end: the SDK drops the message
        line = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        try:
            self.writer.write(line.encode("utf-8"))
            await self.writer.drain()
        except (ConnectionError, OSError) as exc:
            raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        self.closed = True


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


@contextlib.asynccontextmanager
async def pipe_stdio() -> AsyncIterator[tuple[MessageReader, MessageWriter] | None]:
    """The protocol's read and write streams on stdin and stdout, or None when they are not pipes (the SDK's
    own stdio transport then serves)."""
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
        yield MessageReader(reader), MessageWriter(writer)
    finally:
        read_transport.close()
        write_transport.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
