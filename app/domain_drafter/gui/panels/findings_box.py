"""The Tests panel's invariant findings: what the domain's other actions say of the judged action (issue 37).

A view over an `InvariantReport` (planning/invariant_findings.py): one row per finding, the dismissed ones
greyed below the others, each with the state where it shows as its tooltip (text/invariants.py). Dismiss
(or Restore, on a dismissed row) says what the author asked for through a signal; the window saves it
with the domain (core/dismissals.py) in a worker. Apply edit, on a finding that says an edit ("add (not (at ?obj
?room)) to the effect"), asks the window to make it in the answer and judge it again.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QListWidgetItem, QPushButton, QWidget

from domain_drafter.gui.look.colours import current_scheme
from domain_drafter.gui.panels.list_box import ListBox
from domain_drafter.planning.invariant_findings import InvariantFinding, InvariantReport, Severity, edit_in_words
from domain_drafter.text.invariants import finding_line, finding_tooltip

KeyRole = Qt.ItemDataRole.UserRole + 1         # the finding's key (what a dismissal names)
DismissedRole = Qt.ItemDataRole.UserRole + 2   # True on a dismissed finding's row
EditsRole = Qt.ItemDataRole.UserRole + 3       # the finding's edits in words ("" when it says none)


class InvariantFindingsBox(ListBox):
    """The findings on one action, Dismiss / Restore and Apply edit under them."""

    dismiss_requested = Signal(str, str, bool)   # the action, the finding's key, True: dismiss (False: restore)
    edit_requested = Signal(str, str)            # the action, the key of the finding whose edit to make

    def __init__(self, parent: QWidget | None = None):
        button = QPushButton("Dismiss")
        button.setObjectName("dismissFinding")
        button.setToolTip("The action means to do this: dismiss the finding for it, saved with the domain")
        edit = QPushButton("Apply edit")
        edit.setObjectName("applyFindingEdit")
        edit.setToolTip("Make the edit the finding says in the answer, and judge it again (Undo takes it back)")
        super().__init__("Invariant findings: judge an answer to see them.", button, name="invariant",
                         list_name="invariantFindings", more=(edit,), parent=parent)
        self.dismiss_button, self.edit_button = button, edit
        self.report: InvariantReport | None = None
        self.dismiss_button.clicked.connect(self._on_dismiss)
        self.edit_button.clicked.connect(self._on_edit)

    def show_report(self, report: InvariantReport | None, note: str = "") -> None:
        """The findings of `report` (None: none to show, `note` says why)."""
        self.report = report
        selected = self.selected_key()
        self.list.clear()
        if report is None:
            self.title.setText(note or "Invariant findings: judge an answer to see them.")
        else:
            shown, apart = len(report.findings), len(report.dismissed)
            head = (f"Invariant findings on {report.action}: {shown}" if shown
                    else f"Invariant findings on {report.action}: none")
            self.title.setText(head + (f" ({apart} dismissed)" if apart else "")
                               + ("" if report.complete else "; exploration incomplete"))
            for finding in report.findings:
                self._add(finding, dismissed=False)
            for finding in report.dismissed:
                self._add(finding, dismissed=True)
        for row in range(self.list.count()):
            if self.list.item(row).data(KeyRole) == selected:
                self.list.setCurrentRow(row)
        self._update_button()

    def _add(self, finding: InvariantFinding, *, dismissed: bool) -> None:
        item = QListWidgetItem(("dismissed: " if dismissed else "") + finding_line(finding))
        item.setToolTip(finding_tooltip(finding))
        item.setData(KeyRole, finding.key)
        item.setData(DismissedRole, dismissed)
        item.setData(EditsRole, "; ".join(edit_in_words(e) for e in finding.edits))
        scheme = current_scheme()
        colour = (scheme.muted_text if dismissed
                  else scheme.error_text if finding.severity is Severity.ERROR else scheme.text)
        item.setForeground(QBrush(QColor(colour)))
        self.list.addItem(item)

    def selected_key(self) -> str | None:
        item = self.list.currentItem()
        return item.data(KeyRole) if item is not None else None

    def rows(self) -> list[tuple[str, bool]]:
        """(key, dismissed) of each row, in order."""
        return [(self.list.item(r).data(KeyRole), bool(self.list.item(r).data(DismissedRole)))
                for r in range(self.list.count())]

    def _update_button(self) -> None:
        item = self.list.currentItem()
        dismissed = item is not None and bool(item.data(DismissedRole))
        self.dismiss_button.setText("Restore" if dismissed else "Dismiss")
        self.dismiss_button.setEnabled(item is not None and not self.busy)
        edits = item.data(EditsRole) if item is not None and not dismissed else ""
        self.edit_button.setEnabled(bool(edits))
        self.edit_button.setToolTip(f"In the answer: {edits}; then judge it again (Undo takes it back)" if edits
                                    else "The selected finding says no edit to make")

    def _on_dismiss(self) -> None:
        item = self.list.currentItem()
        if item is None or self.report is None or self.busy:
            return
        self.dismiss_requested.emit(self.report.action, item.data(KeyRole), not bool(item.data(DismissedRole)))

    def _on_edit(self) -> None:
        item = self.list.currentItem()
        if item is None or self.report is None or not item.data(EditsRole) or item.data(DismissedRole):
            return
        self.edit_requested.emit(self.report.action, item.data(KeyRole))
