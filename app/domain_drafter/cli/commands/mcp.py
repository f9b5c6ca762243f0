"""`mcp`: serve the proof engine to coding agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse


def cmd_mcp(args: argparse.Namespace) -> int:
    from domain_drafter.agents.server import serve

    return serve()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the tools (check, evaluate, test, validate, plan, draft) to a coding agent "
                                   "over MCP on stdin/stdout")
    p.set_defaults(func=cmd_mcp)
