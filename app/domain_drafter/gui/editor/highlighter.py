"""PDDL syntax highlighting for Qt text documents, driven by the Pygments lexer of pddl_lexer.py.

Each text block (line) is lexed on its own: the lexer carries no state across lines (comments
end at the line's end, PDDL has no multi-line strings), so per-block lexing gives the same
tokens as lexing the whole text, except for a list's first name put on the next line after its
'(' (then shown as a plain name).
"""

from __future__ import annotations

from dataclasses import dataclass

from pygments.lexer import Lexer
from pygments.token import Comment, Keyword, Name, Number, Operator, _TokenType
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from domain_drafter.gui.editor.pddl_lexer import DomainDrafterPddlLexer
from domain_drafter.gui.look.colours import Scheme, current_scheme


@dataclass(frozen=True)
class TokenStyle:
    colour: str
    bold: bool = False
    italic: bool = False

    def to_format(self) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(self.colour))
        if self.bold:
            fmt.setFontWeight(QFont.Weight.Bold)
        if self.italic:
            fmt.setFontItalic(True)
        return fmt


# The scheme's token kinds; token types not listed (and not under a listed parent) stay plain.
TOKEN_KINDS: dict[_TokenType, str] = {
    Keyword: "keyword",
    Keyword.Pseudo: "pseudo",
    Keyword.Type: "type",
    Name.Builtin: "builtin",
    Name.Function: "function",
    Name.Variable: "variable",
    Comment: "comment",
    Number: "number",
    Operator: "operator",
}


def scheme_styles(scheme: Scheme) -> dict[_TokenType, TokenStyle]:
    return {ttype: TokenStyle(*scheme.tokens[kind]) for ttype, kind in TOKEN_KINDS.items()}


DEFAULT_STYLES = scheme_styles(current_scheme())   # the light scheme's (the app starts light)


def utf16_offsets(text: str) -> list[int]:
    """offsets[i] = the UTF-16 position of Python index i in `text` (len(text) + 1 entries)."""
    out = [0] * (len(text) + 1)
    pos = 0
    for i, ch in enumerate(text):
        out[i] = pos
        pos += 2 if ord(ch) > 0xFFFF else 1
    out[len(text)] = pos
    return out


class PddlHighlighter(QSyntaxHighlighter):
    """Colours PDDL in a QTextDocument with DomainDrafterPddlLexer's tokens."""

    def __init__(self, document: QTextDocument, *, lexer: Lexer | None = None,
                 styles: dict[_TokenType, TokenStyle] | None = None):
        super().__init__(document)
        self._lexer = lexer or DomainDrafterPddlLexer(stripnl=False, ensurenl=False)
        self._fixed_styles = styles
        self._formats: dict[_TokenType, QTextCharFormat] = {}
        self._cache: dict[_TokenType, QTextCharFormat | None] = {}
        self._set_styles()

    def _set_styles(self) -> None:
        styles = self._fixed_styles or scheme_styles(current_scheme())
        self._formats = {ttype: style.to_format() for ttype, style in styles.items()}
        self._cache = {}

    def refresh(self) -> None:
        """Take the current scheme's colours (after a light/dark switch) and re-highlight."""
        self._set_styles()
        self.rehighlight()

    def format_for(self, ttype: _TokenType) -> QTextCharFormat | None:
        """The format of a token type: its own, else its nearest styled parent's, else None."""
        if ttype not in self._cache:
            found: QTextCharFormat | None = None
            t: _TokenType | None = ttype
            while t is not None:
                if t in self._formats:
                    found = self._formats[t]
                    break
                t = t.parent
            self._cache[ttype] = found
        return self._cache[ttype]

    def highlightBlock(self, text: str) -> None:
        if not text:
            return
        offsets = None if text.isascii() else utf16_offsets(text)
        for index, ttype, value in self._lexer.get_tokens_unprocessed(text):
            fmt = self.format_for(ttype)
            if fmt is None or not value:
                continue
            if offsets is None:
                start, length = index, len(value)
            else:
                start, length = offsets[index], offsets[index + len(value)] - offsets[index]
            self.setFormat(start, length, fmt)
