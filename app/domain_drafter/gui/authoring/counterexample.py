"""The authoring window's Distinguishing state tab, and turning what it shows into the domain's tests.

It shows where the answer last drafted (Draft) or picked (Candidates) parts from the reference. **Keep
as test** adds the case that asks for what the reference does there (planning/counterexample_cases.py)
to the tests file, through the Tests tab's save (checked, atomic, never into a bundled domain), which
then runs the tests again. **Must never happen…** lists the atoms of the state the answer reaches there
(those the reference's state lacks ticked), lifts the ticked ones to variables and opens the New case
form on a `never` case, so the author edits it before it is saved.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from domain_drafter.core.domain_tests import CaseKind, free_case_name
from domain_drafter.core.model import Domain, Problem
from domain_drafter.core.tests_toml import case_toml
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.candidates import AuthoringCandidates
from domain_drafter.gui.authoring.case_form import NewCaseDialog, StateAtomsDialog
from domain_drafter.gui.authoring.tests import AuthoringTests
from domain_drafter.gui.panels.distinguishing_state import DistinguishingStateView
from domain_drafter.gui.state.workers import TaskWorker
from domain_drafter.planning.counterexample_cases import counterexample_case, never_choice, never_formula
from domain_drafter.planning.evaluate import EvaluationResult
from domain_drafter.planning.proof_types import ProofCounterexample

NO_STATE = ("The distinguishing state of the answer last drafted or picked shows here when the proof finds "
            "one (a Different domain verdict).")


class CounterexampleHost(Protocol):
    """What the tab uses of its authoring window (so that it never imports the window)."""

    workspace: WorkingCopy
    tabs: QTabWidget
    tests: AuthoringTests
    candidates: AuthoringCandidates

    def say(self, text: str) -> None: ...


class AuthoringCounterexample(QObject):
    """The Distinguishing state tab of one authoring window: Keep as test, Must never happen…."""

    def __init__(self, window: CounterexampleHost, parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        self.view = DistinguishingStateView()
        self.view.offer_tests(True)
        self.note = QLabel(NO_STATE)
        self.note.setWordWrap(True)
        self.box = QWidget()
        layout = QVBoxLayout(self.box)
        layout.addWidget(self.note)
        layout.addWidget(self.view, 1)
        window.tabs.addTab(self.box, "Distinguishing state")
        self.view.keep_test_requested.connect(self.keep_as_test)
        self.view.never_requested.connect(self.ask_never)
        window.candidates.picked_result.connect(self.show_result)
        self.result: EvaluationResult | None = None
        self.action = ""
        self.atoms_dialog: StateAtomsDialog | None = None
        self.show_result(None, "")

    def show_result(self, result: EvaluationResult | None, action: str) -> bool:
        """Show `result`'s distinguishing state, if its proof found one (the tab says so otherwise)."""
        proof = result.proof if result is not None else None
        cx = proof.counterexample if proof is not None else None
        self.result, self.action = (result, action) if cx is not None else (None, "")
        self.view.setVisible(cx is not None)
        self.note.setVisible(cx is None)
        if cx is not None:
            self.view.show_counterexample(cx, action, self.window.workspace.reference_bundle())
        return cx is not None

    def _reference_and_problem(self, cx: ProofCounterexample) -> tuple[Domain, Problem]:
        workspace = self.window.workspace
        problem = next(p.problem for p in workspace.problems if p.name == cx.state.problem)
        return workspace.reference, problem

    def keep_as_test(self, cx: ProofCounterexample | None) -> TaskWorker | None:
        """Save the case that asks for what the reference does at `cx` (the Tests tab runs it once saved)."""
        if cx is None or self.result is None:
            return None
        reference, problem = self._reference_and_problem(cx)
        case = counterexample_case(cx, reference, problem, self.action, self.window.tests.case_names)
        self.window.say(f"Keeping {case.name} ({case.kind.value}) in the domain's tests…")
        return self.window.tests.save_case(case_toml(case))

    def ask_never(self, cx: ProofCounterexample | None) -> StateAtomsDialog | None:
        """The atoms of the state the answer reaches at `cx`, to pick from for a never case."""
        if cx is None or self.result is None or self.result.check.action is None:
            return None
        reference, problem = self._reference_and_problem(cx)
        generated = reference.with_action(self.result.check.action, replacing=self.action)
        choice = never_choice(cx, reference, generated, problem)
        where = "after" if choice.differing else "before"
        title = (f"The state the answer reaches on problem {choice.problem} {where} {cx.state.step}; the atoms the "
                 "reference's state there lacks are ticked. Tick the atoms that must never hold together: they "
                 "become a never case (objects lifted to variables) to edit before it is saved.")
        self.atoms_dialog = dialog = StateAtomsDialog(title, choice.atoms, choice.differing, self.view)
        dialog.accepted.connect(lambda: self.never_form(dialog.picked()))
        dialog.open()
        return dialog

    def never_form(self, atoms: list[str]) -> NewCaseDialog | None:
        """The New case form on a never case of `atoms`, lifted (the author may edit it before it is saved)."""
        cx = self.view.counterexample
        if cx is None or not atoms:
            self.window.say("No atoms picked: no never case.")
            return None
        reference, problem = self._reference_and_problem(cx)
        name = free_case_name(f"{self.action}-never-on-{cx.state.problem}", self.window.tests.case_names)
        return self.window.tests.ask_new_case(CaseKind.NEVER, name, cx.state.problem,
                                              {"state": never_formula(atoms, reference, problem)})
