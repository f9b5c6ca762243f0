"""Answers files as JSON Lines: one object per line, read once for `bench import` and `bench rejudge`.

The reader only splits and parses; each caller chooses its policy for a bad line (import
reports it and goes on, re-judging stops at it, since its tasks must match a spec exactly).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.errors import UsageError


@dataclass(frozen=True)
class JsonLine:
    """Line `number` (1-based) of the file: its object, or what is wrong with it."""

    number: int
    record: dict | None
    problem: str | None = None


def read_json_lines(source: Path) -> list[JsonLine]:
    """Every non-blank line of `source`; UsageError (naming the file) if it cannot be read as UTF-8 text."""
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the answers file: {exc.strerror}", where=source) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"the answers file is not UTF-8 text (byte {exc.start})", where=source,
                         hint="give a results .sqlite written by `bench run`, or a JSONL file") from None
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            out.append(JsonLine(number, None, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        if not isinstance(record, dict):
            out.append(JsonLine(number, None, "not a JSON object"))
            continue
        out.append(JsonLine(number, record))
    return out
