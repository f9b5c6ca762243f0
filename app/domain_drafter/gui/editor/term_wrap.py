"""Soft wrap that never splits a PDDL term: a line breaks only at a space, and never inside `?obj - ball`.

Qt breaks lines where Unicode allows it, and Unicode allows a break after `?` and after a hyphen: a
wrapped editor then shows `(holding ?` / `x)` or `(?obj -` / `ball`. `TermWrapLayout` is the editors'
document layout: it lets Qt lay out each block, and where Qt broke a line at a place that splits a term,
it lays that block out again with each such line ended at the last space that is a safe break. A term
longer than a whole line still breaks where Qt broke it (there is no better place).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTextBlock, QTextDocument, QTextLayout
from PySide6.QtWidgets import QPlainTextDocumentLayout


def safe_break(text: str, end: int) -> bool:
    """A line may end before `text[end]`: after a space, and not around the ` - ` of a typed parameter."""
    if end >= len(text):
        return True
    if end <= 0 or not text[end - 1].isspace():
        return False
    before = text[:end].rstrip()
    if before.endswith(" -") or before == "-":
        return False
    return not (text[end] == "-" and (end + 1 == len(text) or text[end + 1].isspace()))


def breaks_terms(layout: QTextLayout, text: str) -> bool:
    return any(not safe_break(text, layout.lineAt(i).textStart() + layout.lineAt(i).textLength())
               for i in range(layout.lineCount() - 1))


def relayout(layout: QTextLayout, text: str) -> None:
    """Lay `layout` out again at its lines' width, each line ending at the last safe break that fits."""
    first = layout.lineAt(0)
    width, margin = first.width(), first.x()
    layout.beginLayout()
    y = 0.0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLeadingIncluded(True)
        line.setLineWidth(width)
        start, end = line.textStart(), line.textStart() + line.textLength()
        if not safe_break(text, end):
            for cut in (i for i in range(end - 1, start, -1) if safe_break(text, i)):
                line.setNumColumns(cut - start)   # Qt may still take more (no break before `?` or `)`)
                if safe_break(text, line.textStart() + line.textLength()):
                    break
            else:
                line.setLineWidth(width)          # a term longer than the line: where Qt broke it
        line.setPosition(QPointF(margin, y))
        y += line.height()
    layout.endLayout()


class TermWrapLayout(QPlainTextDocumentLayout):
    """A plain-text document layout whose wrapped lines never split a term (see the module's doc)."""

    def __init__(self, document: QTextDocument):
        super().__init__(document)

    def blockBoundingRect(self, block: QTextBlock) -> QRectF:
        rect = super().blockBoundingRect(block)   # Qt lays the block out first, if it has not yet
        layout = block.layout()
        if layout is None or layout.lineCount() < 2 or not breaks_terms(layout, block.text()):
            return rect
        relayout(layout, block.text())
        if block.lineCount() != layout.lineCount():
            block.setLineCount(layout.lineCount())
            self.documentSizeChanged.emit(self.documentSize())
        return super().blockBoundingRect(block)
