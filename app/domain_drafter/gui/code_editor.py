"""A PDDL text editor: monospace, highlighted, with spans and lines marked through ExtraSelections.

Spans come from the engine as Python string indices into an answer. A QTextDocument counts
UTF-16 code units and turns "\\r\\n", "\\r", U+2028 and U+2029 into one block break each, so
`document_positions` maps the engine's indices onto document positions exactly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from domain_drafter.gui.highlighter import PddlHighlighter

_BREAKS = "\n\r\u2028\u2029"


def document_positions(text: str) -> list[int]:
    """positions[i] = where Python index i of `text` lands in a QTextDocument holding `text`."""
    out = [0] * (len(text) + 1)
    pos = 0
    for i, ch in enumerate(text):
        out[i] = pos
        if ch == "\r" and text.startswith("\n", i + 1):
            continue  # "\r\n" is one break; the "\n" counts it
        pos += 2 if ord(ch) > 0xFFFF else 1
    out[len(text)] = pos
    return out


def normalized(text: str) -> str:
    """`text` as a QPlainTextEdit gives it back: every line break one "\\n"."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")


class MarkKind(enum.Enum):
    ERROR = "error"        # a finding: red wavy underline
    MISSING = "missing"    # in the reference, not in the generated action (whole line)
    EXTRA = "extra"        # in the generated action, not in the reference (whole line)


MARK_COLOURS = {
    MarkKind.ERROR: "#d32f2f",
    MarkKind.MISSING: "#ffd6d6",
    MarkKind.EXTRA: "#ffe8a3",
}


@dataclass(frozen=True)
class Mark:
    """A span (Python indices into `source`, the text the span refers to) or a line to mark."""

    kind: MarkKind
    start: int = 0
    end: int = 0
    line: int | None = None   # 0-based block number: marks the whole line, start/end unused
    tooltip: str = ""


class CodeEditor(QPlainTextEdit):
    """Monospace PDDL editor; `set_marks` shows findings and diff lines as ExtraSelections."""

    def __init__(self, parent: QWidget | None = None, *, read_only: bool = False):
        super().__init__(parent)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
        self.setReadOnly(read_only)
        self.highlighter = PddlHighlighter(self.document())
        self._marks: list[Mark] = []

    # --- text ------------------------------------------------------------------------------
    def append_text(self, text: str) -> None:
        """Insert at the end (streaming); keeps the view at the end if it was there."""
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        if at_end:
            bar.setValue(bar.maximum())

    # --- marks -----------------------------------------------------------------------------
    def set_marks(self, marks: list[Mark], source: str | None = None) -> None:
        """Show `marks`; spans index `source` (default: the editor's own text)."""
        self._marks = list(marks)
        source = self.toPlainText() if source is None else source
        positions = document_positions(source)
        limit = max(0, self.document().characterCount() - 1)
        selections: list[QTextEdit.ExtraSelection] = []
        for mark in marks:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            fmt = QTextCharFormat()
            if mark.line is not None:
                block = self.document().findBlockByNumber(mark.line)
                if not block.isValid():
                    continue
                cursor.setPosition(block.position())
                fmt.setBackground(QColor(MARK_COLOURS[mark.kind]))
                fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
            else:
                start = positions[max(0, min(mark.start, len(source)))]
                end = positions[max(0, min(mark.end, len(source)))]
                start, end = min(start, limit), min(max(end, start), limit)
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(QColor(MARK_COLOURS[mark.kind]))
            if mark.tooltip:
                fmt.setToolTip(mark.tooltip)
            selection.cursor = cursor
            selection.format = fmt
            selections.append(selection)
        self.setExtraSelections(selections)

    def clear_marks(self) -> None:
        self._marks = []
        self.setExtraSelections([])

    @property
    def marks(self) -> tuple[Mark, ...]:
        return tuple(self._marks)

    def select_span(self, start: int, end: int, source: str | None = None) -> None:
        """Move the cursor onto a span of `source` (default: the editor's text) and show it."""
        source = self.toPlainText() if source is None else source
        positions = document_positions(source)
        limit = max(0, self.document().characterCount() - 1)
        cursor = self.textCursor()
        cursor.setPosition(min(positions[max(0, min(start, len(source)))], limit))
        cursor.setPosition(min(positions[max(0, min(end, len(source)))], limit), QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        self.setFocus(Qt.FocusReason.OtherFocusReason)
