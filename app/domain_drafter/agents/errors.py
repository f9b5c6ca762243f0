"""Every failure of a tool as data: what, where (file:line:col), what to do; never an exception past a tool."""

from __future__ import annotations

from pathlib import Path

from domain_drafter.core.errors import DrafterError, SourceLocation, UsageError

MAX_TEXT_CHARS = 1_000_000   # one text argument (a domain, a problem, an answer, a plan); 50x the largest domain


def check_size(name: str, text: str | None) -> None:
    """Refuse a text argument over the limit before anything parses it."""
    if text is not None and len(text) > MAX_TEXT_CHARS:
        raise UsageError(f"'{name}' holds {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}",
                         where=name, hint="send the one action, domain or plan the question is about, not a bigger "
                                          "text; a domain folder is read from disk without this limit")


def where_fields(where, rename: dict[Path, str] | None = None) -> dict | None:
    """A location as {file, line, column} (file renamed for inline texts), a plain place as {file}."""
    if where is None:
        return None

    def shown(path) -> str | None:
        if path is None:
            return None
        path = Path(path)
        for root, name in (rename or {}).items():
            if path == root or path.is_relative_to(root):
                return (Path(name) / path.relative_to(root)).as_posix() if path != root else name
        return str(path)
    if isinstance(where, SourceLocation):
        return {"file": shown(where.path), "line": where.line, "column": where.column}
    if isinstance(where, Path):
        return {"file": shown(where)}
    return {"file": str(where)}


def error_result(exc: BaseException, tool: str, rename: dict[Path, str] | None = None) -> dict:
    """The structured content of a failed call."""
    if isinstance(exc, DrafterError):
        where = where_fields(exc.where, rename)
        return {"error": {"kind": exc.kind.value, "what": exc.what, "where": where, "hint": exc.hint, "tool": tool}}
    return {"error": {"kind": "internal", "what": f"{type(exc).__name__}: {exc}", "where": None, "tool": tool,
                      "hint": "this is a bug in Domain Drafter; the server keeps running - report it with the "
                              "arguments of this call"}}


def error_text(error: dict) -> str:
    """The one-paragraph summary of a structured error: where: what, then the hint."""
    e = error["error"]
    where = e.get("where")
    place = ""
    if where:
        place = where["file"] or "<text>"
        if "line" in where:
            place += f":{where['line']}:{where['column']}"
        place += ": "
    text = f"{e['tool']} failed ({e['kind']}): {place}{e['what']}"
    if e.get("hint"):
        text += f"\n  hint: {e['hint']}"
    return text
