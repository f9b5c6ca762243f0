"""The authoring window's Distinguishing state tab: where the answer last drafted (Draft) or picked (Candidates)
parts from the reference.

Its **Keep as test** and **Must never happen…** (counterexample_tests.py, shared with the main window) save
cases through the Tests tab's writer (checked, atomic, never into a bundled domain), after which the Tests
tab runs the tests again.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.candidates import AuthoringCandidates
from domain_drafter.gui.authoring.counterexample_tests import CounterexampleTests
from domain_drafter.gui.authoring.tests import AuthoringTests
from domain_drafter.gui.panels.distinguishing_state import DistinguishingStateView
from domain_drafter.planning.evaluate import EvaluationResult

NO_STATE = ("The distinguishing state of the answer last drafted or picked shows here when the proof finds "
            "one (a Different domain verdict).")


class CounterexampleHost(Protocol):
    """What the tab uses of its authoring window (so that it never imports the window)."""

    workspace: WorkingCopy
    tabs: QTabWidget
    tests: AuthoringTests
    candidates: AuthoringCandidates


class AuthoringCounterexample(QObject):
    """The Distinguishing state tab of one authoring window (its Keep as test and Must never happen…: `cases`)."""

    def __init__(self, window: CounterexampleHost, parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        self.view = DistinguishingStateView()
        self.note = QLabel(NO_STATE)
        self.note.setWordWrap(True)
        self.box = QWidget()
        layout = QVBoxLayout(self.box)
        layout.addWidget(self.note)
        layout.addWidget(self.view, 1)
        window.tabs.addTab(self.box, "Distinguishing state")
        window.candidates.picked_result.connect(self.show_result)
        self.result: EvaluationResult | None = None
        self.action = ""
        self.cases = CounterexampleTests(self.view, window.tests.writer, self, self)   # Keep as test, Must never…
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
