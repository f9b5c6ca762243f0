"""A real `domain-drafter mcp` process, driven by the SDK's own client over stdio, and what a test reads of it
(its pid, its children, its CPU time and resident memory from /proc)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import domain_drafter

APP = Path(domain_drafter.__file__).resolve().parents[1]


def server_env(cache: Path) -> dict[str, str]:
    """The test's own code and a private cache (the verdicts and plans the server keeps)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(APP), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["DOMAIN_DRAFTER_CACHE"] = str(cache)
    return env


@contextlib.asynccontextmanager
async def mcp_session(cache: Path, args: list[str] | None = None) -> AsyncIterator:
    """An initialised ClientSession on a spawned server process: `domain-drafter mcp`, or python with `args`."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=args or ["-m", "domain_drafter.cli", "mcp"],
                                   env=server_env(cache))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def server_pid() -> int:
    """The pid of this test's server process (a child of the test process running `... cli mcp`)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and b"domain_drafter.cli" in cmdline and b"mcp" in cmdline:
            return int(entry.name)
    raise AssertionError("no server process found among this test's children")


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (planners, model servers, helpers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")
