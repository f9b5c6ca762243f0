"""A window showing the exact prompt the model gets for the selected action."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from domain_drafter.core.prompt import Prompt
from domain_drafter.gui.editor.code_editor import CodeEditor


class PromptDialog(QDialog):
    """Non-modal: the prompt text, which examples it uses, and a copy button."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Prompt")
        self.resize(820, 700)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.text_view = CodeEditor(read_only=True)
        self.text_view.setObjectName("promptText")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton("Copy")
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text_view.toPlainText()))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text_view, 1)
        layout.addWidget(buttons)

    def show_prompt(self, prompt: Prompt) -> None:
        examples = ", ".join(f"{e.domain}/{e.action}" for e in prompt.examples) or "none"
        self.setWindowTitle(f"Prompt: {prompt.domain} / {prompt.action}")
        self.summary.setText(f"Description class <b>{prompt.description_class.value}</b>, seed {prompt.seed}. "
                             f"Examples: {examples}. {len(prompt.text)} characters.")
        self.text_view.setPlainText(prompt.text)
