"""The engine and the CLI never import Qt: only domain_drafter.gui does."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import domain_drafter

HEADLESS = ("core", "planning", "llm", "drafting", "bench", "cli", "cli/commands")


def headless_modules() -> list[str]:
    root = Path(domain_drafter.__file__).parent
    names = ["domain_drafter", "domain_drafter.presentation", "domain_drafter.selftest"]
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
    offenders += [str(root / "presentation.py")] if "PySide6" in (root / "presentation.py").read_text() else []
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
    """import-linter's contracts ([tool.importlinter] in pyproject.toml): the engine never imports a front
    end or Qt, the desktop app and the command line never import each other, the engine's layers point down."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=root, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "3 kept, 0 broken" in done.stdout


def test_ruff_finds_nothing():
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([_tool("ruff"), "check", "--no-cache", "app", "tests"], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
