"""Keep as test and Must never happen… on a distinguishing state: its counterexample becomes a case of the domain's tests.

Shared by the authoring window's Distinguishing state tab and the main window's verdict, each with its own
`CaseWriter` (which saves the case into the domain's tests file; for a bundled domain the user's copy's).
**Keep as test** saves the case that asks for what the reference does there
(planning/counterexample_cases.py). **Must never happen…** lists the atoms of the state the answer reaches
there (those the reference's state lacks ticked), lifts the ticked ones to variables and opens the New case
form on a `never` case, so the author edits it before it is saved. The reference and the problem are those
of the bundle the view shows the counterexample for; the answer is that of the result shown.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject

from domain_drafter.core.domain_tests import CaseKind, free_case_name
from domain_drafter.core.model import Domain, Problem
from domain_drafter.core.tests_toml import case_toml
from domain_drafter.gui.authoring.case_form import NewCaseDialog, StateAtomsDialog
from domain_drafter.gui.authoring.case_writer import CaseWriter
from domain_drafter.gui.panels.distinguishing_state import DistinguishingStateView
from domain_drafter.gui.state.workers import TaskWorker
from domain_drafter.planning.counterexample_cases import counterexample_case, never_choice, never_formula
from domain_drafter.planning.evaluate import EvaluationResult
from domain_drafter.planning.proof_types import ProofCounterexample


class ShowsResult(Protocol):
    """Where the verdict whose distinguishing state the view shows is kept (a result panel, a tab)."""

    result: EvaluationResult | None


class CounterexampleTests(QObject):
    """The view's Keep as test and Must never happen… buttons, shown and wired to `writer`."""

    def __init__(self, view: DistinguishingStateView, writer: CaseWriter, shown: ShowsResult,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.view, self.writer, self.shown = view, writer, shown
        self.atoms_dialog: StateAtomsDialog | None = None
        view.offer_tests(True)
        view.keep_test_requested.connect(self.keep_as_test)
        view.never_requested.connect(self.ask_never)

    def _result_of(self, cx: ProofCounterexample | None) -> EvaluationResult | None:
        """The result shown, if `cx` is its counterexample and the view knows the domain it was judged on."""
        result = self.shown.result
        proof = result.proof if result is not None else None
        if cx is None or proof is None or proof.counterexample is not cx or self.view.bundle is None:
            return None
        return result

    def _reference_and_problem(self, cx: ProofCounterexample) -> tuple[Domain, Problem]:
        bundle = self.view.bundle
        assert bundle is not None
        return bundle.domain, next(p.problem for p in bundle.problems if p.name == cx.state.problem)

    def keep_as_test(self, cx: ProofCounterexample | None) -> TaskWorker | None:
        """Save the case that asks for what the reference does at `cx` (None: nothing shown to keep)."""
        if self._result_of(cx) is None:
            return None
        assert cx is not None
        reference, problem = self._reference_and_problem(cx)
        case = counterexample_case(cx, reference, problem, self.view.action, self.writer.case_names)
        self.writer.host.say(f"Keeping {case.name} ({case.kind.value}) in the domain's tests…")
        return self.writer.save_case(case_toml(case))

    def ask_never(self, cx: ProofCounterexample | None) -> StateAtomsDialog | None:
        """The atoms of the state the answer reaches at `cx`, to pick from for a never case."""
        result = self._result_of(cx)
        if result is None or result.check.action is None:
            return None
        assert cx is not None
        reference, problem = self._reference_and_problem(cx)
        generated = reference.with_action(result.check.action, replacing=self.view.action)
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
        if cx is None or self.view.bundle is None or not atoms:
            self.writer.host.say("No atoms picked: no never case.")
            return None
        reference, problem = self._reference_and_problem(cx)
        name = free_case_name(f"{self.view.action}-never-on-{cx.state.problem}", self.writer.case_names)
        return self.writer.ask_new_case(CaseKind.NEVER, name, cx.state.problem,
                                        {"state": never_formula(atoms, reference, problem)})
