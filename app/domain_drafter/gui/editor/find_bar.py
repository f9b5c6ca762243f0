"""A find bar under an editor: type to find, Enter / Shift+Enter for next / previous, Esc closes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QToolButton, QWidget


class FindBar(QWidget):
    def __init__(self, editor: QPlainTextEdit, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("findBar")
        self.editor = editor
        self.field = QLineEdit()
        self.field.setObjectName("findField")
        self.field.setPlaceholderText("Find in the answer")
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(lambda _text: self.find(from_start=True))
        self.field.returnPressed.connect(self.find)
        self.status = QLabel()
        previous = QToolButton()
        previous.setText("↑")
        previous.setToolTip("Previous (Shift+Enter)")
        previous.clicked.connect(lambda: self.find(backward=True))
        following = QToolButton()
        following.setText("↓")
        following.setToolTip("Next (Enter)")
        following.clicked.connect(lambda: self.find())
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Close (Esc)")
        close.clicked.connect(self.close_bar)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self.field, 1)
        layout.addWidget(previous)
        layout.addWidget(following)
        layout.addWidget(self.status)
        layout.addWidget(close)
        self.hide()

    def open_bar(self) -> None:
        selected = self.editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.field.setText(selected)
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.editor.setFocus()

    def find(self, *, backward: bool = False, from_start: bool = False) -> bool:
        """Select the next (or previous) match, wrapping around; True if there is one."""
        text = self.field.text()
        if not text:
            self.status.setText("")
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if from_start:
            cursor = self.editor.textCursor()
            cursor.setPosition(cursor.selectionStart())
            self.editor.setTextCursor(cursor)
        found = self.editor.find(text, flags)
        if not found:   # wrap around
            cursor = self.editor.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
            self.editor.setTextCursor(cursor)
            found = self.editor.find(text, flags)
        self.status.setText("" if found else "not found")
        return found

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.find(backward=True)
            return
        super().keyPressEvent(event)
