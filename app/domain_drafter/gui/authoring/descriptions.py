"""Edit a working copy's descriptions in place: predicate sentences and action summaries, checked as typed.

A cell whose `{placeholders}` are not the predicate's variables (or the action's parameters)
is marked and not applied; a valid edit goes into the working copy at once, which saves it
with the domain.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from domain_drafter.core.descriptions import placeholders
from domain_drafter.core.errors import DrafterError
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.look.colours import current_scheme

KIND, NAME, VARIABLES, TEXT, NEGATED = range(5)


class DescriptionsEditor(QWidget):
    """One row per predicate (text, negated) and per action (summary)."""

    edited = Signal(str)        # "[predicates.on] text" after a valid edit was applied
    rejected = Signal(str)      # why an edit was not applied

    def __init__(self, workspace: WorkingCopy, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["", "Name", "Variables", "Sentence / summary", "Negated"])
        self.table.horizontalHeader().setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        self.message = QLabel()
        self.message.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.message)
        self._filling = False
        self.fill()
        self.table.itemChanged.connect(self._on_changed)

    def fill(self) -> None:
        self._filling = True
        descriptions = self.workspace.descriptions
        rows: list[tuple[str, str, str, str, str | None]] = []
        for p in self.workspace.reference.predicates:
            entry = descriptions.predicates.get(p.name) if descriptions else None
            rows.append(("predicate", p.name, " ".join(v.name.lstrip("?") for v in p.parameters),
                         entry.text if entry else "", entry.negated if entry else ""))
        for entry in self.workspace.entries.values():
            action = entry.reference or (entry.new.placeholder if entry.new else None)
            params = " ".join(n.lstrip("?") for n in action.parameter_names) if action else ""
            rows.append(("action", entry.name, params,
                         descriptions.actions.get(entry.name, "") if descriptions else "", None))
        self.table.setRowCount(len(rows))
        for r, (kind, name, variables, text, negated) in enumerate(rows):
            for c, value in enumerate((kind, name, variables, text, negated)):
                item = QTableWidgetItem(value if value is not None else "")
                if c in (KIND, NAME, VARIABLES) or (c == NEGATED and negated is None):
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(r, c, item)
        self._filling = False

    def row_of(self, kind: str, name: str) -> int:
        for r in range(self.table.rowCount()):
            if self.table.item(r, KIND).text() == kind and self.table.item(r, NAME).text() == name:
                return r
        raise KeyError(name)

    def _on_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() not in (TEXT, NEGATED):
            return
        row = item.row()
        kind, name = self.table.item(row, KIND).text(), self.table.item(row, NAME).text()
        variables = set(self.table.item(row, VARIABLES).text().split())
        unknown = placeholders(item.text()) - variables
        if unknown:
            said = ", ".join("{" + u + "}" for u in sorted(unknown))
            why = f"{name}: {said} is no variable (use {', '.join('{' + v + '}' for v in sorted(variables)) or 'none'})"
            self._mark(item, why)
            return
        try:
            if kind == "predicate":
                text, negated = self.table.item(row, TEXT).text(), self.table.item(row, NEGATED).text()
                self.workspace.set_predicate_text(name, text, negated or None)
                label = f"[predicates.{name}] {'text' if item.column() == TEXT else 'negated'}"
            else:
                self.workspace.set_action_summary(name, item.text())
                label = f"[actions.{name}] summary"
        except DrafterError as err:
            self._mark(item, err.what)
            return
        self._mark(item, None)
        self.message.setText(f"saved {label}" if self.workspace.folder else f"changed {label} (not saved yet)")
        self.edited.emit(label)

    def _mark(self, item: QTableWidgetItem, why: str | None) -> None:
        self._filling = True
        scheme = current_scheme()
        item.setBackground(QBrush(QColor(scheme.missing_line)) if why else QBrush())
        item.setToolTip(why or "")
        self._filling = False
        if why:
            self.message.setText(f"not applied: {why}")
            self.rejected.emit(why)
