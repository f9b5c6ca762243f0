"""The New action dialog: name, typed parameters, a one-line summary, conditions and effects in words."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QWidget

from domain_drafter.drafting.workspace import NewActionSpec
from domain_drafter.gui.authoring_jobs import parse_parameters


class NewActionDialog(QDialog):
    """Name, typed parameters, a one-line summary and (optionally) conditions and effects in words."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New action")
        form = QFormLayout(self)
        self.name = QLineEdit()
        self.parameters = QLineEdit()
        self.parameters.setPlaceholderText("?obj - ball ?to - room")
        self.summary = QLineEdit()
        self.summary.setPlaceholderText("The robot ... {obj} ... {to}.")
        self.conditions = QLineEdit()
        self.effects = QLineEdit()
        for label, widget in (("Name", self.name), ("Parameters", self.parameters), ("Summary", self.summary),
                              ("Conditions (words)", self.conditions), ("Effects (words)", self.effects)):
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def spec(self) -> NewActionSpec:
        return NewActionSpec(self.name.text().strip(), parse_parameters(self.parameters.text()),
                             self.summary.text().strip(), self.conditions.text().strip(), self.effects.text().strip())
