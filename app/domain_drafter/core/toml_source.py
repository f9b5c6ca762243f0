"""Read the small TOML files users write (descriptions, prompt templates) and point at their lines.

`tomllib` gives values without positions, so `TomlSource.where(...)` finds the line of a key
path in the text (table headers, dotted keys, inline keys), which is enough to say
`descriptions.toml:12:1: [actions.stack] must be a string, not a list`. `check_template`
validates `{name}` placeholders the way `fill` and the prompt renderer read them.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from domain_drafter.core.errors import DomainError, SourceLocation

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(r"^\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*=")
_FIELD = re.compile(r"[^{}!:\[\].]+")


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(r"\"([^\"]*)\"|'([^']*)'|([^.\s]+)", text)
    return tuple(next(p for p in groups if p) if any(groups) else "" for groups in parts)


def describe_value(value: Any) -> str:
    """A TOML value's kind in words: 'a string', 'an integer', 'a list', 'a table', ..."""
    if isinstance(value, bool):
        return "a boolean"
    return {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table"}.get(
        type(value), f"a {type(value).__name__}")


@dataclass(frozen=True)
class TomlSource:
    """A TOML file's path, its text and its parsed data."""

    path: Path
    text: str
    data: dict

    @classmethod
    def read(cls, path: Path, what: str) -> TomlSource:
        """Read and parse `path`; every failure is a DomainError located at file:line:col."""
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise DomainError(f"cannot read the {what}: {exc.strerror}", where=path) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
            raise DomainError(f"the {what} is not UTF-8 text (byte {exc.start})",
                              where=SourceLocation(path, line, column, exc.start),
                              hint="save the file as UTF-8") from None
        return cls.parse(text, path, what)

    @classmethod
    def parse(cls, text: str, path: Path, what: str) -> TomlSource:
        """Parse TOML `text` read from (or meant for) `path`; a syntax error is a DomainError at file:line:col."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
            where = SourceLocation(path, int(m.group(1)), int(m.group(2))) if m else path
            raise DomainError(f"the {what} is not valid TOML: {str(exc).split(' (at line')[0]}", where=where) from None
        return cls(path, text, data)

    @cached_property
    def _defined(self) -> tuple[tuple[tuple[str, ...], int], ...]:
        """(full key path, line) of every table header and assignment, in file order (read once)."""
        out: list[tuple[tuple[str, ...], int]] = []
        table: tuple[str, ...] = ()
        in_multiline = False
        for number, line in enumerate(self.text.splitlines(), start=1):
            quotes = line.count('"""') + line.count("'''")
            if in_multiline:
                in_multiline = quotes % 2 == 0
                continue
            header = _HEADER.match(line)
            if header:
                table = _split_key(header.group(1))
                full = table
            else:
                assign = _ASSIGN.match(line)
                if not assign:
                    continue
                full = table + _split_key(assign.group(1))
                in_multiline = quotes % 2 == 1
            out.append((full, number))
        return tuple(out)

    def where(self, *keys: str) -> SourceLocation:
        """The line that defines the key path (or its deepest defined prefix); line 1 if none does."""
        best_depth, best_line = 0, 1
        for full, number in self._defined:
            depth = min(len(full), len(keys))
            if depth > best_depth and full[:depth] == tuple(keys[:depth]):
                best_depth, best_line = depth, number
        return SourceLocation(self.path, best_line, 1)

    def fail(self, what: str, *keys: str, hint: str | None = None) -> DomainError:
        return DomainError(what, where=self.where(*keys), hint=hint)

    def where_item(self, array: str, index: int, key: str | None = None) -> SourceLocation:
        """The line of `key` in the `index`-th (0-based) table of the array of tables `[[array]]`, or of that
        table's header when the key is not written there."""
        seen, header = -1, None
        for full, number in self._defined:
            if full == (array,):
                seen += 1
                if seen == index:
                    header = number
                elif seen > index:
                    break
            elif seen == index and key is not None and full == (array, key):
                return SourceLocation(self.path, number, 1)
        return SourceLocation(self.path, header, 1) if header is not None else self.where(array)

    def fail_item(self, what: str, array: str, index: int, key: str | None = None, *,
                  hint: str | None = None) -> DomainError:
        return DomainError(what, where=self.where_item(array, index, key), hint=hint)


def template_fields(template: str) -> set[str]:
    """The `{name}` fields of a template; ValueError saying what is wrong if it is not a plain template."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"an unbalanced brace ({exc}); write a literal brace as {{{{ or }}}}") from None
    fields: set[str] = set()
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if spec or conversion or not _FIELD.fullmatch(name):
            raise ValueError(f"the placeholder {{{name}{'!' + conversion if conversion else ''}"
                             f"{':' + spec if spec else ''}}} is not a plain {{name}}")
        fields.add(name)
    return fields
