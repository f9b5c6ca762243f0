"""New case…: a small form for a test case of any kind; it shows the keys of the kind chosen. And the list of
a state's atoms that Must never happen… picks from, before that form opens.

The form only gathers text: the case becomes a `[cases.NAME]` table (tests_jobs.case_table), which the
tests file's own reader checks against the domain before it is saved, so every mistake is reported
as the reader reports it (file:line and what), shown here, with the form kept open to correct it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.gui.authoring.tests_jobs import case_table

# the keys each kind shows, in form order (core.domain_tests.KIND_KEYS, with `goal` where it applies)
_SHOWN = {
    CaseKind.PLAN: ("plan", "reaches_goal", "goal"),
    CaseKind.PLAN_FAILS: ("plan", "at_step", "precondition"),
    CaseKind.REACHABLE: ("goal",),
    CaseKind.UNREACHABLE: ("goal",),
    CaseKind.NEVER: ("state",),
    CaseKind.APPLICABLE: ("after", "action"),
    CaseKind.NOT_APPLICABLE: ("after", "action"),
    CaseKind.EFFECT: ("after", "action", "holds", "not_holds"),
}
_LABELS = {"plan": "Plan (one step a line)", "reaches_goal": "Reaches the goal", "goal": "Goal (blank: the problem's)",
           "at_step": "Fails at step (0: any)", "precondition": "Because of (a literal)", "state": "State that never holds",
           "after": "After these steps (one a line)", "action": "Ground action", "holds": "Atoms that hold after it",
           "not_holds": "Atoms that do not hold after it"}


def _steps(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class NewCaseDialog(QDialog):
    """Name, kind, problem and the kind's keys; `table()` is the case as a tests-file table."""

    def __init__(self, problems: Sequence[str], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("newCaseDialog")
        self.setWindowTitle("New test case")
        self.name = QLineEdit()
        self.kind = QComboBox()
        self.kind.addItems([k.value for k in CaseKind])
        self.problem = QComboBox()
        self.problem.setEditable(True)
        self.problem.addItems(list(problems))
        self.fields: dict[str, QWidget] = {
            "plan": QPlainTextEdit(), "reaches_goal": QCheckBox(), "goal": QLineEdit(), "at_step": QSpinBox(),
            "precondition": QLineEdit(), "state": QLineEdit(), "after": QPlainTextEdit(), "action": QLineEdit(),
            "holds": QLineEdit(), "not_holds": QLineEdit(),
        }
        self.fields["reaches_goal"].setChecked(True)
        self.fields["at_step"].setRange(0, 10_000)
        self.fields["state"].setPlaceholderText("(and (holding ?x) (ontable ?x))")
        self.fields["action"].setPlaceholderText("(pick-up a)")
        self.form = QFormLayout()
        self.form.addRow("Name", self.name)
        self.form.addRow("Kind", self.kind)
        self.form.addRow("Problem", self.problem)
        for key, widget in self.fields.items():
            self.form.addRow(_LABELS[key], widget)
        self.error = QLabel()
        self.error.setObjectName("newCaseError")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.kind.currentTextChanged.connect(self._show_keys)
        self._show_keys(self.kind.currentText())
        self.fit_texts()

    def fit_texts(self) -> None:
        """Every one-line field wide enough for its text (and never under 50 characters), up to the screen's
        width: a name or a formula the author must edit is read whole."""
        metrics = self.fontMetrics()
        edits = [self.name, *(w for w in self.fields.values() if isinstance(w, QLineEdit))]
        widest = max(metrics.horizontalAdvance(e.text() or e.placeholderText()) for e in edits) + 24
        screen = self.screen().availableGeometry().width() if self.screen() is not None else 1280
        width = min(max(widest, 50 * metrics.averageCharWidth()), screen * 2 // 3)
        for edit in edits:
            edit.setMinimumWidth(width)
        self.adjustSize()

    def _show_keys(self, kind: str) -> None:
        shown = _SHOWN[CaseKind(kind)]
        for key, widget in self.fields.items():
            self.form.setRowVisible(widget, key in shown)

    def set_kind(self, kind: CaseKind) -> None:
        self.kind.setCurrentText(kind.value)

    def set_field(self, key: str, value: object) -> None:
        widget = self.fields[key]
        if isinstance(widget, QPlainTextEdit):
            widget.setPlainText("\n".join(value) if isinstance(value, (list, tuple)) else str(value))
        elif isinstance(widget, QCheckBox):
            widget.setChecked(bool(value))
        elif isinstance(widget, QSpinBox):
            widget.setValue(int(value))
        else:
            widget.setText(str(value))

    def values(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for key in _SHOWN[CaseKind(self.kind.currentText())]:
            widget = self.fields[key]
            if isinstance(widget, QPlainTextEdit):
                out[key] = _steps(widget.toPlainText())
            elif isinstance(widget, QCheckBox):
                out[key] = None if widget.isChecked() else False   # true is the default: not written
            elif isinstance(widget, QSpinBox):
                out[key] = widget.value() or None
            else:
                out[key] = widget.text().strip()
        return out

    def table(self) -> str:
        return case_table(self.name.text().strip(), self.kind.currentText(), self.problem.currentText().strip(),
                          self.values())


class StateAtomsDialog(QDialog):
    """A state's atoms, each with a check box (`checked` ticked first); `picked()` is the ticked ones, in order."""

    def __init__(self, title: str, atoms: Sequence[str], checked: Sequence[str], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("stateAtomsDialog")
        self.setWindowTitle("Must never happen")
        self.atoms = QListWidget()
        for atom in atoms:
            item = QListWidgetItem(atom)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if atom in checked else Qt.CheckState.Unchecked)
            self.atoms.addItem(item)
        label = QLabel(title)
        label.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (label, self.atoms, buttons):
            layout.addWidget(widget)

    def set_picked(self, atoms: Sequence[str]) -> None:
        for row in range(self.atoms.count()):
            item = self.atoms.item(row)
            item.setCheckState(Qt.CheckState.Checked if item.text() in atoms else Qt.CheckState.Unchecked)

    def picked(self) -> list[str]:
        items = (self.atoms.item(row) for row in range(self.atoms.count()))
        return [item.text() for item in items if item.checkState() == Qt.CheckState.Checked]
