"""The state where a proof (METHOD 6a) found the two domains part, and Save as problem….

Shows the prefix plan with the parting step marked, the atoms that matter there and what each
domain does. Where the window offers them (`offer_tests`), **Keep as test** and **Must never happen…** ask
the window to turn the counterexample into a case of the domain's tests (keep_test_requested,
never_requested: the window knows the tests file and the answer). **Save as problem…** writes the counterexample problem into the domain's
problems/ under a free name, so later answers are checked on it too; the save dialog asks
before replacing a file, and the writer never replaces one unasked. A bundled domain is never
written to: its problem goes into the user's copy of the domain (core/user_domains.py), and the
panel says where and how to judge answers on it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QListView, QPushButton, QVBoxLayout, QWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.errors import DrafterError
from domain_drafter.core.user_domains import ensure_user_copy, is_bundled, user_copy_folder
from domain_drafter.gui.panels.item_models import PlanStepListModel
from domain_drafter.gui.state.folders import Purpose, last_folder, remember_folder
from domain_drafter.planning.counterexample_problem import free_problem_path, reference_reaches_goal, save_problem
from domain_drafter.planning.proof_types import ProofCounterexample
from domain_drafter.text.proof import state_view


def _plain_label(name: str) -> QLabel:
    """A wrapping, selectable label that shows its text as it is (the text may quote an LLM's atoms)."""
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def fit_to_rows(view: QListView) -> None:
    """Cap a list's height at its content, so the labels under it stay close."""
    rows = view.model().rowCount()
    content = sum(max(view.sizeHintForRow(r), 1) for r in range(rows))
    view.setMaximumHeight(content + 2 * view.frameWidth() + 6)


class DistinguishingStateView(QWidget):
    """Where a proof found the domains part: the prefix plan, the atoms, what each domain does; Save as problem…"""

    problem_saved = Signal(object)   # the Path written
    keep_test_requested = Signal(object)   # the ProofCounterexample shown
    never_requested = Signal(object)       # the ProofCounterexample shown

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("distinguishingState")
        self.title = _plain_label("proofTitle")
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.plan_model = PlanStepListModel(parent=self)
        self.plan_view = QListView()
        self.plan_view.setObjectName("proofPlan")
        self.plan_view.setModel(self.plan_model)
        self.plan_view.setWordWrap(True)
        self.plan_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.atoms = _plain_label("proofAtoms")
        self.reference = _plain_label("proofReference")
        self.generated = _plain_label("proofGenerated")
        self.verdict = _plain_label("proofVerdict")
        self.goal = _plain_label("proofGoal")
        self.save_button = QPushButton("Save as problem…")
        self.save_button.setObjectName("saveProblem")
        self.save_button.setToolTip("Write this counterexample as a PDDL problem beside the domain's problems, "
                                    "so later answers are checked on it too")
        self.save_button.clicked.connect(self.ask_where_to_save)
        self.keep_button = QPushButton("Keep as test")
        self.keep_button.setObjectName("keepAsTest")
        self.keep_button.setToolTip("Add a case to the domain's tests.toml that asks for what the reference does "
                                    "here: the plan must work, or must fail at this step, or must leave these atoms")
        self.keep_button.clicked.connect(lambda: self.keep_test_requested.emit(self.counterexample))
        self.never_button = QPushButton("Must never happen…")
        self.never_button.setObjectName("mustNeverHappen")
        self.never_button.setToolTip("Pick atoms of the state the answer reaches here: a never case of the "
                                     "domain's tests, lifted to variables, to edit before it is saved")
        self.never_button.clicked.connect(lambda: self.never_requested.emit(self.counterexample))
        self.offer_tests(False)
        self.saved = _plain_label("proofSaved")
        save_row = QHBoxLayout()
        save_row.addWidget(self.save_button)
        save_row.addWidget(self.keep_button)
        save_row.addWidget(self.never_button)
        save_row.addWidget(self.saved, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.plan_view, self.atoms, self.reference, self.generated, self.verdict,
                       self.goal):
            layout.addWidget(widget)
        layout.addLayout(save_row)
        layout.addStretch(1)   # the rows keep their own height; the rest stays empty below
        self.counterexample: ProofCounterexample | None = None
        self.action = ""
        self.bundle: DomainBundle | None = None
        self.dialog: QFileDialog | None = None

    def offer_tests(self, offered: bool) -> None:
        """Show Keep as test and Must never happen… (a window that can save cases into tests.toml)."""
        self.keep_button.setVisible(offered)
        self.never_button.setVisible(offered)

    @property
    def folder(self) -> Path | None:
        """Where Save as problem… proposes to write: the domain's problems/, or for a bundled domain the
        problems/ of the user's copy of it (None without a bundle)."""
        if self.bundle is None:
            return None
        domain_folder = user_copy_folder(self.bundle) if is_bundled(self.bundle.folder) else self.bundle.folder
        return domain_folder / "problems"

    def show_counterexample(self, cx: ProofCounterexample, action: str, bundle: DomainBundle | None) -> None:
        self.counterexample, self.action, self.bundle = cx, action, bundle
        view = state_view(cx)
        self.title.setText(view.title)
        steps = [*view.prefix, view.step]
        self.plan_model.set_plan(steps, len(steps) - 1, view.verdict)
        self.plan_view.clearSelection()
        fit_to_rows(self.plan_view)
        self.atoms.setText("Atoms that matter there: " + " ".join(view.atoms) if view.atoms else "")
        self.atoms.setVisible(bool(view.atoms))
        self.reference.setText(view.reference)
        self.generated.setText(view.generated)
        self.verdict.setText(view.verdict)
        self.goal.setText(f"Goal of the counterexample problem: {' '.join(view.goal)}" if view.goal else "")
        self.goal.setVisible(bool(view.goal))
        self.saved.setText("")

    def ask_where_to_save(self) -> None:
        """A save dialog on a free name in the domain's problems/ folder (it asks before replacing a file)."""
        if self.counterexample is None:
            return
        if self.bundle is not None and is_bundled(self.bundle.folder):
            try:
                copy = ensure_user_copy(self.bundle)
            except OSError as err:
                self.saved.setText(f"Not saved: cannot copy {self.bundle.name} into your data folder ({err})")
                return
            self.saved.setText(f"{self.bundle.name} is a bundled domain, which the app never changes: the problem "
                               f"goes into your copy of it, {copy}. Open that folder (File > Open domain folder) "
                               "to judge answers on it.")
        folder = self.folder if self.folder is not None and self.folder.is_dir() else last_folder(Purpose.PROBLEM)
        dialog = QFileDialog(self, "Save the counterexample as a problem", str(folder), "PDDL problem (*.pddl)")
        dialog.setObjectName("saveProblemDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setDefaultSuffix("pddl")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.selectFile(str(free_problem_path(folder, self.counterexample, self.action)))
        dialog.fileSelected.connect(self.write_problem)
        self.dialog = dialog
        dialog.open()

    def write_problem(self, chosen: str) -> Path | None:
        """Write the problem to `chosen`; an existing file only after the dialog asked (AcceptSave does)."""
        if self.counterexample is None or not chosen:
            return None
        path = Path(chosen)
        if is_bundled(path.parent):
            self.saved.setText(f"Not saved: {path.parent} holds a bundled domain, which every later run and "
                               "benchmark reads as shipped; save into a copy of the domain instead")
            return None
        try:
            written = save_problem(path, self.counterexample, overwrite=path.exists())
        except DrafterError as err:
            self.saved.setText(f"Not saved: {err.what}" + (f" ({err.hint})" if err.hint else ""))
            return None
        remember_folder(Purpose.PROBLEM, written)
        said = f"Saved as {written}"
        if self.bundle is not None and is_bundled(self.bundle.folder):
            said += f" (your copy of {self.bundle.name}: open {written.parent.parent} to judge answers on it)"
        if self.bundle is not None and reference_reaches_goal(self.bundle.domain, self.counterexample) is False:
            said += (". The reference domain cannot reach this problem's goal: while the file stays among the "
                     "domain's problems, answers cannot be judged by the reference's plans on it")
        self.saved.setText(said)
        self.problem_saved.emit(written)
        return written
