"""The one boundary between PDDL text and the `pddl` library's grammar.

We parse with the grammar that ships with the `pddl` package (lark, LALR), keeping lark's
positions so every later finding can point at a character span. Every parser exception,
whatever its type, leaves this module as a `PddlSyntaxError` with file:line:col.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from pathlib import Path

import lark
from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.grammar import Rule
from lark.lexer import TerminalDef
from pddl.parser import GRAMMAR_FILE, PARSERS_DIRECTORY

from domain_drafter.core.cache_data import CacheFolder, DataCodec
from domain_drafter.core.errors import PddlSyntaxError, SourceLocation
from domain_drafter.core.paths import cache_dir

START_SYMBOLS = ("domain", "problem", "action_def", "plan")
TABLES_FORMAT = "lark-json-1"   # how the tables are kept (a pickle before): part of the entry's name

# PDDL is case-insensitive but the grammar's keywords are lower-case literals. Lower-casing
# only ASCII letters keeps every character at its offset, so spans map back 1:1.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# Terminal names of the grammar, spelled the way a person reads them in a message.
_TERMINAL_WORDS = {
    "LPAR": "'('", "RPAR": "')'", "NAME": "a name", "QMARK": "'?'", "TYPE_SEP": "'-'",
    "PRECONDITION": "':precondition'", "EFFECT": "':effect'", "PARAMETERS": "':parameters'",
    "ACTION": "':action'", "NUMBER": "a number", "$END": "the end of the text",
}


def ascii_lower(text: str) -> str:
    """Lower-case A-Z only, so that offsets are preserved."""
    return text.translate(_ASCII_LOWER)


_PARSER_OPTIONS = dict(parser="lalr", start=list(START_SYMBOLS), propagate_positions=True, maybe_placeholders=True)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser, built once per machine: building its tables costs ~0.5 s, loading them ~10 ms.

    The tables are kept as data (core.cache_data: JSON, never a pickle, so reading runs no code)
    in a file named by a hash of the grammar files, the options and the lark and Python versions,
    written under a temporary name and renamed, so processes starting together never read half
    a file. An entry that does not load is a miss (said once on stderr) and is rebuilt; a cache
    folder that cannot be written only costs the build.
    """
    grammar = GRAMMAR_FILE.read_text(encoding="utf-8")
    sources = [grammar] + [p.read_text(encoding="utf-8") for p in sorted(PARSERS_DIRECTORY.glob("*.lark"))]
    key = "\0".join((*sources, repr(sorted(_PARSER_OPTIONS.items())), lark.__version__, sys.version, TABLES_FORMAT))
    name = f"pddl-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}"
    folder = CacheFolder(cache_dir() / "parser", "lark-tables", DataCodec(), "parser tables")
    tables = folder.read(name, dict)
    if tables is not None:
        try:
            return Lark.load(tables)
        except Exception as exc:  # data of the right shape that lark still refuses: a miss too
            folder.refused(name, f"lark cannot load it: {type(exc).__name__}")
    parser = Lark(grammar, import_paths=[PARSERS_DIRECTORY], **_PARSER_OPTIONS)
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    folder.write(name, {"data": data, "memo": memo})
    return parser


def parse_tree(text: str, start: str, *, path: Path | None = None, base_offset: int = 0,
               full_text: str | None = None) -> Tree:
    """Parse `text` as the grammar rule `start`; raise PddlSyntaxError with a location.

    `base_offset`/`full_text` locate errors in a larger text that `text` was cut from
    (an answer's candidate action inside the model's whole answer).
    """
    if start not in START_SYMBOLS:
        raise ValueError(f"unknown start symbol {start!r}")
    # The pddl package sets sys.tracebacklimit = 0 around its own parses and can leave it
    # so; we call lark directly, but guard anyway so no later traceback is ever hidden.
    saved = getattr(sys, "tracebacklimit", None)
    try:
        return _parser().parse(ascii_lower(text), start=start)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, path, base_offset, full_text) from None
    except LarkError as exc:  # any other lark failure: still a syntax error, located at the start
        loc = SourceLocation.from_offset(full_text or text, base_offset, path)
        raise PddlSyntaxError(f"cannot parse PDDL: {exc}", where=loc) from None
    finally:
        if saved is None:
            if hasattr(sys, "tracebacklimit"):
                del sys.tracebacklimit
        else:
            sys.tracebacklimit = saved


def _syntax_error(exc: UnexpectedInput, text: str, path: Path | None, base: int,
                  full_text: str | None) -> PddlSyntaxError:
    offset = _error_offset(exc, text)
    loc = SourceLocation.from_offset(full_text or text, base + offset, path)
    if ascii_lower(text[offset:offset + 8]).startswith("(either"):
        # The grammar allows `(either ...)` only where PDDL does; say why instead of "unexpected '('".
        what = ("'(either ...)' cannot be used here: it may type the parameters of predicates and actions, "
                "but not a supertype in :types, a constant or an object")
        error = PddlSyntaxError(what, where=loc)
        error.span = (base + offset, base + min(len(text), offset + 7))  # type: ignore[attr-defined]
        return error
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        found = "the end of the text" if token.type == "$END" else repr(text[token.start_pos:token.end_pos] or str(token))
        what = f"unexpected {found}"
        width = max(1, (token.end_pos or offset + 1) - offset) if token.type != "$END" else 1
    elif isinstance(exc, UnexpectedCharacters):
        what = f"unexpected character {text[offset:offset + 1]!r}"
        width = 1
    elif isinstance(exc, UnexpectedEOF):
        what = "the text ends in the middle of an expression"
        width = 1
    else:
        what = "cannot parse PDDL"
        width = 1
    expected = _expected_words(exc)
    if expected:
        what += f"; expected {expected}"
    error = PddlSyntaxError(what, where=loc)
    error.span = (base + offset, base + min(len(text), offset + width))  # type: ignore[attr-defined]
    return error


def _error_offset(exc: UnexpectedInput, text: str) -> int:
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END":
        return len(text.rstrip()) if text.strip() else 0
    pos = getattr(exc, "pos_in_stream", None)
    if pos is None and isinstance(exc, UnexpectedToken):
        pos = exc.token.start_pos
    return max(0, min(pos if pos is not None else len(text), len(text)))


def _expected_words(exc: UnexpectedInput) -> str:
    expected = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()
    words = sorted({_TERMINAL_WORDS.get(name, name.lower().join("''")) for name in expected})
    if not words or len(words) > 6:
        return ""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def token_text(node: Tree | Token) -> str:
    """The lower-cased text of a token (the grammar's trees hold tokens as leaves)."""
    return str(node)


def span_of(node: Tree | Token) -> tuple[int, int]:
    """Character span [start, end) of a tree or token in the parsed text."""
    if isinstance(node, Token):
        return (node.start_pos or 0, node.end_pos or 0)
    meta = node.meta
    if getattr(meta, "empty", True):
        return (0, 0)
    return (meta.start_pos, meta.end_pos)
