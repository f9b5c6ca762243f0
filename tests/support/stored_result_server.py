"""An MCP server whose one tool, `evaluate_action`, answers every call with the same stored result: what the SDK
and the server's transport cost per call with no work behind them (the MCP benchmark's floor).

Run as `python stored_result_server.py RESULT.json`, RESULT.json holding [structured content, text]. It serves
on the transport `domain-drafter mcp` serves on (agents/server._run_stdio).
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

from domain_drafter.agents.server import _run_stdio


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        structured, text = json.load(f)
    server = MCPServer("stored-result")

    @server.tool(description="The stored result, whatever the arguments.")
    async def evaluate_action(action: str, answer: str, domain: str | None = None) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)

    anyio.run(_run_stdio, server)


if __name__ == "__main__":
    main(sys.argv[1])
