"""vscode-pddl's test manifests (`*.ptest.json`) to and from tests-file cases.

A manifest has `defaultDomain`, `defaultProblem` and `cases[]`, each with `label`, `domain`,
`problem`, `options` and `expectedPlans[]` (plan files, relative to the manifest). It says only
"the planner must solve this problem" (no expected plans) or "these plans must work", so:
- import: each expected plan becomes a `plan` case (the plan inline, reaching the goal); a case
  without expected plans becomes a `reachable` case on the problem's goal;
- export: `plan` cases that reach their problem's own goal, and `reachable` cases on the
  problem's own goal; every other case is left out, each with the reason.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.domain_tests import Case, CaseKind, DomainTests
from domain_drafter.core.errors import PddlSyntaxError, SourceLocation, TestsFileError
from domain_drafter.core.paths import atomic_write_bytes
from domain_drafter.core.plan_text import read_plan
from domain_drafter.core.tests_toml import case_toml

PTEST_SUFFIX = ".ptest.json"


@dataclass(frozen=True)
class PtestImport:
    toml: str                                   # the cases as tests-file tables
    cases: tuple[Case, ...]
    notes: tuple[str, ...]                      # what was read differently from the manifest (domains, options)


@dataclass(frozen=True)
class PtestExport:
    path: Path
    written: tuple[str, ...]                    # case names held by the manifest
    skipped: tuple[tuple[str, str], ...]        # (case name, why the format cannot hold it)
    files: tuple[Path, ...]                     # plan and problem files written beside the manifest

    def to_dict(self) -> dict:
        return {"path": str(self.path), "written": list(self.written),
                "skipped": [{"case": n, "reason": r} for n, r in self.skipped], "files": [str(f) for f in self.files]}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-") or "case"


def _fail(path: Path, what: str, line: int | None = None) -> TestsFileError:
    return TestsFileError(what, where=SourceLocation(path, line, 1) if line else path)


def import_ptest(path: Path, folder: Path, problem_files: Sequence) -> PtestImport:
    """The manifest's cases as tests-file cases for the domain in `folder` (whose problems are `problem_files`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(path, f"cannot read the test manifest: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(path, f"not valid JSON: {exc.msg}", exc.lineno) from None
    if not isinstance(data, dict) or not isinstance(data.get("cases", []), list):
        raise _fail(path, "a .ptest.json manifest is an object with a 'cases' list")
    base = path.parent
    by_path = {Path(p.path).resolve(): p for p in problem_files}
    by_text = {p.text.strip(): p for p in problem_files}
    notes: list[str] = []
    cases: list[Case] = []
    problems: list[str] = []
    taken: set[str] = set()
    for number, entry in enumerate(data.get("cases", []), start=1):
        if not isinstance(entry, dict):
            raise _fail(path, f"case {number} is not an object")
        label = str(entry.get("label") or f"case {number}")
        domain = entry.get("domain") or data.get("defaultDomain")
        if domain and (base / domain).resolve() != (folder / "domain.pddl").resolve():
            notes.append(f"case '{label}' names the domain {domain}; it is imported for {folder / 'domain.pddl'}")
        if entry.get("options") or entry.get("preProcess"):
            notes.append(f"case '{label}': planner options and pre-processing are not kept")
        problem = entry.get("problem") or data.get("defaultProblem")
        if not isinstance(problem, str) or not problem:
            raise _fail(path, f"case '{label}' names no problem (and there is no defaultProblem)")
        problem_path = (base / problem).resolve()
        found = by_path.get(problem_path)
        if found is None and problem_path.is_file():
            found = by_text.get(problem_path.read_text(encoding="utf-8").strip())
        if found is not None:
            reference = found.name
        elif problem_path.is_file():
            reference = os.path.relpath(problem_path, folder)
        else:
            raise _fail(path, f"case '{label}': no such problem file {problem}")
        plans = entry.get("expectedPlans") or []
        if not isinstance(plans, list):
            raise _fail(path, f"case '{label}': expectedPlans must be a list of plan files")
        name = _slug(label)
        if not plans:
            cases.append(Case(_unique(name, taken), CaseKind.REACHABLE, reference, formula=None,
                              description=f"imported from {path.name}: the planner must solve {problem}"))
            problems.append(reference)
        for k, plan in enumerate(plans, start=1):
            plan_path = base / str(plan)
            try:
                steps = read_plan(plan_path.read_text(encoding="utf-8"), plan_path)
            except OSError as exc:
                raise _fail(path, f"case '{label}': cannot read the expected plan {plan}: {exc.strerror}") from None
            except PddlSyntaxError as err:
                raise TestsFileError(err.what, where=err.where) from None
            cases.append(Case(_unique(name if len(plans) == 1 else f"{name}-{k}", taken), CaseKind.PLAN, reference,
                              plan=steps, description=f"imported from {path.name}: expected plan {plan}"))
            problems.append(reference)
    toml = "\n".join(case_toml(c, p) for c, p in zip(cases, problems))
    return PtestImport(toml, tuple(cases), tuple(notes))


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 1
    while out in taken:
        n += 1
        out = f"{name}-{n}"
    taken.add(out)
    return out


def _holdable(case: Case, tests: DomainTests) -> str | None:
    """Why the manifest cannot hold the case, or None if it can."""
    problem = tests.problems[case.problem].problem
    if case.kind is CaseKind.PLAN:
        if not case.reaches_goal:
            return "a plan that must not reach the goal (expectedPlans only say which plans must work)"
        if case.formula is not None and tuple(case.formula.literals) != tuple(problem.goal):
            return "a plan checked against a goal of its own, not the problem's"
        return None
    if case.kind is CaseKind.REACHABLE:
        if case.formula is not None and tuple(case.formula.literals) != tuple(problem.goal):
            return "a goal of its own (the manifest can only ask the planner to solve the problem's goal)"
        return None
    return (f"a {case.kind.value} case: vscode-pddl's manifests only check that the planner's plans work, they "
            "cannot say that a plan must fail, that no plan may exist, or what must never hold")


def export_ptest(tests: DomainTests, domain_path: Path, out: Path) -> PtestExport:
    """Write the cases the manifest format can hold to `out`, their plan (and inline problem) files beside it."""
    base = out.parent
    base.mkdir(parents=True, exist_ok=True)
    stem = out.name[:-len(PTEST_SUFFIX)] if out.name.endswith(PTEST_SUFFIX) else out.stem
    written: list[str] = []
    skipped: list[tuple[str, str]] = []
    files: list[Path] = []
    entries = []
    for case in tests.cases:
        why = _holdable(case, tests)
        if why is not None:
            skipped.append((case.name, why))
            continue
        tp = tests.problems[case.problem]
        if tp.path is not None:
            problem_path = tp.path
        else:
            problem_path = base / f"{stem}-{_slug(tp.name.removeprefix('case:'))}.pddl"
            if problem_path not in files:
                atomic_write_bytes(problem_path, tp.text.encode("utf-8"))
                files.append(problem_path)
        entry = {"label": case.name, "problem": os.path.relpath(problem_path, base)}
        if case.description:
            entry["description"] = case.description
        if case.kind is CaseKind.PLAN:
            plan_path = base / f"{stem}-{_slug(case.name)}.plan"
            atomic_write_bytes(plan_path, "".join(f"({' '.join(s)})\n" for s in case.plan).encode("utf-8"))
            files.append(plan_path)
            entry["expectedPlans"] = [os.path.relpath(plan_path, base)]
        entries.append(entry)
        written.append(case.name)
    manifest = {"defaultDomain": os.path.relpath(domain_path, base), "cases": entries}
    atomic_write_bytes(out, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
    return PtestExport(out, tuple(written), tuple(skipped), tuple(files))


__all__ = ["PtestExport", "PtestImport", "export_ptest", "import_ptest"]
