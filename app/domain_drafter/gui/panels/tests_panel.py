"""The Tests panel: the domain's test cases green (pass), red (fail) or grey (unproven, not run), and the
evidence of the one clicked (its plan, the step and atoms that matter, the state, the reason), and under the
cases the invariant findings on the judged action (findings_box.py: Dismiss / Restore) and, for a domain with
few tests, the starter cases to keep (starters_box.py).

A view over the engine's plain data (core.domain_tests cases, planning.tests_report results): it runs
nothing and writes nothing. Its buttons say what the user asked for through signals; the authoring
window's tests controller (gui/authoring/tests.py) does it, in workers. Quick fixes are listed with
their diff, each applied by one click (Apply), and Undo puts the action back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.classes import ResultClass
from domain_drafter.core.domain_tests import Case, CaseKind
from domain_drafter.gui.look.colours import current_scheme
from domain_drafter.gui.panels.distinguishing_state import _plain_label, fit_to_rows
from domain_drafter.gui.panels.findings_box import InvariantFindingsBox
from domain_drafter.gui.panels.item_models import PlanStepListModel
from domain_drafter.gui.panels.starters_box import StarterCasesBox
from domain_drafter.planning.tests_report import CaseResult, TestsReport, Verdict

Index = QModelIndex | QPersistentModelIndex
VerdictRole = Qt.ItemDataRole.UserRole + 1   # "pass", "fail", "unproven"; None: not run
_MARK = {Verdict.PASS: "pass", Verdict.FAIL: "FAIL", Verdict.UNPROVEN: "open", None: "not run"}


@dataclass(frozen=True)
class CaseRow:
    """One case as the list shows it (a case of the file, and its result once run)."""

    name: str
    kind: str
    verdict: Verdict | None = None
    message: str = ""
    description: str = ""


def case_rows(cases: Sequence[Case], report: TestsReport | None) -> list[CaseRow]:
    results = {r.name: r for r in report.results} if report is not None else {}
    rows = []
    for case in cases:
        result = results.get(case.name)
        rows.append(CaseRow(case.name, case.kind.value, result.verdict if result else None,
                            result.message if result else "", case.description))
    return rows


def verdict_colour(verdict: Verdict | None) -> str:
    """Green, red or grey in the current scheme (the class colours, held to their contrast on `base`)."""
    scheme = current_scheme()
    if verdict is Verdict.PASS:
        return scheme.class_text[ResultClass.EQUIVALENT]
    if verdict is Verdict.FAIL:
        return scheme.class_text[ResultClass.SYNTAX_ERROR]
    return scheme.muted_text


class TestCaseListModel(QAbstractListModel):
    """`pass  name (kind)` rows coloured by verdict; rows update in place when only verdicts change."""

    __test__ = False

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self._rows: list[CaseRow] = []

    def set_rows(self, rows: Sequence[CaseRow]) -> None:
        rows = list(rows)
        if [r.name for r in rows] == [r.name for r in self._rows]:
            self._rows = rows   # same cases: the selection survives
            if rows:
                self.dataChanged.emit(self.index(0), self.index(len(rows) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row(self, number: int) -> CaseRow:
        return self._rows[number]

    def row_of(self, name: str) -> int:
        return next((n for n, r in enumerate(self._rows) if r.name == name), -1)

    @property
    def rows(self) -> tuple[CaseRow, ...]:
        return tuple(self._rows)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{_MARK[row.verdict]:<7} {row.name} ({row.kind})"
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(verdict_colour(row.verdict)))
        if role == Qt.ItemDataRole.FontRole and row.verdict is Verdict.FAIL:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(t for t in (row.description, row.message) if t)
        if role == VerdictRole:
            return row.verdict.value if row.verdict is not None else None
        return None


class TestEvidenceView(QWidget):
    """A case's result: what it asks and what happened, the plan (the step that matters marked), the atoms
    and the state there, and for an unproven case the reason."""

    __test__ = False

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = _plain_label("testTitle")
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.message = _plain_label("testMessage")
        self.plan_model = PlanStepListModel(parent=self)
        self.plan_view = QListView()
        self.plan_view.setObjectName("testPlan")
        self.plan_view.setModel(self.plan_model)
        self.plan_view.setWordWrap(True)
        self.atoms = _plain_label("testAtoms")
        self.binding = _plain_label("testBinding")
        self.state = _plain_label("testState")
        self.method = _plain_label("testMethod")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.message, self.plan_view, self.atoms, self.binding, self.state, self.method):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.result: CaseResult | None = None
        self.show_result(None)

    @property
    def plan(self) -> tuple[str, ...]:
        return self.result.evidence.plan if self.result is not None and self.result.evidence is not None else ()

    def show_result(self, result: CaseResult | None, row: CaseRow | None = None) -> None:
        self.result = result
        evidence = result.evidence if result is not None else None
        if result is None:
            self.title.setText(f"{row.name} ({row.kind}): not run yet" if row else "Click a case to see its evidence.")
            self.message.setText(row.description if row else "")
        else:
            words = {Verdict.PASS: "passes", Verdict.FAIL: "fails", Verdict.UNPROVEN: "is unproven"}[result.verdict]
            self.title.setText(f"{result.name} ({result.kind.value}) {words}")
            reason = "Why unproven: " if result.verdict is Verdict.UNPROVEN else ""
            self.message.setText(f"{reason}{result.message}")
        steps = list(evidence.plan) if evidence is not None else []
        failing = evidence.step - 1 if evidence is not None and evidence.step and steps else None
        verdict = evidence.validation.message if evidence is not None and evidence.validation else ""
        self.plan_model.set_plan(steps, failing, verdict)
        self.plan_view.setVisible(bool(steps))
        fit_to_rows(self.plan_view)
        self._line(self.atoms, "Atoms that matter there: ", evidence.atoms if evidence else ())
        self._line(self.binding, "With ", [f"{k} = {v}" for k, v in evidence.binding] if evidence else (), ", ")
        self._line(self.state, _state_head(result), evidence.state if evidence else ())
        where = f" on problem {evidence.problem}" if evidence is not None else ""
        self.method.setText(f"Decided by the {result.method}{where}" + (f", {result.states} states explored"
                            if result.states else "") if result is not None else "")

    @staticmethod
    def _line(label: QLabel, head: str, items: Sequence[str], sep: str = " ") -> None:
        label.setText(head + sep.join(items) if items else "")
        label.setVisible(bool(items))


def _state_head(result: CaseResult | None) -> str:
    """What the evidence's state is: the plan's end, or the state at the step that matters."""
    step = result.evidence.step if result is not None and result.evidence is not None else None
    if step is None:
        return "The state the plan reaches: "
    check = result.evidence.validation if result is not None and result.evidence is not None else None
    if result is not None and result.kind is CaseKind.EFFECT and check is not None and check.valid:
        return f"The state after step {step}: "   # the action applied: the state it made
    return f"The state before step {step}: "


class TestsPanel(QWidget):
    """The case list, the evidence of the selected case, and the quick fixes of a failing one."""

    case_selected = Signal(str)
    run_requested = Signal()
    fixes_requested = Signal(str)       # the failing case
    apply_requested = Signal(int)       # the row of the fix in the list
    undo_requested = Signal()
    keep_plan_requested = Signal(str)   # the case whose evidence plan becomes a plan case
    new_case_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("testsPanel")
        self.summary = _plain_label("testsSummary")
        self.error = _plain_label("testsError")
        self.error.setStyleSheet(f"color: {current_scheme().error_text}")
        self.error.setVisible(False)
        self.model = TestCaseListModel(self)
        self.list = QListView()
        self.list.setObjectName("testCases")
        self.list.setModel(self.model)
        self.list.setSelectionMode(QListView.SelectionMode.SingleSelection)
        self.evidence = TestEvidenceView()
        labels = {"run": "Run tests", "fixes": "Quick fixes…", "keep": "Keep as expected plan",
                  "new": "New case…", "apply": "Apply fix", "undo": "Undo quick fix"}
        for key, text in labels.items():
            setattr(self, f"{key}_button", QPushButton(text))
        self.fixes_button.setToolTip("Search the smallest edits of one action that make every case pass")
        self.keep_button.setToolTip("Add a plan case: this plan must stay executable and reach what it reaches")
        self.fixes = QListWidget()
        self.fixes.setObjectName("quickFixes")
        self.diff = QPlainTextEdit()
        self.diff.setObjectName("quickFixDiff")
        self.diff.setReadOnly(True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setPlaceholderText("Quick fixes of a failing case show here, each as a diff of its action.")
        self.fixes_note = _plain_label("quickFixNote")
        top = QHBoxLayout()
        for button in (self.run_button, self.fixes_button, self.keep_button, self.new_button):
            top.addWidget(button)
        top.addWidget(self.summary, 1)
        fix_box = QWidget()
        fix_layout = QVBoxLayout(fix_box)
        fix_layout.setContentsMargins(0, 0, 0, 0)
        fix_buttons = QHBoxLayout()
        fix_buttons.addWidget(self.apply_button)
        fix_buttons.addWidget(self.undo_button)
        fix_buttons.addStretch(1)
        for widget in (self.fixes_note, self.fixes, self.diff):
            fix_layout.addWidget(widget)
        fix_layout.addLayout(fix_buttons)
        self.findings = InvariantFindingsBox()   # what the other actions say of the judged action
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.list)
        left.addWidget(self.findings)
        self.starters = StarterCasesBox()        # for a domain with few tests: what the engine knows, to keep
        left.addWidget(self.starters)
        split = QSplitter()
        for widget in (left, self.evidence, fix_box):
            split.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addWidget(split, 1)
        self.list.selectionModel().currentRowChanged.connect(self._on_current)
        self.fixes.currentRowChanged.connect(self._on_fix)
        self.run_button.clicked.connect(self.run_requested)
        self.fixes_button.clicked.connect(lambda: self.selected() and self.fixes_requested.emit(self.selected()))
        self.keep_button.clicked.connect(lambda: self.selected() and self.keep_plan_requested.emit(self.selected()))
        self.new_button.clicked.connect(self.new_case_requested)
        self.apply_button.clicked.connect(lambda: self.fixes.currentRow() >= 0
                                          and self.apply_requested.emit(self.fixes.currentRow()))
        self.undo_button.clicked.connect(self.undo_requested)
        self._diffs: list[str] = []

    def selected(self) -> str | None:
        index = self.list.currentIndex()
        return self.model.row(index.row()).name if index.isValid() else None

    def select(self, name: str) -> None:
        row = self.model.row_of(name)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))

    def show_cases(self, rows: Sequence[CaseRow], summary: str) -> None:
        self.error.setVisible(False)
        self.model.set_rows(rows)
        self.summary.setText(summary)

    def show_error(self, text: str) -> None:
        """A tests file that cannot be read: its file:line and what, in place of the verdicts."""
        self.error.setText(text)
        self.error.setVisible(True)
        self.summary.setText("The tests file has a mistake: nothing was run.")

    def show_fixes(self, summaries: Sequence[str], diffs: Sequence[str], note: str) -> None:
        self._diffs = list(diffs)
        self.fixes.clear()
        self.fixes.addItems(list(summaries))
        self.fixes_note.setText(note)
        self.diff.setPlainText("")
        if summaries:
            self.fixes.setCurrentRow(0)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.case_selected.emit(self.model.row(current.row()).name)

    def _on_fix(self, row: int) -> None:
        self.diff.setPlainText(self._diffs[row] if 0 <= row < len(self._diffs) else "")
