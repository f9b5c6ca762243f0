"""Plan text: one `(action arg ...)` per step, as planners write plan files and as tests files hold plans."""

from __future__ import annotations

import re
from pathlib import Path

from domain_drafter.core.errors import PddlSyntaxError, SourceLocation

Step = tuple[str, ...]          # ("stack", "a", "b")

_STEP = re.compile(r"\(([^()]*)\)")


def read_plan(text: str, path: Path | None = None) -> tuple[Step, ...]:
    """Read a plan file: one `(action args...)` per step; `;` comments and `0:`/`[1]` decorations are ignored."""
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split(";", 1)[0]
        found = list(_STEP.finditer(body))
        # blank out steps and decorations keeping positions, so the error points at what is left
        rest = _STEP.sub(lambda m: " " * len(m.group()), body)
        rest = re.sub(r"^\s*\d+(\.\d+)?\s*:|\[\s*\d+(\.\d+)?\s*\]", lambda m: " " * len(m.group()), rest)
        if rest.strip() or body.count("(") != len(found) or body.count(")") != len(found):
            column = len(rest) - len(rest.lstrip()) + 1
            raise PddlSyntaxError("not a plan step; expected '(action arg ...)'",
                                  where=SourceLocation(path, number, column))
        for m in found:
            words = m.group(1).split()
            if not words:
                raise PddlSyntaxError("empty plan step '()'", where=SourceLocation(path, number, m.start() + 1))
            steps.append(tuple(w.lower() for w in words))
    return tuple(steps)
