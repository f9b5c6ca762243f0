"""The verdict: class badge, message, counterexample plan, and the ARE diff of the two actions."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.model import ActionSchema
from domain_drafter.gui.code_editor import CodeEditor, Mark, MarkKind
from domain_drafter.gui.models import AreTableModel, PlanStepListModel
from domain_drafter.gui.presentation import (
    EXTRA,
    MISSING,
    NEUTRAL_BADGE,
    BadgeStyle,
    DiffLine,
    are_panes,
    badge_style,
    badge_text,
    counterexample_title,
    failing_row,
    renaming_note,
)
from domain_drafter.planning.evaluate import EvaluationResult


class ClassBadge(QLabel):
    """A coloured label naming the result class (and subclass)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("classBadge")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.style_: BadgeStyle = NEUTRAL_BADGE
        self.show_badge("Not evaluated", NEUTRAL_BADGE)

    def show_badge(self, text: str, style: BadgeStyle) -> None:
        self.style_ = style
        self.setText(text)
        self.setStyleSheet(f"QLabel#classBadge {{ background: {style.background}; color: {style.foreground}; "
                           "border-radius: 6px; padding: 8px 14px; font-weight: bold; font-size: 13pt; }")


class ResultPanel(QWidget):
    """Shows one EvaluationResult; `clear()` and `show_note()` for the states in between."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.badge = ClassBadge()
        self.message = QLabel()
        self.message.setObjectName("resultMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        # counterexample
        self.plan_model = PlanStepListModel(parent=self)
        self.plan_view = QListView()
        self.plan_view.setObjectName("counterexamplePlan")
        self.plan_view.setModel(self.plan_model)
        self.plan_title = QLabel()
        self.plan_title.setWordWrap(True)
        self.plan_reason = QLabel()
        self.plan_reason.setWordWrap(True)
        self.counterexample_box = QGroupBox("Counterexample")
        cx_layout = QVBoxLayout(self.counterexample_box)
        cx_layout.addWidget(self.plan_title)
        cx_layout.addWidget(self.plan_view)
        cx_layout.addWidget(self.plan_reason)

        # ARE
        self.are_model = AreTableModel(parent=self)
        self.are_table = QTableView()
        self.are_table.setObjectName("areTable")
        self.are_table.setModel(self.are_model)
        self.are_table.verticalHeader().setVisible(False)
        header = self.are_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.are_table.setMaximumHeight(150)
        self.are_total = QLabel()
        self.are_total.setObjectName("areTotal")
        self.reference_view = CodeEditor(read_only=True)
        self.reference_view.setObjectName("areReference")
        self.generated_view = CodeEditor(read_only=True)
        self.generated_view.setObjectName("areGenerated")
        panes = QHBoxLayout()
        for title, view in (("Reference (missing atoms marked)", self.reference_view),
                            ("Generated (extra atoms marked)", self.generated_view)):
            column = QVBoxLayout()
            column.addWidget(QLabel(title))
            column.addWidget(view)
            panes.addLayout(column)
        self.are_box = QGroupBox("Action Reconstruction Error")
        are_layout = QVBoxLayout(self.are_box)
        are_layout.addWidget(self.are_total)
        are_layout.addWidget(self.are_table)
        are_layout.addLayout(panes, 1)

        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Result</b>"))
        layout.addWidget(self.badge)
        layout.addWidget(self.message)
        layout.addWidget(self.counterexample_box, 1)
        layout.addWidget(self.are_box, 2)
        self.result: EvaluationResult | None = None
        self.clear()

    # --- states ----------------------------------------------------------------------------
    def clear(self, note: str = "") -> None:
        self.result = None
        self.badge.show_badge("Not evaluated", NEUTRAL_BADGE)
        self.message.setText(note)
        self._show_counterexample(None)
        self.are_model.set_report(None)
        self.are_total.setText("")
        self.reference_view.setPlainText("")
        self.generated_view.setPlainText("")
        self.are_box.setEnabled(False)

    def show_note(self, note: str) -> None:
        """A line under the badge (e.g. the answer was edited since it was judged)."""
        self.message.setText(note)

    def show_result(self, result: EvaluationResult, reference: ActionSchema) -> None:
        self.result = result
        self.badge.show_badge(badge_text(result), badge_style(result))
        message = result.message
        if result.error:
            message = f"No verdict: {result.error}"
        elif result.cached:
            message += "  (cached verdict)"
        self.message.setText(message)
        self._show_counterexample(result)
        self._show_are(result, reference)

    def _show_counterexample(self, result: EvaluationResult | None) -> None:
        cx = result.equivalence.counterexample if result is not None and result.equivalence else None
        self.counterexample_box.setVisible(cx is not None)
        if cx is None:
            self.plan_model.set_plan([])
            self.plan_title.setText("")
            self.plan_reason.setText("")
            return
        row = failing_row(cx)
        reason = cx.validation.message if cx.validation is not None else cx.message
        self.plan_title.setText(counterexample_title(cx))
        self.plan_model.set_plan(cx.plan, row, reason)
        self.plan_reason.setText(reason if cx.plan else "")
        self.plan_view.setVisible(bool(cx.plan))
        self._layout.setStretchFactor(self.counterexample_box, 1 if cx.plan else 0)
        self.plan_view.clearSelection()  # a selection would paint over the failing row's colour
        if row is not None:
            self.plan_view.scrollTo(self.plan_model.index(row, 0))

    def _show_are(self, result: EvaluationResult, reference: ActionSchema) -> None:
        are = result.are
        self.are_model.set_report(are)
        self.are_box.setEnabled(are is not None)
        if are is None:
            self.are_total.setText("ARE: not defined (the answer does not parse as an action)")
        else:
            values = "  ".join(f"{t.name} {t.value}" for t in are.terms)
            note = renaming_note(are)
            self.are_total.setText(f"<b>ARE {are.total}</b> = {values}" + (f"  <i>({note})</i>" if note else ""))
        ref_lines, gen_lines = are_panes(reference, result.check.action, are)
        self._fill(self.reference_view, ref_lines, MarkKind.MISSING, MISSING)
        self._fill(self.generated_view, gen_lines, MarkKind.EXTRA, EXTRA)

    @staticmethod
    def _fill(view: CodeEditor, lines: list[DiffLine], kind: MarkKind, mark: str) -> None:
        view.setPlainText("\n".join(line.text for line in lines))
        view.set_marks([Mark(kind, line=i) for i, line in enumerate(lines) if line.mark == mark])
