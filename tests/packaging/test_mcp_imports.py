"""The frozen app's `domain-drafter mcp` has every module the server imports by a computed name.

PyInstaller finds a module when some analysed module imports it by name (an import statement); a module loaded
any other way (importlib.import_module, entry points) must be listed in the spec. This test runs the real server
through the SDK's client, over the calls an agent makes, records the modules it loaded, reads the import
statements of every loaded module (what the analysis reads), and checks that the rest are in the spec's
MCP_DYNAMIC_IMPORTS. Fast: it does not build the bundle (tests/packaging/test_frozen_app.py does).
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import anyio
from mcp_client import server_env

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "domain-drafter.spec"
SITE = Path(sysconfig.get_paths()["purelib"]).resolve()

RECORDING_SERVER = """
import atexit, json, sys
def record():
    files = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())}
    with open(sys.argv[1], "w") as out:
        json.dump(files, out)
atexit.register(record)
from domain_drafter.cli.main import main
sys.exit(main(["mcp"]))
"""


def spec_list(name: str) -> list[str]:
    """A list literal assigned at the spec's top level."""
    for node in ast.parse(SPEC.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no {name} = [...] in {SPEC}")


def imported_by_name(name: str, path: Path) -> set[str]:
    """The modules an import statement of module `name` (at `path`) names, as the analysis resolves them."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def served_modules(tmp_path: Path) -> dict[str, str | None]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    record = tmp_path / "modules.json"
    params = StdioServerParameters(command=sys.executable, args=["-c", RECORDING_SERVER, str(record)],
                                   env=server_env(tmp_path / "cache"))
    answer = "(:action stack :parameters (?x ?y) :precondition (holding ?x) :effect (on ?x ?y))"

    async def body() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()
            await s.list_resources()
            await s.read_resource("domain-drafter://domains/blocksworld/domain.pddl")
            await s.get_prompt("write-and-prove-an-action", {})
            for tool, args in (("list_domains", {}), ("check_action", {"action": "stack", "answer": answer}),
                               ("evaluate_action", {"action": "stack", "answer": answer}),
                               ("validate_plan", {"plan": "(pick-up a)"}),
                               ("applicable", {"step": "(pick-up a)", "state": "(oops"})):
                await s.call_tool(tool, {"domain": "blocksworld", **args})
            await s.call_tool("evaluate_action", {"domain": "blocksworld", "action": "stack", "answer": "x",
                                                  "equivalence": "none"})   # a bad argument: the SDK's error path

    anyio.run(body)
    return json.loads(record.read_text(encoding="utf-8"))


def test_every_module_the_mcp_server_loads_is_imported_by_name_or_listed_in_the_spec(tmp_path):
    loaded = served_modules(tmp_path)
    assert "mcp.server.stdio" in loaded and "domain_drafter.agents.runner" in loaded   # the server did serve
    third_party = {name: Path(file) for name, file in loaded.items()
                   if file and Path(file).resolve().is_relative_to(SITE) and Path(file).suffix == ".py"}
    named: set[str] = set()
    for name, path in third_party.items():
        named |= imported_by_name(name, path)
    for name, file in loaded.items():
        if file and file.endswith(".py") and not Path(file).resolve().is_relative_to(SITE):
            named |= imported_by_name(name, Path(file))   # our modules and the standard library's
    listed = set(spec_list("MCP_DYNAMIC_IMPORTS"))
    # a package is in once one of its modules is: only modules (or packages) named nowhere need the spec's list;
    # what the interpreter's start-up loads (.pth hooks of this venv) is no part of the app
    unnamed = sorted(n for n in third_party if n not in named and n not in listed and n not in at_startup()
                     and not any(m.startswith(n + ".") for m in named | listed))
    assert unnamed == [], f"imported by a computed name, missing from MCP_DYNAMIC_IMPORTS in {SPEC.name}: {unnamed}"
    assert "anyio._backends._asyncio" in loaded and "anyio._backends._asyncio" not in named   # the case it guards
    missing = sorted(m for m in listed if m not in loaded and not _importable(m))
    assert missing == [], f"the spec lists modules that do not exist: {missing}"


@functools.cache
def at_startup() -> set[str]:
    done = subprocess.run([sys.executable, "-c", "import sys; print(*sys.modules)"], capture_output=True, text=True,
                          check=True, timeout=60)
    return set(done.stdout.split())


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
