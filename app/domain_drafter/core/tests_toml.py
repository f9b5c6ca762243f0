"""Write cases back as tests-file TOML (for imports, and for new cases the app keeps).

`case_toml(case)` is one `[cases.NAME]` table that `load_tests` reads back to an equal case
(the round trip the tests pin); `append_cases(text, cases)` adds tables to a file's text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from domain_drafter.core.domain_tests import Case, CaseKind

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _steps(steps) -> str:
    return "[" + ", ".join(_string(f"({' '.join(s)})") for s in steps) + "]"


def case_toml(case: Case, problem: str | None = None) -> str:
    """The case as a `[cases.NAME]` table; `problem` overrides the problem reference written."""
    lines = [f"[cases.{toml_key(case.name)}]"]
    if case.description:
        lines.append(f"description = {_string(case.description)}")
    lines.append(f"problem = {_string(problem or case.problem)}")
    lines.append(f"kind = {_string(case.kind.value)}")
    if case.kind in (CaseKind.PLAN, CaseKind.PLAN_FAILS):
        if case.plan_file:
            lines.append(f"plan_file = {_string(case.plan_file)}")
        else:
            lines.append(f"plan = {_steps(case.plan)}")
    if case.kind is CaseKind.PLAN:
        if not case.reaches_goal:
            lines.append("reaches_goal = false")
        if case.formula is not None:
            lines.append(f"goal = {_string(str(case.formula))}")
    if case.kind is CaseKind.PLAN_FAILS:
        if case.at_step is not None:
            lines.append(f"at_step = {case.at_step}")
        if case.precondition is not None:
            lines.append(f"precondition = {_string(str(case.precondition))}")
    if case.kind in (CaseKind.REACHABLE, CaseKind.UNREACHABLE) and case.formula is not None:
        lines.append(f"goal = {_string(str(case.formula))}")
    if case.kind is CaseKind.NEVER and case.formula is not None:
        lines.append(f"state = {_string(str(case.formula))}")
    if case.action is not None:
        if case.plan:
            lines.append(f"after = {_steps(case.plan)}")
        lines.append(f"action = {_string('(' + ' '.join(case.action) + ')')}")
    if case.holds:
        lines.append(f"holds = {_string(' '.join(map(str, case.holds)))}")
    if case.not_holds:
        lines.append(f"not_holds = {_string(' '.join(map(str, case.not_holds)))}")
    return "\n".join(lines) + "\n"


def cases_toml(cases: Iterable[Case]) -> str:
    return "\n".join(case_toml(c) for c in cases)


def append_cases(text: str, cases: Iterable[Case]) -> str:
    """`text` (a tests file) with the cases' tables added at its end."""
    body = text.rstrip("\n")
    added = cases_toml(cases)
    return f"{body}\n\n{added}" if body else added
