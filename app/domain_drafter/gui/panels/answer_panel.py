"""The answer: the model's (or the user's) PDDL in a highlighted editor, its findings underneath."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QLabel, QListView, QSplitter, QVBoxLayout, QWidget

from domain_drafter.core.answers import Finding, Span
from domain_drafter.gui.editor.code_editor import CodeEditor, Mark, MarkKind
from domain_drafter.gui.editor.find_bar import FindBar
from domain_drafter.gui.panels.item_models import FindingListModel, SpanRole
from domain_drafter.planning.invariant_findings import InvariantFinding, Severity
from domain_drafter.text.invariants import finding_tooltip

IDLE_PLACEHOLDER = "The generated action appears here. You can also type or paste an action and press Evaluate."


class AnswerPanel(QWidget):
    """Editor (read-only while a job runs) with findings underlined and listed.

    Spans of the findings index `source`, the exact answer the engine judged; the editor shows
    it with line breaks normalised, and the marks are mapped onto it (see code_editor).
    """

    edited = Signal()   # the user changed the text (not a programmatic change)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.editor = CodeEditor()
        self.editor.setObjectName("answerEditor")
        self.editor.setPlaceholderText(IDLE_PLACEHOLDER)
        self.finding_model = FindingListModel(parent=self)
        self.finding_list = QListView()
        self.finding_list.setModel(self.finding_model)
        self.finding_list.setWordWrap(True)
        self.finding_list.setObjectName("findingList")
        self.finding_list.clicked.connect(self._on_finding_clicked)
        self.title = QLabel("Answer")
        self.title.setObjectName("panelTitle")
        self.find_bar = FindBar(self.editor)
        editor_box = QWidget()
        editor_layout = QVBoxLayout(editor_box)
        editor_layout.setContentsMargins(0, 0, 0, 0)
        editor_layout.setSpacing(0)
        editor_layout.addWidget(self.editor, 1)
        editor_layout.addWidget(self.find_bar)

        findings = QWidget()
        findings_layout = QVBoxLayout(findings)
        findings_layout.setContentsMargins(0, 0, 0, 0)
        self.findings_title = QLabel("Findings")
        self.findings_title.setWordWrap(True)   # a long title wraps; it never widens the window
        findings_layout.addWidget(self.findings_title)
        findings_layout.addWidget(self.finding_list)

        splitter = self.splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("answerSplitter")
        splitter.addWidget(editor_box)
        splitter.addWidget(findings)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([320, 90])
        splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(splitter)

        self._source = ""
        self._last_text = ""
        self._programmatic = False
        self.editor.textChanged.connect(self._on_text_changed)

    # --- text ------------------------------------------------------------------------------
    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        self._programmatic = True
        try:
            self.editor.setPlainText(text)
        finally:
            self._programmatic = False

    def append_text(self, text: str) -> None:
        self._programmatic = True
        try:
            self.editor.append_text(text)
        finally:
            self._programmatic = False

    def set_busy(self, busy: bool) -> None:
        self.editor.setReadOnly(busy)
        if not busy:
            self.editor.setPlaceholderText(IDLE_PLACEHOLDER)

    def show_waiting(self, model: str) -> None:
        """While a generation runs, the empty editor says what it waits for, not how to use it (until set_busy(False))."""
        self.editor.setPlaceholderText(f"Waiting for {model} to write the action…")

    def show_find(self) -> None:
        self.find_bar.open_bar()

    # --- findings --------------------------------------------------------------------------
    def show_findings(self, findings: Sequence[Finding], source: str, invariants: Sequence[InvariantFinding] = (),
                      action_span: Span | None = None) -> None:
        """Underline each finding's span of `source` (the judged answer) and list the messages; the invariant
        findings (those not dismissed) underline the action's span, with the state where each shows."""
        self._source = source
        self.finding_model.set_findings(findings)
        title = f"Findings ({len(findings)})" if findings else "Findings: none"
        if invariants and action_span is not None:
            n = len(invariants)
            title += f"; {n} invariant finding{'s' if n != 1 else ''} (underlined; Tests panel)"
        self.findings_title.setText(title)
        marks = [Mark(MarkKind.ERROR, f.span[0], f.span[1], tooltip=f.message) for f in findings]
        if action_span is not None:
            marks += [Mark(MarkKind.ERROR if f.severity is Severity.ERROR else MarkKind.WARNING, *action_span,
                           tooltip=finding_tooltip(f)) for f in invariants]
        self.editor.set_marks(marks, source)

    def clear_findings(self) -> None:
        self._source = ""
        self.finding_model.set_findings([])
        self.findings_title.setText("Findings")
        self.editor.clear_marks()

    def _on_finding_clicked(self, index: QModelIndex) -> None:
        span = self.finding_model.data(index, SpanRole)
        if span is not None:
            self.editor.select_span(span[0], span[1], self._source or None)

    def _on_text_changed(self) -> None:
        text = self.editor.toPlainText()
        if self._programmatic or text == self._last_text:   # re-highlighting also signals a change
            self._last_text = text
            return
        self._last_text = text
        if self.editor.marks:
            self.clear_findings()  # the spans no longer fit the text
        self.edited.emit()
