"""`domain-drafter mcp`: the warm engine's tools, the bundled domains and an authoring prompt over MCP (stdio).

Each tool's work goes through `runner.ToolRunner`: a quick call on the event loop's thread, a long one in a worker
thread, where a client's cancel sets the call's TaskState (the engine then kills its planner process group and the
model stops at its next token) and the call returns at once. Every failure, bugs included, comes back as a tool
error with structured content, never a server crash.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources import FunctionResource
from mcp_types import CallToolResult

from domain_drafter import __version__
from domain_drafter.agents import plans
from domain_drafter.agents.drafting import Models, draft
from domain_drafter.agents.engine import WarmEngine
from domain_drafter.agents.guide import AUTHORING_GUIDE, INSTRUCTIONS
from domain_drafter.agents.runner import ToolRunner


def _args(**kwargs: Any) -> dict:
    return {k: v for k, v in kwargs.items() if v is not None}


def build_server(engine: WarmEngine | None = None) -> MCPServer:
    """The MCP server over one warm engine (made here unless given)."""
    engine = engine or WarmEngine()
    models = Models()
    run = ToolRunner(engine)
    server = MCPServer("domain-drafter", version=__version__, instructions=INSTRUCTIONS)
    D = "a bundled domain name (see list_domains) or a folder holding domain.pddl and problems/"

    @server.tool(description="The bundled domains: their actions, problems and whether they have tests.")
    async def list_domains() -> CallToolResult:
        return await run("list_domains", lambda t: engine.list_domains(), quick=True)

    @server.tool(description="A domain's predicates with their NL templates, its actions with their descriptions "
                             "and PDDL, its problems. " + D + "; or domain_text (+ problems, descriptions_text).")
    async def describe_domain(domain: str | None = None, domain_text: str | None = None,
                              problems: dict[str, str] | None = None,
                              descriptions_text: str | None = None) -> CallToolResult:
        a = _args(domain=domain, domain_text=domain_text, problems=problems, descriptions_text=descriptions_text)
        return await run("describe_domain", lambda t: engine.describe_domain(a), quick=True)

    @server.tool(description="Syntax and semantic checks of one action's PDDL (answer) against the domain: the "
                             "class, each finding with its span and line:column, and the ARE against the reference.")
    async def check_action(action: str, answer: str, domain: str | None = None, domain_text: str | None = None,
                           problems: dict[str, str] | None = None) -> CallToolResult:
        a = _args(action=action, answer=answer, domain=domain, domain_text=domain_text, problems=problems)
        return await run("check_action", lambda t: engine.check_action(a), quick=True)

    @server.tool(description="The full verdict of one action's PDDL (answer): checks, ARE, and equivalence with "
                             "the domain's action ('proven': the state-space proof with a counterexample problem "
                             "when they differ; 'paper': the K* top-k heuristic), with the score.")
    async def evaluate_action(action: str, answer: str, domain: str | None = None, domain_text: str | None = None,
                              problems: dict[str, str] | None = None, equivalence: str | None = None,
                              ctx: Context | None = None) -> CallToolResult:
        a = _args(action=action, answer=answer, domain=domain, domain_text=domain_text, problems=problems,
                  equivalence=equivalence)
        # warm (the reference explored): the loop's thread first; K* (paper) runs in a thread from the start
        warm = equivalence != "paper" and (lambda: engine.explored(a))
        return await run("evaluate_action", lambda t: engine.evaluate_action(a, t), ctx, quick=warm)

    @server.tool(description="Prove the domain's tests.toml (or tests_text) case by case: pass, fail or unproven, "
                             "with evidence; cases picks some; fix=true suggests the smallest action edits.")
    async def run_tests(domain: str | None = None, domain_text: str | None = None,
                        problems: dict[str, str] | None = None, tests_text: str | None = None,
                        cases: list[str] | None = None, fix: bool = False,
                        ctx: Context | None = None) -> CallToolResult:
        a = _args(domain=domain, domain_text=domain_text, problems=problems, tests_text=tests_text, cases=cases,
                  fix=fix)
        return await run("run_tests", lambda t: engine.run_tests(a, t), ctx)

    @server.tool(description="Validate a plan (one '(action args)' per line) on a problem (a name of the domain's "
                             "problems, or problem_text): valid, or the failing step and the unsatisfied "
                             "precondition or goal.")
    async def validate_plan(plan: str, domain: str | None = None, domain_text: str | None = None,
                            problems: dict[str, str] | None = None, problem: str | None = None,
                            problem_text: str | None = None) -> CallToolResult:
        a = _args(plan=plan, domain=domain, domain_text=domain_text, problems=problems, problem=problem,
                  problem_text=problem_text)
        return await run("validate_plan", lambda t: plans.validate_plan(engine, a), quick=True)

    @server.tool(description="Is one ground action (step, e.g. '(pick-up a)') applicable in a state (PDDL atoms; "
                             "default the problem's initial state), and what is the successor state.")
    async def applicable(step: str, domain: str | None = None, domain_text: str | None = None,
                         problems: dict[str, str] | None = None, problem: str | None = None,
                         problem_text: str | None = None, state: str | None = None) -> CallToolResult:
        a = _args(step=step, domain=domain, domain_text=domain_text, problems=problems, problem=problem,
                  problem_text=problem_text, state=state)
        return await run("applicable", lambda t: plans.applicable(engine, a), quick=True)

    @server.tool(description="Plans for a problem from K*: the k cheapest (k=1: one optimal plan).")
    async def plan(domain: str | None = None, domain_text: str | None = None, problems: dict[str, str] | None = None,
                   problem: str | None = None, problem_text: str | None = None, k: int = 1,
                   time_limit: float | None = None, ctx: Context | None = None) -> CallToolResult:
        a = _args(domain=domain, domain_text=domain_text, problems=problems, problem=problem,
                  problem_text=problem_text, k=k, time_limit=time_limit)
        return await run("plan", lambda t: plans.plan(engine, a, t), ctx)

    @server.tool(description="Whole-domain equivalence of a candidate domain (candidate: a folder or domain.pddl; or "
                             "candidate_text) with the reference domain, on the reference's problems.")
    async def compare_domains(domain: str | None = None, domain_text: str | None = None,
                              problems: dict[str, str] | None = None, candidate: str | None = None,
                              candidate_text: str | None = None, ctx: Context | None = None) -> CallToolResult:
        a = _args(domain=domain, domain_text=domain_text, problems=problems, candidate=candidate,
                  candidate_text=candidate_text)
        return await run("compare_domains", lambda t: engine.compare_domains(a, t), ctx)

    @server.tool(description="The paper's prompt for one action (description class base/flipped/random, seed, "
                             "number of examples).")
    async def prompt(action: str, domain: str | None = None, domain_text: str | None = None,
                     problems: dict[str, str] | None = None, descriptions_text: str | None = None,
                     description_class: str | None = None, seed: int | None = None,
                     examples: int | None = None) -> CallToolResult:
        a = _args(action=action, domain=domain, domain_text=domain_text, problems=problems,
                  descriptions_text=descriptions_text, description_class=description_class, seed=seed,
                  examples=examples)
        return await run("prompt", lambda t: engine.prompt(a), quick=True)

    @server.tool(description="Let a model write the action: a local GGUF (model: 'default' or a path) or an "
                             "OpenAI-compatible endpoint; searches until an answer is proven or the budget of "
                             "model calls is spent. Sends progress; a cancel stops it at once.")
    async def draft_action(action: str, domain: str | None = None, domain_text: str | None = None,
                           problems: dict[str, str] | None = None, descriptions_text: str | None = None,
                           model: str | None = None, endpoint: str | None = None, budget: int = 4,
                           grammar: bool = False, seed: int = 0, max_tokens: int | None = None,
                           time_limit: float | None = None, n_ctx: int | None = None,
                           description_class: str | None = None, ctx: Context | None = None) -> CallToolResult:
        a = _args(action=action, domain=domain, domain_text=domain_text, problems=problems,
                  descriptions_text=descriptions_text, model=model, endpoint=endpoint, budget=budget,
                  grammar=grammar, seed=seed, max_tokens=max_tokens, time_limit=time_limit, n_ctx=n_ctx,
                  description_class=description_class)
        return await run("draft_action", lambda t: draft(engine, models, a, t.report, t), ctx)

    _add_resources(server)

    @server.prompt(name="write-and-prove-an-action",
                   description="How to write one PDDL action with these tools and prove it right.")
    def write_and_prove(domain: str = "blocksworld", action: str = "stack") -> str:
        return AUTHORING_GUIDE.format(domain=domain, action=action)

    server.engine = engine          # for in-process callers (the benchmark's baseline)
    server.models = models
    server.tool_runner = run
    return server


def _add_resources(server: MCPServer) -> None:
    from domain_drafter.core.bundle import bundled_names, bundled_root

    root = bundled_root()
    for name in bundled_names():
        folder = root / name
        files = [folder / "domain.pddl", *sorted((folder / "problems").glob("*.pddl"))]
        files += [p for p in (folder / "descriptions.toml", folder / "tests.toml") if p.is_file()]
        for path in files:
            rel = path.relative_to(folder).as_posix()
            mime = "text/x-pddl" if path.suffix == ".pddl" else "application/toml"
            server.add_resource(FunctionResource.from_function(
                lambda path=path: path.read_text(encoding="utf-8"), uri=f"domain-drafter://domains/{name}/{rel}",
                name=f"{name}/{rel}", description=f"bundled domain {name}: {rel} (read only)", mime_type=mime))


async def _run_stdio(server: MCPServer) -> None:
    """The SDK's server on event-loop pipes where stdin and stdout are pipes (agents/transport.py), else on the
    SDK's own stdio transport."""
    from domain_drafter.agents.transport import pipe_stdio

    async with pipe_stdio() as streams:
        if streams is None:
            await server.run_stdio_async()
            return
        low = server._lowlevel_server   # what run_stdio_async runs, on our streams
        await low.run(*streams, low.create_initialization_options())


def _return_big_blocks_to_the_system() -> None:
    """glibc serves a block from its heap once a block that size was freed, so every 10 MB argument would leave
    its copies in the heap for good; a fixed mmap threshold gives each big block back when the call ends."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 4 << 20)   # M_MMAP_THRESHOLD: 4 MiB, and no dynamic raise
    except (OSError, AttributeError):
        pass                         # not glibc: its allocator's default stands


def serve() -> int:
    """Run the server on stdin/stdout until the client closes it."""
    _return_big_blocks_to_the_system()
    engine = WarmEngine()
    server = build_server(engine)
    try:
        anyio.run(_run_stdio, server)
    finally:
        server.tool_runner.pool.shutdown(wait=False, cancel_futures=True)
        server.models.close()
        engine.close()
    return 0
