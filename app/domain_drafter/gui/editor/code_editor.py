"""A PDDL text editor: monospace, highlighted, with spans and lines marked through ExtraSelections.

Spans come from the engine as Python string indices into an answer. A QTextDocument counts
UTF-16 code units and turns "\\r\\n", "\\r", U+2028 and U+2029 into one block break each, so
`document_positions` maps the engine's indices onto document positions exactly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QRect, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from domain_drafter.core.classes import ResultClass
from domain_drafter.core.pddl_format import UnbalancedError, format_pddl
from domain_drafter.gui.editor.highlighter import PddlHighlighter
from domain_drafter.gui.editor.term_wrap import TermWrapLayout
from domain_drafter.gui.look.colours import current_scheme

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
    WARNING = "warning"    # a finding that may be intended (an invariant the other actions keep): amber wavy
    MISSING = "missing"    # in the reference, not in the generated action (whole line)
    EXTRA = "extra"        # in the generated action, not in the reference (whole line)


def mark_colour(kind: MarkKind) -> str:
    """The current scheme's colour of a mark (underline for errors, line background for the diff)."""
    scheme = current_scheme()
    return {MarkKind.ERROR: scheme.error_underline, MarkKind.MISSING: scheme.missing_line,
            MarkKind.EXTRA: scheme.extra_line,
            MarkKind.WARNING: scheme.badges[ResultClass.SEMANTIC_ERROR].background}[kind]


ZOOM_MIN, ZOOM_MAX = -6, 16   # point-size steps from the system's fixed font


@dataclass(frozen=True)
class Mark:
    """A span (Python indices into `source`, the text the span refers to) or a line to mark."""

    kind: MarkKind
    start: int = 0
    end: int = 0
    line: int | None = None   # 0-based block number: marks the whole line, start/end unused
    tooltip: str = ""


class LineNumberArea(QWidget):
    """The gutter left of a CodeEditor; the editor paints it."""

    def __init__(self, editor: CodeEditor):
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.line_number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_line_numbers(event)


class CodeEditor(QPlainTextEdit):
    """Monospace PDDL editor: soft wrap, line numbers, zoom, Format; `set_marks` shows findings and diff lines.

    A finding's message shows as a tooltip when the pointer rests on its underline.
    """

    zoom_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, read_only: bool = False, line_numbers: bool = True,
                 wrap: bool = True):
        super().__init__(parent)
        document = QTextDocument(self)
        document.setDocumentLayout(TermWrapLayout(document))   # soft wrap never splits a term (term_wrap.py)
        self.setDocument(document)
        self._base_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.zoom = 0
        self.setFont(self._base_font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
        self.setReadOnly(read_only)
        self.highlighter = PddlHighlighter(self.document())
        self._marks: list[Mark] = []
        self._mark_source: str | None = None
        self._tips: list[tuple[int, int, str]] = []   # document positions of each tooltip span
        self.line_numbers = LineNumberArea(self) if line_numbers else None
        if self.line_numbers is not None:
            self.blockCountChanged.connect(self._update_margins)
            self.updateRequest.connect(self._update_line_numbers)
            self._update_margins()

    def show_text(self, text: str) -> None:
        """Replace the text without `textChanged` (a view showing a model's value, not an edit, cut under
        QSignalBlocker); the line numbers still follow."""
        with QSignalBlocker(self):
            self.setPlainText(text)
        self._update_margins()
        if self.line_numbers is not None:
            self.line_numbers.update()

    # --- line numbers ----------------------------------------------------------------------
    def line_number_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 10 + self.fontMetrics().horizontalAdvance("9") * max(2, digits)

    def _update_margins(self, _count: int = 0) -> None:
        self.setViewportMargins(self.line_number_width() if self.line_numbers is not None else 0, 0, 0, 0)

    def _update_line_numbers(self, rect: QRect, dy: int) -> None:
        area = self.line_numbers
        if area is None:
            return
        if dy:
            area.scroll(0, dy)
        else:
            area.update(0, rect.y(), area.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.line_numbers is not None:
            cr = self.contentsRect()
            self.line_numbers.setGeometry(QRect(cr.left(), cr.top(), self.line_number_width(), cr.height()))

    def paint_line_numbers(self, event: QPaintEvent) -> None:
        area = self.line_numbers
        assert area is not None
        scheme = current_scheme()
        painter = QPainter(area)
        painter.fillRect(event.rect(), QColor(scheme.gutter))
        painter.setPen(QColor(scheme.line_number))
        painter.setFont(self.font())
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                painter.drawText(0, top, area.width() - 5, height, Qt.AlignmentFlag.AlignRight,
                                 str(block.blockNumber() + 1))
            block = block.next()
            top = bottom
        painter.end()

    # --- zoom ------------------------------------------------------------------------------
    def set_zoom(self, steps: int) -> None:
        self.zoom = max(ZOOM_MIN, min(ZOOM_MAX, steps))
        font = self.font()
        base = self._base_font.pointSizeF() if self._base_font.pointSizeF() > 0 else 10.0
        font.setPointSizeF(max(4.0, base + self.zoom))
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
        self._update_margins()
        self.zoom_changed.emit(self.zoom)

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom + 1)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom - 1)

    def reset_zoom(self) -> None:
        self.set_zoom(0)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_zoom(self.zoom + (1 if event.angleDelta().y() > 0 else -1))
            event.accept()
            return
        super().wheelEvent(event)

    # --- format ----------------------------------------------------------------------------
    def format_text(self) -> str:
        """Lay the text out in canonical form (one undo step); '' on success, else why nothing changed."""
        text = self.toPlainText()
        try:
            formatted = format_pddl(text)
        except UnbalancedError:
            return "Not formatted: a '(' is never closed (see the findings after Evaluate)."
        if formatted != text:
            self.replace_all(formatted)
        return ""

    def replace_all(self, text: str) -> None:
        """The whole text replaced as one step Undo takes back (Format, a finding's Apply edit)."""
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()

    # --- tooltips at the underline ---------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.tooltip_at(event.pos())
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def tooltip_at(self, pos) -> str:
        """The messages of the marks under `pos` (editor coordinates), one paragraph each, or ''."""
        if not self._tips:
            return ""
        viewport_pos = self.viewport().mapFrom(self, pos)
        cursor = self.cursorForPosition(viewport_pos)
        # cursorForPosition snaps to the nearest gap: check the character on either side
        where = cursor.position()
        rect = self.cursorRect(cursor)
        if abs(rect.center().y() - viewport_pos.y()) > self.fontMetrics().height():
            return ""
        tips = [tip for start, end, tip in self._tips if start <= where <= end and end > start]
        return "\n\n".join(dict.fromkeys(tips))

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
        self._mark_source = source
        self._tips = []
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
                fmt.setBackground(QColor(mark_colour(mark.kind)))
                fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
            else:
                start = positions[max(0, min(mark.start, len(source)))]
                end = positions[max(0, min(mark.end, len(source)))]
                start, end = min(start, limit), min(max(end, start), limit)
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(QColor(mark_colour(mark.kind)))
                if mark.tooltip:
                    self._tips.append((start, end, mark.tooltip))
            if mark.tooltip:
                fmt.setToolTip(mark.tooltip)
            selection.cursor = cursor
            selection.format = fmt
            selections.append(selection)
        self.setExtraSelections(selections)

    def clear_marks(self) -> None:
        self._marks = []
        self._tips = []
        self.setExtraSelections([])

    def refresh_colours(self) -> None:
        """Repaint marks, highlighting and gutter in the current scheme's colours."""
        self.highlighter.refresh()
        if self._marks:
            self.set_marks(self._marks, self._mark_source)
        if self.line_numbers is not None:
            self.line_numbers.update()

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
