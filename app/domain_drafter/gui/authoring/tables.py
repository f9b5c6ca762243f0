"""Table models for the authoring window: the actions of a working copy with their states, and one action's attempts.

It reads a `WorkingCopy` (plain Python data); after a change `changed(name)` updates that row in place
(or inserts it for a new action), so views keep their selection.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from domain_drafter.core.classes import Subclass
from domain_drafter.drafting.workspace import ActionEntry, Attempt, WorkingCopy
from domain_drafter.gui.look.colours import current_scheme
from domain_drafter.gui.panels.item_models import ReadOnlyTable
from domain_drafter.text.verdicts import format_are

Index = QModelIndex | QPersistentModelIndex
DisplayRole = Qt.ItemDataRole.DisplayRole
NameRole = Qt.ItemDataRole.UserRole + 1


def last_verdict(entry: ActionEntry) -> str:
    """The latest attempt's subclass, or what the state implies."""
    if not entry.attempts:
        return ""
    attempt = entry.attempts[-1]
    return attempt.subclass or ("passed the checks" if attempt.message else "not judged")


def verdict_colour(subclass: str | None) -> str | None:
    """The class colour of a subclass name (the same scheme the result panel uses)."""
    if not subclass:
        return None
    try:
        result_class = Subclass.from_name(subclass).result_class
    except ValueError:
        return None
    return current_scheme().class_text.get(result_class)


class ActionStateModel(ReadOnlyTable):
    """One row per action: name, state (reference / drafted / accepted / new), latest verdict."""

    HEADERS = ("Action", "State", "Latest verdict")

    def __init__(self, workspace: WorkingCopy, parent=None):
        super().__init__(parent)
        self.workspace = workspace
        self._names = list(workspace.entries)

    def changed(self, name: str) -> None:
        """Action `name` changed (an attempt, accept or revert) or was added: update its row only."""
        if name in self._names:
            row = self._names.index(name)
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
            return
        if name in self.workspace.entries:
            row = len(self._names)
            self.beginInsertRows(QModelIndex(), row, row)
            self._names.append(name)
            self.endInsertRows()

    def name_at(self, row: int) -> str:
        return self._names[row]

    def row_of(self, name: str) -> int:
        return self._names.index(name)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._names)

    def data(self, index: Index, role: int = DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._names):
            return None
        entry = self.workspace.entries[self._names[index.row()]]
        column = index.column()
        if role == DisplayRole:
            return (entry.name, entry.state, last_verdict(entry))[column]
        if role == NameRole:
            return entry.name
        if role == Qt.ItemDataRole.ForegroundRole and column == 2 and entry.attempts:
            colour = verdict_colour(entry.attempts[-1].subclass)
            return QBrush(QColor(colour)) if colour else None
        if role == Qt.ItemDataRole.FontRole and entry.state == "accepted":
            font = QFont()
            font.setBold(True)
            return font
        return None


def attempt_label(attempt: Attempt) -> str:
    """`2. model tiny-llama.gguf, 12:03:55: UToken: ...` for the history list (whole: the list wraps it)."""
    origin = f"model {attempt.model}" if attempt.source == "model" and attempt.model else attempt.source
    clock = attempt.time[11:19] if len(attempt.time) >= 19 else attempt.time
    if attempt.subclass is None:   # it passed the checks; its message says so
        return f"{attempt.number}. {origin}, {clock}: {attempt.message or 'passed the checks'}"
    message = f": {attempt.message}" if attempt.message else ""
    return f"{attempt.number}. {origin}, {clock}: {attempt.subclass}{message}"


def attempt_comparison(workspace: WorkingCopy, name: str, row: int, editor_text: str) -> list[str]:
    """Attempt `row` of `name` (or the editor's text, for no row) against the reference action: checks and ARE."""
    from domain_drafter.core.are import action_reconstruction_error

    entry = workspace.entries[name]
    attempt = entry.attempts[row] if 0 <= row < len(entry.attempts) else None
    text = attempt.text if attempt is not None else editor_text
    report = workspace.check(name, text)
    head = f"attempt {attempt.number}" if attempt is not None else "the editor's text"
    lines = [f"{name}, {head}: " + (f"{report.subclass.value}: {report.findings[0].message}"
                                    if report.findings else "passes the syntax and semantic checks")]
    if attempt is not None and attempt.subclass:
        lines.append(f"  verdict when drafted: {attempt.subclass}: {attempt.message}")
    if report.action is not None and entry.reference is not None:
        lines += format_are(action_reconstruction_error(entry.reference, report.action))
        lines += ["", "reference:", entry.reference.to_pddl(indent=""), "", head + ":",
                  report.action.to_pddl(indent="")]
    elif entry.reference is None:
        lines.append("  a new action: there is no reference to compare with (use Try it)")
    return lines
