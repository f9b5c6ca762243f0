"""One error hierarchy for the whole engine: each error says what went wrong, where, and what to do."""

from __future__ import annotations

import enum
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


class ErrorKind(str, enum.Enum):
    """What kind of error a result carries: each DrafterError class has one, anything else is INTERNAL."""

    USAGE = "usage"
    SYNTAX = "syntax"
    DOMAIN = "domain"
    PLANNER = "planner"
    MODEL = "model"
    PROOF = "proof"          # the proof produced something it must not: a bug to report
    LIMIT = "limit"          # a bound of the engine was reached (too many groundings, ...)
    OTHER = "other"          # a DrafterError of no finer kind
    INTERNAL = "internal"    # not a DrafterError: a bug
    UNKNOWN = "unknown"      # read from a row written before errors were stored with their kind

    def __str__(self) -> str:
        return self.value


class DrafterError(Exception):
    """Base of every error the engine raises on purpose.

    `what` says what is wrong, `where` where (a location or a plain string such as a path),
    `hint` what the user can do about it. The CLI maps these to exit codes; the GUI to dialogs.
    """

    exit_code = 1
    kind = ErrorKind.OTHER

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
    kind = ErrorKind.USAGE


class PddlSyntaxError(DrafterError):
    """A PDDL text (domain, problem, plan) does not parse."""

    exit_code = 3
    kind = ErrorKind.SYNTAX


class DomainError(DrafterError):
    """A domain bundle is incomplete or inconsistent (missing file, undeclared predicate, ...)."""

    exit_code = 3
    kind = ErrorKind.DOMAIN


class PlannerError(DrafterError):
    """The planner is missing, crashed, or answered something we cannot read."""

    exit_code = 4
    kind = ErrorKind.PLANNER


class ModelError(DrafterError):
    """A language model cannot be loaded or run (missing file, not a GGUF, context too small, ...)."""

    exit_code = 5
    kind = ErrorKind.MODEL


class ContextTooSmallError(ModelError):
    """The prompt does not fit the model's context window: fewer examples or a larger context will."""


class TestsFileError(DomainError):
    """A domain's tests file (tests.toml) is malformed or does not fit the domain: file:line and what."""

    __test__ = False   # not a pytest class


@dataclass(frozen=True)
class ErrorRecord:
    """An error kept as data in a result (a verdict that could not be given): its kind, the sentence the user
    reads, and where it happened when that is known (a problem's name, a file:line)."""

    kind: ErrorKind
    message: str
    where: str | None = None

    def __str__(self) -> str:
        return self.message

    @classmethod
    def of(cls, exc: BaseException) -> ErrorRecord:
        """The record of a caught exception (its kind from its type; the message as str(exc) reads)."""
        if isinstance(exc, DrafterError):
            return cls(exc.kind, exc.message, str(exc.where) if exc.where is not None else None)
        return cls(ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}")


def error_fields(error: ErrorRecord | None) -> dict:
    """The keys a result's `to_dict()` stores: "error" stays the plain message (older readers use only it)."""
    if error is None:
        return {"error": None, "error_kind": None, "error_where": None}
    return {"error": error.message, "error_kind": error.kind.value, "error_where": error.where}


def error_from_fields(data: dict) -> ErrorRecord | None:
    """The record `error_fields` wrote, also from a row written before the kind was stored (kind UNKNOWN)."""
    message = data.get("error")
    if not message:
        return None
    try:
        kind = ErrorKind(data.get("error_kind") or ErrorKind.UNKNOWN.value)
    except ValueError:   # a kind from a later version
        kind = ErrorKind.UNKNOWN
    where = data.get("error_where")
    return ErrorRecord(kind, str(message), str(where) if where is not None else None)
