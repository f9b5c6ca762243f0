"""One error hierarchy for the whole engine: each error says what went wrong, where, and what to do."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourceLocation:
    """A place in a text: a file (or None for in-memory text), 1-based line and column, 0-based offset."""

    path: Path | None
    line: int
    column: int
    offset: int = 0

    def __str__(self) -> str:
        where = str(self.path) if self.path is not None else "<text>"
        return f"{where}:{self.line}:{self.column}"

    @classmethod
    def from_offset(cls, text: str, offset: int, path: Path | None = None) -> SourceLocation:
        """Locate a 0-based character offset of `text` as line and column."""
        offset = max(0, min(offset, len(text)))
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return cls(path, line, column, offset)


class DrafterError(Exception):
    """Base of every error the engine raises on purpose.

    `what` says what is wrong, `where` where (a location or a plain string such as a path),
    `hint` what the user can do about it. The CLI maps these to exit codes; the GUI to dialogs.
    """

    exit_code = 1

    def __init__(self, what: str, *, where: SourceLocation | Path | str | None = None, hint: str | None = None):
        self.what = what
        self.where = where
        self.hint = hint
        super().__init__(self.message)

    def __reduce__(self):
        """Pickle with every attribute (a Dask worker's error reaches the caller whole, whatever the subclass's
        own constructor takes)."""
        return (_rebuild_error, (type(self), dict(self.__dict__)))

    @property
    def message(self) -> str:
        text = f"{self.where}: {self.what}" if self.where is not None else self.what
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def _rebuild_error(cls: type[DrafterError], state: dict) -> DrafterError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, error.message)
    return error


class UsageError(DrafterError):
    """The user named something that does not exist (an unknown domain, action, option value)."""

    exit_code = 2


class PddlSyntaxError(DrafterError):
    """A PDDL text (domain, problem, plan) does not parse."""

    exit_code = 3


class DomainError(DrafterError):
    """A domain bundle is incomplete or inconsistent (missing file, undeclared predicate, ...)."""

    exit_code = 3


class PlannerError(DrafterError):
    """The planner is missing, crashed, or answered something we cannot read."""

    exit_code = 4


class ModelError(DrafterError):
    """A language model cannot be loaded or run (missing file, not a GGUF, context too small, ...)."""

    exit_code = 5


class ContextTooSmallError(ModelError):
    """The prompt does not fit the model's context window: fewer examples or a larger context will."""


class TestsFileError(DomainError):
    """A domain's tests file (tests.toml) is malformed or does not fit the domain: file:line and what."""

    __test__ = False   # not a pytest class
