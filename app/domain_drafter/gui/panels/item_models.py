"""Qt item models over plain data: predicates with their NL templates, findings, a plan, ARE terms."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from domain_drafter.core.answers import Finding
from domain_drafter.core.are import AreReport
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import fill
from domain_drafter.gui.look.colours import current_scheme

Index = QModelIndex | QPersistentModelIndex
DisplayRole = Qt.ItemDataRole.DisplayRole
ToolTipRole = Qt.ItemDataRole.ToolTipRole
SpanRole = Qt.ItemDataRole.UserRole + 1       # FindingListModel: (start, end) in the answer
FailingRole = Qt.ItemDataRole.UserRole + 2    # PlanStepListModel: True on the failing row



class ReadOnlyTable(QAbstractTableModel):
    """A table of plain rows under fixed HEADERS, selectable but not editable (subclasses give rows and data)."""

    HEADERS: tuple[str, ...] = ()

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DisplayRole) -> Any:
        if role == DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.HEADERS):
            return self.HEADERS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


# --- predicates ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PredicateRow:
    signature: str   # (on ?x - block ?y - block)
    text: str        # block ?x is on top of block ?y
    negated: str


def predicate_rows(bundle: DomainBundle) -> list[PredicateRow]:
    """One row per declared predicate; empty texts where the bundle has no template."""
    rows = []
    predicates = bundle.descriptions.predicates if bundle.descriptions else {}
    for signature in bundle.domain.predicates:
        entry = predicates.get(signature.name)
        names = {p.name.lstrip("?"): p.name for p in signature.parameters}
        rows.append(PredicateRow(str(signature), fill(entry.text, names) if entry else "",
                                 fill(entry.negated, names) if entry else ""))
    return rows


class PredicateTableModel(ReadOnlyTable):
    HEADERS = ("Predicate", "Meaning", "When false")

    def __init__(self, rows: Sequence[PredicateRow] = (), parent: Any = None):
        super().__init__(parent)
        self._rows = list(rows)

    def set_rows(self, rows: Sequence[PredicateRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        row = self._rows[index.row()]
        value = (row.signature, row.text, row.negated)[index.column()]
        if role in (DisplayRole, ToolTipRole):
            return value
        if role == Qt.ItemDataRole.FontRole and index.column() == 0:
            font = QFont()
            font.setStyleHint(QFont.StyleHint.Monospace)
            font.setFamily("monospace")
            return font
        return None


# --- findings ------------------------------------------------------------------------------------
class FindingListModel(QAbstractListModel):
    """The findings of an answer, the deciding one first: `PAError: message`."""

    def __init__(self, findings: Sequence[Finding] = (), parent: Any = None):
        super().__init__(parent)
        self._findings = list(findings)

    def set_findings(self, findings: Sequence[Finding]) -> None:
        self.beginResetModel()
        self._findings = list(findings)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._findings)

    def data(self, index: Index, role: int = DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._findings)):
            return None
        finding = self._findings[index.row()]
        if role == DisplayRole:
            return f"{finding.subclass.value}: {finding.message}"
        if role == ToolTipRole:
            return finding.message
        if role == SpanRole:
            return finding.span
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(current_scheme().error_text))
        return None


# --- a counterexample plan -----------------------------------------------------------------------
class PlanStepListModel(QAbstractListModel):
    """Plan steps `1. (pick ball1 rooma left)`; the failing one (or a final goal row) highlighted."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self._steps: list[str] = []
        self._failing: int | None = None
        self._reason = ""

    def set_plan(self, steps: Sequence[str], failing: int | None = None, reason: str = "") -> None:
        """`failing`: 0-based row, len(steps) for "goal not reached" (adds a goal row), or None."""
        self.beginResetModel()
        self._steps = list(steps)
        self._failing = failing
        self._reason = reason
        self.endResetModel()

    @property
    def failing_row(self) -> int | None:
        return self._failing

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        goal_row = self._failing is not None and self._failing == len(self._steps)
        return len(self._steps) + (1 if goal_row else 0)

    def data(self, index: Index, role: int = DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < self.rowCount()):
            return None
        row = index.row()
        failing = row == self._failing
        if role == DisplayRole:
            mark = "  ✗" if failing else ""
            if row == len(self._steps):
                return f"goal{mark}"
            return f"{row + 1}. {self._steps[row]}{mark}"
        if role == FailingRole:
            return failing
        if not failing:
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(current_scheme().failing_row))
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        if role == ToolTipRole:
            return self._reason
        return None


# --- ARE terms -----------------------------------------------------------------------------------
class AreTableModel(ReadOnlyTable):
    """Rows pre / add / del / total; columns: value, atoms missing from the generated, extra atoms."""

    HEADERS = ("Term", "Value", "Missing (in reference only)", "Extra (in generated only)")
    TERMS = ("pre", "add", "del")

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self._are: AreReport | None = None

    def set_report(self, are: AreReport | None) -> None:
        self.beginResetModel()
        self._are = are
        self.endResetModel()

    @property
    def total(self) -> int | None:
        return self._are.total if self._are is not None else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or self._are is None else 4

    def data(self, index: Index, role: int = DisplayRole) -> Any:
        if not index.isValid() or self._are is None or not (0 <= index.row() < 4):
            return None
        row, col = index.row(), index.column()
        if row == 3:  # total
            if role == DisplayRole:
                return ("total", str(self._are.total), "", "")[col]
            if role == Qt.ItemDataRole.FontRole:
                font = QFont()
                font.setBold(True)
                return font
            return None
        term = self._are.terms[row]
        if role in (DisplayRole, ToolTipRole):
            return (term.name, str(term.value), " ".join(map(str, term.missing)),
                    " ".join(map(str, term.extra)))[col]
        if role == Qt.ItemDataRole.BackgroundRole and col in (2, 3):
            atoms = term.missing if col == 2 else term.extra
            if atoms:
                scheme = current_scheme()
                return QBrush(QColor(scheme.missing_line if col == 2 else scheme.extra_line))
        return None
