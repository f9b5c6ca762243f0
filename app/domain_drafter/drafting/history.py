"""The records a working copy keeps per action (attempts, new-action specs) and how its history file is read."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from domain_drafter.core.errors import DomainError, SourceLocation
from domain_drafter.core.model import ActionSchema, TypedName

HISTORY_FILE = "history.json"
FORMAT = 1


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Attempt:
    """One answer for an action: its text, where it came from, when, and its verdict."""

    number: int
    text: str
    source: str                          # "model" or "hand"
    time: str
    subclass: str | None = None          # the paper's subclass name, None before it was judged
    message: str = ""
    model: str | None = None
    options: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Attempt:
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


@dataclass(frozen=True)
class NewActionSpec:
    """An action the reference does not have: its signature and what it does, in words."""

    name: str
    parameters: tuple[TypedName, ...]
    summary: str
    conditions: str = ""
    effects: str = ""

    @property
    def placeholder(self) -> ActionSchema:
        """The action with no conditions or effects: what a prompt needs of it."""
        return ActionSchema(self.name, self.parameters)

    def to_dict(self) -> dict:
        return {"name": self.name, "parameters": [[p.name, p.type] for p in self.parameters],
                "summary": self.summary, "conditions": self.conditions, "effects": self.effects}

    @classmethod
    def from_dict(cls, data: dict) -> NewActionSpec:
        return cls(data["name"], tuple(TypedName(n, t) for n, t in data["parameters"]), data["summary"],
                   data.get("conditions", ""), data.get("effects", ""))


@dataclass
class ActionEntry:
    """What the working copy knows about one action."""

    name: str
    reference: ActionSchema | None            # None for a new action
    attempts: list[Attempt] = field(default_factory=list)
    accepted: str | None = None               # the accepted action's PDDL text
    accepted_from: int | None = None          # the attempt it came from
    new: NewActionSpec | None = None
    scratch: str | None = None                # text being edited, not yet an attempt (autosaved)

    @property
    def state(self) -> str:
        """"accepted", "drafted" (attempts, none accepted), "reference" or "new" (nothing yet)."""
        if self.accepted is not None:
            return "accepted"
        if self.attempts:
            return "drafted"
        return "new" if self.reference is None else "reference"


def read_history(path: Path) -> dict:
    """The JSON of a history file; DomainError with line and column if it is damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DomainError(f"not valid JSON: {exc.msg}", where=SourceLocation(path, exc.lineno, exc.colno)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DomainError(f"cannot read: {exc}", where=path) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DomainError(f"not a working-copy history of format {FORMAT}", where=path)
    return data
