"""The verdict: class badge (a link to its explanation), message, counterexample plan, ARE diff.

The counterexample and the diff each get a whole tab, so that both fit without scrolling on a
1280x800 screen; the tab that explains the verdict is brought forward. A proven difference
(METHOD 6a) shows its distinguishing state there instead of the heuristic's plan
(`distinguishing_state.py`, with **Save as problem…**). The proof's texts come from the Qt-free
`domain_drafter.text.proof`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QSizePolicy,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.model import ActionSchema
from domain_drafter.gui.editor.code_editor import CodeEditor, Mark, MarkKind
from domain_drafter.gui.look.colours import BadgeStyle, current_scheme
from domain_drafter.gui.panels.distinguishing_state import DistinguishingStateView, fit_to_rows
from domain_drafter.gui.panels.item_models import AreTableModel, PlanStepListModel
from domain_drafter.gui.panels.result_display import (
    EXTRA,
    MISSING,
    DiffLine,
    are_panes,
    badge_style,
    badge_text,
    counterexample_title,
    failing_row,
    renaming_note,
)
from domain_drafter.planning.evaluate import EvaluationResult
from domain_drafter.text.proof import proof_headline

COUNTEREXAMPLE_TAB, DIFF_TAB = 0, 1
COUNTEREXAMPLE_TAB_NAME = "Distinguishing state"   # one name on every verdict, as in the authoring window


class ClassBadge(QLabel):
    """A coloured label naming the result class (and subclass); a click asks for its explanation."""

    clicked = Signal(object)   # the ResultClass shown, or None

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("classBadge")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.result_class: ResultClass | None = None
        self.style_: BadgeStyle = current_scheme().neutral_badge
        self.show_badge("Not evaluated", self.style_)

    def show_badge(self, text: str, style: BadgeStyle, result_class: ResultClass | None = None) -> None:
        self.style_ = style
        self.result_class = result_class
        self.setText(text)
        self.setToolTip("What this class means (Help ▸ Result classes)")
        self.setStyleSheet(f"QLabel#classBadge {{ background: {style.background}; color: {style.foreground}; "
                           "border-radius: 6px; padding: 7px 14px; font-weight: bold; font-size: 13pt; }")

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.result_class)
        super().mousePressEvent(event)


class ResultPanel(QWidget):
    """Shows one EvaluationResult; `clear()` and `show_note()` for the states in between."""

    explain_requested = Signal(object)   # a ResultClass (or None: all classes)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.badge = ClassBadge()
        self.badge.clicked.connect(self.explain_requested)
        self.explain_link = QLabel()
        self.explain_link.setObjectName("explainLink")
        self.explain_link.linkActivated.connect(lambda _href: self.explain_requested.emit(self.badge.result_class))
        self.message = QLabel()
        self.message.setObjectName("resultMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        # counterexample
        self.plan_model = PlanStepListModel(parent=self)
        self.plan_view = QListView()
        self.plan_view.setObjectName("counterexamplePlan")
        self.plan_view.setModel(self.plan_model)
        self.plan_view.setWordWrap(True)
        self.plan_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.plan_title = QLabel()
        self.plan_title.setWordWrap(True)
        self.plan_reason = QLabel()
        self.plan_reason.setWordWrap(True)
        self.plan_reason.setObjectName("planReason")
        self.plan_reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.no_counterexample = QLabel()
        self.no_counterexample.setWordWrap(True)
        self.no_counterexample.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.counterexample_box = QWidget()
        self.counterexample_box.setObjectName("counterexampleTab")
        cx_layout = QVBoxLayout(self.counterexample_box)
        cx_layout.setContentsMargins(6, 6, 6, 6)
        cx_layout.addWidget(self.plan_title)
        cx_layout.addWidget(self.plan_view, 1)
        cx_layout.addWidget(self.plan_reason)
        self.proof_view = DistinguishingStateView()
        self.problem_saved = self.proof_view.problem_saved
        cx_layout.addWidget(self.proof_view, 1)
        cx_layout.addWidget(self.no_counterexample)
        cx_layout.addStretch(0)   # takes what the plan (capped at its own height) leaves

        # ARE
        self.are_model = AreTableModel(parent=self)
        self.are_table = QTableView()
        self.are_table.setObjectName("areTable")
        self.are_table.setModel(self.are_model)
        self.are_table.verticalHeader().setVisible(False)
        self.are_table.setWordWrap(True)
        self.are_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.are_table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.are_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.are_total = QLabel()
        self.are_total.setObjectName("areTotal")
        self.are_total.setWordWrap(True)
        self.reference_view = CodeEditor(read_only=True, line_numbers=False)
        self.reference_view.setObjectName("areReference")
        self.generated_view = CodeEditor(read_only=True, line_numbers=False)
        self.generated_view.setObjectName("areGenerated")
        panes = QHBoxLayout()
        panes.setSpacing(6)
        for title, view in (("Reference (missing atoms marked)", self.reference_view),
                            ("Generated (extra atoms marked)", self.generated_view)):
            column = QVBoxLayout()
            label = QLabel(title)
            label.setWordWrap(True)
            column.addWidget(label)
            column.addWidget(view, 1)
            panes.addLayout(column)
        self.are_box = QWidget()
        self.are_box.setObjectName("diffTab")
        are_layout = QVBoxLayout(self.are_box)
        are_layout.setContentsMargins(6, 6, 6, 6)
        are_layout.addWidget(self.are_total)
        are_layout.addWidget(self.are_table)
        are_layout.addLayout(panes, 1)

        self.hint = QLabel("Generate an action (Ctrl+G), or type one in the answer editor and press Evaluate "
                           "(Ctrl+Enter). The verdict, a counterexample plan and the difference from the "
                           "reference action appear here.")
        self.hint.setObjectName("resultHint")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("resultTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.counterexample_box, COUNTEREXAMPLE_TAB_NAME)
        self.tabs.addTab(self.are_box, "Diff (ARE)")

        badge_row = QHBoxLayout()
        badge_row.addWidget(self.badge, 1)
        badge_row.addWidget(self.explain_link)
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Result")
        title.setObjectName("panelTitle")
        layout.addWidget(title)
        layout.addLayout(badge_row)
        layout.addWidget(self.message)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.hint, 1)
        layout.addStretch(0)   # while neither shows (a job runs), the heading, badge and message stay at the top
        self.result: EvaluationResult | None = None
        self._reference: ActionSchema | None = None
        self._bundle: DomainBundle | None = None
        self._set_link()
        self.clear()

    # --- states ----------------------------------------------------------------------------
    def clear(self, note: str = "") -> None:
        self.result = None
        self._reference = None
        self.badge.show_badge("Not evaluated", current_scheme().neutral_badge)
        self.message.setText(note)
        self._show_counterexample(None)
        self.are_model.set_report(None)
        self.are_total.setText("")
        self.are_table.hide()
        for view in (self.reference_view, self.generated_view):
            view.setPlainText("")
            view.clear_marks()
        self.are_box.setEnabled(False)
        self.tabs.hide()
        self.hint.show()
        self.tabs.setTabText(DIFF_TAB, "Diff (ARE)")

    def show_working(self, note: str) -> None:
        """Cleared, saying what runs now (e.g. Generating with …): the how-to hint is hidden until a verdict."""
        self.clear(note)
        self.hint.hide()

    def show_unjudged(self, badge: tuple[str, BadgeStyle], note: str) -> None:
        """The verdict of an answer judged without a proof (e.g. a candidate the checks stopped): its badge, a note."""
        self.clear(note)
        self.badge.show_badge(*badge)
        self.hint.hide()

    def show_note(self, note: str) -> None:
        """A line under the badge (e.g. the answer was edited since it was judged)."""
        self.message.setText(note)

    def show_result(self, result: EvaluationResult, reference: ActionSchema,
                    bundle: DomainBundle | None = None) -> None:
        """`bundle`: the judged domain (Save as problem… proposes its problems/ folder and checks the goal)."""
        self.result = result
        self._reference = reference
        self._bundle = bundle
        self.badge.show_badge(badge_text(result), badge_style(result), result.result_class)
        message = proof_headline(result.proof, result.equivalence) if result.proof is not None else result.message
        if result.error:
            message = f"No verdict: {result.error.message}"
        else:
            score = result.proof.score if result.proof is not None and result.proof.proven else None
            if score is not None and result.subclass is not None and result.subclass.value != "Equivalent":
                message += f"\nScore: {score.words}."   # METHOD 6b: how close the answer came
            if result.cached:
                message += "  (cached verdict)"
        self.message.setText(message)
        self.hint.hide()
        self.tabs.show()
        has_cx = self._show_counterexample(result)
        self._show_are(result, reference)
        self.tabs.setCurrentIndex(COUNTEREXAMPLE_TAB if has_cx else DIFF_TAB)

    def _set_link(self) -> None:
        self.explain_link.setText(f'<a href="classes" style="color: {current_scheme().link}">What does it mean?</a>')

    def refresh_colours(self) -> None:
        """Redraw in the current scheme (after a light/dark switch)."""
        self._set_link()
        if self.result is not None and self._reference is not None:
            self.show_result(self.result, self._reference, self._bundle)
        else:
            self.badge.show_badge(self.badge.text(), current_scheme().neutral_badge)
        for view in (self.reference_view, self.generated_view):
            view.refresh_colours()

    def _show_counterexample(self, result: EvaluationResult | None) -> bool:
        proof = result.proof if result is not None else None
        proven_cx = proof.counterexample if proof is not None else None
        self.proof_view.setVisible(proven_cx is not None)
        if proven_cx is not None and result is not None:
            for widget in (self.plan_title, self.plan_view, self.plan_reason, self.no_counterexample):
                widget.hide()
            self.tabs.setTabEnabled(COUNTEREXAMPLE_TAB, True)
            self.proof_view.show_counterexample(proven_cx, result.action, self._bundle)
            return True
        cx = result.equivalence.counterexample if result is not None and result.equivalence else None
        self.tabs.setTabEnabled(COUNTEREXAMPLE_TAB, cx is not None)
        for widget in (self.plan_title, self.plan_view, self.plan_reason):
            widget.setVisible(cx is not None)
        self.no_counterexample.setVisible(cx is None)
        if cx is None:
            self.plan_model.set_plan([])
            self.plan_title.setText("")
            self.plan_reason.setText("")
            if proof is not None and proof.subclass is not None:
                self.no_counterexample.setText(f"No counterexample. {proof_headline(proof, result.equivalence)}")
            else:
                self.no_counterexample.setText(
                    "No counterexample: every plan of one domain is also a plan of the other."
                    if result is not None and result.equivalence is not None else
                    "A counterexample plan appears here when the answer is a Different domain.")
            return False
        row = failing_row(cx)
        reason = cx.validation.message if cx.validation is not None else cx.message
        self.plan_title.setText(f"<b>{counterexample_title(cx)}</b>")
        self.plan_model.set_plan(cx.plan, row, reason)
        # without a plan (NoPlan) the title says it all: the headline above already has the sentence
        self.plan_reason.setText(reason if cx.plan else "")
        self.plan_reason.setVisible(bool(cx.plan))
        self.plan_view.setVisible(bool(cx.plan))
        self.plan_view.clearSelection()  # a selection would paint over the failing row's colour
        fit_to_rows(self.plan_view)
        if row is not None:
            self.plan_view.scrollTo(self.plan_model.index(row, 0))
        return True

    def _show_are(self, result: EvaluationResult, reference: ActionSchema) -> None:
        are = result.are
        self.are_model.set_report(are)
        self.are_box.setEnabled(are is not None)
        self.are_table.setVisible(are is not None)
        if are is None:
            self.are_total.setText("ARE: not defined (the answer does not parse as an action)")
            self.tabs.setTabText(DIFF_TAB, "Diff (ARE)")
        else:
            values = "  ".join(f"{t.name} {t.value}" for t in are.terms)
            note = renaming_note(are)
            self.are_total.setText(f"<b>ARE {are.total}</b> = {values}" + (f"  <i>({note})</i>" if note else ""))
            self.tabs.setTabText(DIFF_TAB, f"Diff (ARE {are.total})")
            self.are_table.resizeRowsToContents()
            rows = self.are_model.rowCount()
            height = self.are_table.horizontalHeader().height() + 2 * self.are_table.frameWidth()
            height += sum(self.are_table.rowHeight(r) for r in range(rows))
            self.are_table.setFixedHeight(height)
        ref_lines, gen_lines = are_panes(reference, result.check.action, are)
        self._fill(self.reference_view, ref_lines, MarkKind.MISSING, MISSING)
        self._fill(self.generated_view, gen_lines, MarkKind.EXTRA, EXTRA)

    @staticmethod
    def _fill(view: CodeEditor, lines: list[DiffLine], kind: MarkKind, mark: str) -> None:
        view.setPlainText("\n".join(line.text for line in lines))
        view.set_marks([Mark(kind, line=i) for i, line in enumerate(lines) if line.mark == mark])
