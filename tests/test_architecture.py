"""The engine and the CLI never import Qt: only domain_drafter.gui does. No import cycles and no import up a
layer, counting every import in a file (inside functions and under TYPE_CHECKING too)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import domain_drafter

HEADLESS = ("core", "planning", "llm", "text", "drafting", "bench", "cli", "cli/commands")


def headless_modules() -> list[str]:
    root = Path(domain_drafter.__file__).parent
    names = ["domain_drafter", "domain_drafter.selftest"]
    for package in HEADLESS:
        dotted = package.replace("/", ".")
        names.append(f"domain_drafter.{dotted}")
        names += [f"domain_drafter.{dotted}.{m.name}" for m in pkgutil.iter_modules([str(root / package)])
                  if m.name != "__main__"]
    return names


def test_engine_and_cli_import_without_qt():
    modules = headless_modules()
    assert len(modules) > 20
    probe = ("import importlib, sys\n"
             f"for name in {modules!r}: importlib.import_module(name)\n"
             "qt = sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6')))\n"
             "print(','.join(qt))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"Qt imported by the headless engine: {done.stdout}"


def test_no_headless_source_file_mentions_pyside():
    root = Path(domain_drafter.__file__).parent
    offenders = [str(p) for package in HEADLESS for p in (root / package).rglob("*.py")
                 if "PySide6" in p.read_text(encoding="utf-8")]
    assert offenders == []


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports (absolute names; relative imports resolved)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = ".".join(["domain_drafter", path.parent.name][: 3 - node.level])
                found.add(f"{package}.{node.module}" if node.module else package)
            elif node.module:
                found.add(node.module)
    return found


def test_llm_does_not_import_planning_or_drafting():
    root = Path(domain_drafter.__file__).parent
    offenders = {str(p.relative_to(root)): sorted(m for m in imported_modules(p)
                                                  if m.startswith(("domain_drafter.planning", "domain_drafter.drafting")))
                 for p in (root / "llm").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
    probe = ("import importlib, pkgutil, sys\n"
             "import domain_drafter.llm as llm\n"
             "for m in pkgutil.iter_modules(llm.__path__): importlib.import_module('domain_drafter.llm.' + m.name)\n"
             "print(','.join(sorted(m for m in sys.modules if m.startswith(('domain_drafter.planning', "
             "'domain_drafter.drafting')))))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_core_does_not_import_planning_llm_or_drafting():
    root = Path(domain_drafter.__file__).parent
    upward = ("domain_drafter.planning", "domain_drafter.llm", "domain_drafter.drafting", "domain_drafter.bench")
    offenders = {str(p.relative_to(root)): sorted(m for m in imported_modules(p) if m.startswith(upward))
                 for p in (root / "core").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def _tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    assert path.is_file(), f"{name} is missing: it is in the test extras (`make setup` installs it)"
    return str(path)


def test_the_layer_contracts_in_pyproject_hold():
    """import-linter's contracts ([tool.importlinter] in pyproject.toml), type-checking imports included: the
    engine never imports a front end or Qt, the desktop app and the command line never import each other, the
    engine's layers and the desktop app's layers point down, and no package's children import in a cycle; the MCP
    server (agents/) is a front end the engine never imports, and it and the desktop app never import each other."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=root, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "7 kept, 0 broken" in done.stdout


def test_ruff_finds_nothing():
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([_tool("ruff"), "check", "--no-cache", "app", "tests"], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


# --- the import graph, type-checking imports included ---------------------------------------------
ROOT = Path(domain_drafter.__file__).parent

# Each container's layers, top first; the packages (or modules) of one layer never import each other,
# and nothing imports a layer above its own. A child of a container left out of its list is a mistake.
LAYERS: dict[str, list[tuple[str, ...]]] = {
    "domain_drafter": [("gui", "cli"), ("agents",), ("selftest", "bench"), ("drafting",), ("text",),
                       ("planning", "llm"), ("core",)],
    "domain_drafter.gui": [("app",), ("startup",), ("main",), ("dialogs", "authoring"), ("panels",), ("editor",),
                           ("state", "look")],
}


def _source_modules() -> dict[str, Path]:
    modules = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def import_graph() -> dict[str, set[str]]:
    """Each module of domain_drafter -> the modules of domain_drafter it imports anywhere in its file: at the
    top, inside functions, and under `if TYPE_CHECKING:` (an annotation is a dependency too)."""
    import ast

    modules = _source_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:   # a name inside a module: that module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def _child(container: str, module: str) -> str | None:
    """The child of `container` that `module` lives in (None if it is outside, or the container itself)."""
    prefix = container + "."
    return module[len(prefix):].split(".")[0] if module.startswith(prefix) else None


def test_the_import_graph_sees_type_checking_and_function_level_imports():
    graph = import_graph()
    assert "domain_drafter.gui.main.window" in graph["domain_drafter.gui.app"]   # inside main()
    assert "domain_drafter.core.errors" in graph["domain_drafter.llm.models"]
    assert len(graph) > 150


def test_no_import_cycle_between_modules():
    import networkx as nx

    graph = nx.DiGraph([(a, b) for a, targets in import_graph().items() for b in targets])
    cycles = sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)
    assert cycles == []


def test_no_import_cycle_between_sibling_packages():
    """Children of one package (sub-packages and modules) import each other in one direction only, counting
    every import of a module inside them (what import-linter's acyclic_siblings checks, with annotations)."""
    import networkx as nx

    graph = import_graph()
    packages = {m for m, p in _source_modules().items() if p.name == "__init__.py"}
    found = {}
    for package in sorted(packages):
        edges = {(_child(package, a), _child(package, b)) for a, targets in graph.items() for b in targets}
        siblings = nx.DiGraph([(a, b) for a, b in edges if a and b and a != b])
        cycles = sorted(sorted(c) for c in nx.strongly_connected_components(siblings) if len(c) > 1)
        if cycles:
            found[package] = cycles
    assert found == {}


def test_no_import_runs_up_a_layer_or_across_one():
    graph = import_graph()
    offenders = []
    for container, layers in LAYERS.items():
        level = {child: i for i, layer in enumerate(layers) for child in layer}
        children = {_child(container, m) for m in graph} - {None}
        assert children <= set(level), f"{container}: children missing from LAYERS: {sorted(children - set(level))}"
        for importer, targets in graph.items():
            for imported in targets:
                a, b = _child(container, importer), _child(container, imported)
                if a and b and a != b and level[a] >= level[b]:
                    offenders.append(f"{importer} -> {imported}")
    assert offenders == []


# --- one engine (issue 39): one loop asks the model, one door compares whole domains ----------------------
def _calls(path: Path) -> list[tuple[str, int]]:
    """(called name, line) of every call in `path`: `f(...)` as f, `x.f(...)` as f."""
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            out.append((name, node.lineno))
    return out


def test_the_drafting_layer_asks_the_model_only_in_the_search():
    asking = {"generate", "generate_batch", "generate_candidates"}
    found = sorted(f"{path.relative_to(ROOT)}:{line} {name}" for path in (ROOT / "drafting").rglob("*.py")
                   for name, line in _calls(path) if name in asking)
    assert found and all(f.startswith("drafting/search.py:") for f in found), found


def test_whole_domains_are_compared_only_through_the_evaluator():
    """Every front end (the app, the CLI, the MCP tools, the drafting of a whole domain) gets the Evaluator's
    options: `Evaluator.compare` is the one caller of `compare_domains`."""
    import ast

    found = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "domain_drafter.planning.domain_compare" and \
                    any(alias.name == "compare_domains" for alias in node.names):
                found.append(str(path.relative_to(ROOT)))
    assert found == ["planning/evaluate.py"]
