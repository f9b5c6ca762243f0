"""The Edit menu's commands for a text editor: Undo, Redo, Cut, Copy, Paste, Select all; zoom.

Each acts on the editor that has the keyboard focus (the answer editor when none has it) and is
enabled as the answer editor says (undoAvailable, redoAvailable, copyAvailable). The menu shows the
shortcuts but leaves the keys to the widget with the focus (a list's Ctrl+A, a label's Ctrl+C), which
is how an editor handles them anyway: the shortcuts are live only inside the open menu.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QPlainTextEdit

from domain_drafter.gui.editor.code_editor import CodeEditor

COMMANDS = (("Undo", QKeySequence.StandardKey.Undo, "undo"), ("Redo", QKeySequence.StandardKey.Redo, "redo"),
            ("Cut", QKeySequence.StandardKey.Cut, "cut"), ("Copy", QKeySequence.StandardKey.Copy, "copy"),
            ("Paste", QKeySequence.StandardKey.Paste, "paste"),
            ("Select all", QKeySequence.StandardKey.SelectAll, "selectAll"))


def add_edit_commands(menu: QMenu, editor: QPlainTextEdit) -> dict[str, QAction]:
    """Add the commands to `menu` for `editor` (or the text editor with the focus); name -> action."""

    def target() -> QPlainTextEdit:
        focused = QApplication.focusWidget()
        return focused if isinstance(focused, QPlainTextEdit) else editor

    actions: dict[str, QAction] = {}
    for text, key, method in COMMANDS:
        action = menu.addAction(text, lambda method=method: getattr(target(), method)())
        action.setShortcut(key)
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)   # shown, never taken from the focus
        actions[text] = action
    for text, signal in (("Undo", editor.undoAvailable), ("Redo", editor.redoAvailable),
                         ("Cut", editor.copyAvailable), ("Copy", editor.copyAvailable)):
        actions[text].setEnabled(False)
        signal.connect(actions[text].setEnabled)
    return actions


def add_zoom_commands(menu: QMenu, editor: CodeEditor) -> None:
    """Zoom in, Zoom out, Reset zoom of `editor`, after a separator."""
    menu.addSeparator()
    menu.addAction("Zoom in", QKeySequence.StandardKey.ZoomIn, editor.zoom_in)
    menu.addAction("Zoom out", QKeySequence.StandardKey.ZoomOut, editor.zoom_out)
    menu.addAction("Reset zoom", QKeySequence("Ctrl+0"), editor.reset_zoom)
