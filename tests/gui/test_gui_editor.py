"""The answer editor: soft wrap, Format (canonical layout, comments kept), Ctrl+Enter, find, zoom,
line numbers, and a finding's message as a tooltip at its underline."""

from __future__ import annotations

import pytest
from gui_helpers import JOB_TIMEOUT_MS, select
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent, QKeySequence
from PySide6.QtWidgets import QPlainTextEdit, QToolTip

from domain_drafter.core.answers import check_answer
from domain_drafter.core.pddl_format import UnbalancedError, format_pddl
from domain_drafter.gui.editor.code_editor import CodeEditor

COMMENTED = """Here it is:
(:action pick ; take a ball
 :parameters (?obj - ball ?room - room ?g - gripper)
 :precondition (and (at ?obj ?room)
   ; the robot must be there
   (at-robby ?room) (free ?g))
 :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g))))
Hope this helps."""


def all_actions(bundles):
    return [(b, a) for b in bundles.values() for a in b.action_names]


def test_format_keeps_every_reference_action_the_same_action(bundles):
    for bundle, name in all_actions(bundles):
        reference = bundle.domain.action(name)
        flat = " ".join(reference.to_pddl(indent="").split())   # one long line, as models write
        formatted = format_pddl(flat)
        assert formatted == format_pddl(formatted), name   # idempotent
        report = check_answer(formatted, bundle.domain, name)
        assert report.passed and report.action == reference, (bundle.name, name)
        lines = formatted.splitlines()
        assert lines[0] == f"(:action {name}" and all(len(line) <= 80 for line in lines)
        assert any(line.strip().startswith(":precondition") for line in lines)


def test_format_keeps_comments_and_the_text_around_the_action():
    formatted = format_pddl(COMMENTED)
    assert formatted.splitlines() == [
        "Here it is:",
        "(:action pick ; take a ball",
        "  :parameters (?obj - ball ?room - room ?g - gripper)",
        "  :precondition (and",
        "    (at ?obj ?room)",
        "    ; the robot must be there",
        "    (at-robby ?room)",
        "    (free ?g))",
        "  :effect (and",
        "    (carry ?obj ?g)",
        "    (not (at ?obj ?room))",
        "    (not (free ?g))))",
        "Hope this helps.",
    ]


def test_format_refuses_unbalanced_text():
    with pytest.raises(UnbalancedError):
        format_pddl("(:action a :parameters (")


def test_format_command_is_ctrl_shift_f_and_one_undo_step(qtbot, window):
    assert window.format_action.shortcut() == QKeySequence("Ctrl+Shift+F")
    select(qtbot, window, "gripper", "pick")
    editor = window.answer_panel.editor
    editor.setPlainText(COMMENTED)
    window.format_action.trigger()
    assert editor.toPlainText() == format_pddl(COMMENTED)
    editor.undo()
    assert editor.toPlainText() == COMMENTED
    editor.setPlainText("(and (p")
    window.format_action.trigger()
    assert editor.toPlainText() == "(and (p" and "never closed" in window.status_label.text()


def test_ctrl_enter_evaluates(qtbot, window):
    select(qtbot, window, "gripper", "drop")
    editor = window.answer_panel.editor
    editor.setPlainText(window.current_bundle().domain.action("drop").to_pddl(indent=""))
    assert QKeySequence("Ctrl+Return") in window.evaluate_action.shortcuts()
    window.activateWindow()
    editor.setFocus()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    with qtbot.waitSignal(window.result_shown, timeout=JOB_TIMEOUT_MS):
        qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert window.result_panel.badge.text() == "Equivalent"
    assert "\n\n" not in editor.toPlainText()[-2:]   # the shortcut did not insert a line break


def test_long_lines_wrap_instead_of_running_off_the_edge(qtbot, window):
    editor = window.answer_panel.editor
    assert editor.lineWrapMode() is QPlainTextEdit.LineWrapMode.WidgetWidth
    editor.setPlainText("(:action pick " + " ".join(f"(p{i} ?x ?y)" for i in range(60)) + ")")
    qtbot.wait(1)
    assert editor.horizontalScrollBar().maximum() == 0
    assert editor.document().firstBlock().layout().lineCount() > 1


def test_find_selects_matches_and_wraps_around(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    editor = window.answer_panel.editor
    editor.setPlainText("(free ?g)\n(at ?obj ?room)\n(free ?g)")
    window.find_action.trigger()
    bar = window.answer_panel.find_bar
    assert bar.isVisible()
    bar.field.setText("free")
    assert editor.textCursor().selectedText() == "free"
    first = editor.textCursor().selectionStart()
    assert bar.find() and editor.textCursor().selectionStart() > first
    assert bar.find() and editor.textCursor().selectionStart() == first   # wrapped around
    bar.field.setText("nothing-like-this")
    assert bar.status.text() == "not found"
    qtbot.keyClick(bar, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_zoom_changes_the_font_and_resets(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    base = editor.font().pointSizeF()
    editor.zoom_in()
    editor.zoom_in()
    assert editor.font().pointSizeF() == base + 2 and editor.zoom == 2
    editor.zoom_out()
    assert editor.font().pointSizeF() == base + 1
    editor.reset_zoom()
    assert editor.font().pointSizeF() == base
    editor.set_zoom(100)
    assert editor.zoom == 16


def test_line_numbers_take_a_gutter_that_grows_with_the_line_count(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.resize(400, 300)
    editor.show()
    narrow = editor.line_number_width()
    assert editor.viewportMargins().left() == narrow > 0
    editor.setPlainText("\n".join(["(p)"] * 1200))
    assert editor.line_number_width() > narrow   # four digits instead of two
    assert editor.viewportMargins().left() == editor.line_number_width()
    image = editor.line_numbers.grab().toImage()
    assert len({image.pixel(x, y) for x in range(image.width()) for y in range(min(40, image.height()))}) > 2
    assert CodeEditor(line_numbers=False).line_numbers is None


def test_a_findings_message_is_the_tooltip_at_its_underline(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    answer = window.current_bundle().domain.action("pick").to_pddl(indent="").replace("(free ?g)", "(empty ?g)", 1)
    editor = window.answer_panel.editor
    editor.setPlainText(answer)
    with qtbot.waitSignal(window.result_shown, timeout=JOB_TIMEOUT_MS) as shown:
        window.evaluate_action.trigger()
    finding = shown.args[0].findings[0]
    cursor = editor.textCursor()
    cursor.setPosition(answer.index("(empty ?g)") + 3)
    rect = editor.cursorRect(cursor)
    at_underline = editor.viewport().mapTo(editor, rect.center())
    assert editor.tooltip_at(at_underline) == finding.message
    assert editor.tooltip_at(QPoint(editor.width() - 5, editor.height() - 5)) == ""
    event = QHelpEvent(QEvent.Type.ToolTip, at_underline, editor.mapToGlobal(at_underline))
    assert editor.event(event)
    assert QToolTip.isVisible() and QToolTip.text() == finding.message
    QToolTip.hideText()
