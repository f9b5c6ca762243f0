"""What the authoring window's Tests tab runs in workers: plain functions (no Qt), each taking the worker's `task`.

Where the tests file is: core/tests_files.py (beside the domain; for a bundled domain, the user's copy's).
New cases are written as `[cases.NAME]` tables appended to the file's text, checked by the real reader
against the domain before anything is written, and written atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import TESTS_FILE, DomainTests
from domain_drafter.core.errors import TestsFileError
from domain_drafter.core.model import Domain
from domain_drafter.core.tasks import TaskState
from domain_drafter.core.tests_files import append_case_table, read_tests_at
from domain_drafter.core.tests_toml import toml_key
from domain_drafter.planning.domain_tests import TestsReport, run_tests
from domain_drafter.planning.quick_fixes import QuickFixSearch, quick_fixes


@dataclass(frozen=True)
class TestsRun:
    """One run of the tests file on the working domain: the file as read and its report."""

    __test__ = False

    path: Path
    tests: DomainTests
    report: TestsReport
    text: str


def run_tests_job(path: Path, bundle: DomainBundle, domain: Domain, *, task: TaskState) -> TestsRun:
    """Read `path` (TestsFileError at file:line if it is bad or missing) and prove it on `domain`."""
    from domain_drafter.planning.state_cache import StateCache

    if not path.is_file():
        raise TestsFileError(f"no {TESTS_FILE} beside the domain", where=path.parent,
                             hint="add a case (New case…) or write one (see the README's 'Domain tests')")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TestsFileError(f"cannot read the tests file: {exc}", where=path) from None
    tests = read_tests_at(path, text, bundle, domain)
    report = run_tests(domain, tests, states=StateCache(), task=task)
    return TestsRun(path, tests, report, text)


def quick_fix_job(domain: Domain, tests: DomainTests, report: TestsReport, *, task: TaskState) -> QuickFixSearch:
    """The smallest edits of one action after which every case passes (nothing is applied here)."""
    return quick_fixes(domain, tests, report=report, task=task)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def case_table(name: str, kind: str, problem: str, fields: dict[str, object]) -> str:
    """A `[cases.NAME]` table from a form's values: strings as TOML strings, lists of steps as arrays,
    bools and ints as they are; empty values are left out."""
    lines = [f"[cases.{toml_key(name)}]", f"problem = {_string(problem)}", f"kind = {_string(kind)}"]
    for key, value in fields.items():
        if value is None or value == "" or value == [] or value == ():
            continue
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{key} = {value}")
        elif isinstance(value, (list, tuple)):
            lines.append(f"{key} = [" + ", ".join(_string(str(v)) for v in value) + "]")
        else:
            lines.append(f"{key} = {_string(str(value))}")
    return "\n".join(lines) + "\n"


def save_case_job(bundle: DomainBundle, domain: Domain, table: str, *, task: TaskState) -> Path:
    """Append `table` to the writable tests file, once the whole file reads back against `domain`;
    TestsFileError (at the new table's line) and nothing written otherwise."""
    return append_case_table(bundle, domain, table)
