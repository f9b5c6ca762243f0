"""The Qt side of highlighting and marking: formats land on the right UTF-16 positions."""

from __future__ import annotations

from pygments.token import Keyword, Name
from PySide6.QtGui import QColor, QTextCharFormat, QTextDocument

from domain_drafter.gui.editor.code_editor import CodeEditor, Mark, MarkKind, document_positions, normalized
from domain_drafter.gui.editor.highlighter import DEFAULT_STYLES, PddlHighlighter, utf16_offsets


def formats_of(doc: QTextDocument, block: int = 0) -> dict[str, str]:
    """The text under each format range of a block -> its foreground colour."""
    b = doc.findBlockByNumber(block)
    text = b.text()
    utf16 = text.encode("utf-16-le")
    out = {}
    for r in b.layout().formats():
        piece = utf16[2 * r.start: 2 * (r.start + r.length)].decode("utf-16-le")
        out[piece] = r.format.foreground().color().name()
    return out


def test_keywords_builtins_predicates_and_variables_get_their_colours(qtbot):
    doc = QTextDocument()
    highlighter = PddlHighlighter(doc)
    doc.setPlainText("(:action pick :precondition (and (at ?obj ?room)))")
    highlighter.rehighlight()
    seen = formats_of(doc)
    assert seen[":action"] == QColor(DEFAULT_STYLES[Keyword].colour).name()
    assert seen["and"] == QColor(DEFAULT_STYLES[Name.Builtin].colour).name()
    assert seen["at"] == QColor(DEFAULT_STYLES[Name.Function].colour).name()   # a user predicate
    assert seen["?obj"] == QColor(DEFAULT_STYLES[Name.Variable].colour).name()
    assert "pick" not in seen   # plain names stay plain


def test_positions_after_characters_outside_the_bmp_are_utf16(qtbot):
    doc = QTextDocument()
    highlighter = PddlHighlighter(doc)
    doc.setPlainText("😀😀 (:effect (p ?x))")
    highlighter.rehighlight()
    seen = formats_of(doc)
    assert ":effect" in seen and "?x" in seen
    assert utf16_offsets("a😀b") == [0, 1, 3, 4]


def test_document_positions_follow_qt_line_break_normalisation(qtbot):
    text = "a\r\nb\rc\u2028d😀e"
    editor = CodeEditor()
    editor.setPlainText(text)
    assert editor.toPlainText() == normalized(text)
    positions = document_positions(text)
    for i, ch in enumerate(text):
        if ch not in "\r\n\u2028":
            cursor = editor.textCursor()
            cursor.setPosition(positions[i])
            cursor.setPosition(positions[i] + (2 if ord(ch) > 0xFFFF else 1), cursor.MoveMode.KeepAnchor)
            assert cursor.selectedText() == ch


def test_marks_become_wavy_underlines_and_full_width_lines(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    source = "x\r\n(:action a (bad ?x))"
    editor.setPlainText(source)
    start = source.index("(bad")
    editor.set_marks([Mark(MarkKind.ERROR, start, start + len("(bad ?x)")), Mark(MarkKind.EXTRA, line=0)], source)
    underline, line = editor.extraSelections()
    assert underline.cursor.selectedText() == "(bad ?x)"
    assert underline.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
    assert line.cursor.block().blockNumber() == 0 and line.format.background().color().name() == "#ffe8a3"
    editor.clear_marks()
    assert editor.extraSelections() == [] and editor.marks == ()
