"""Keep as test and Must never happen… on the main window's verdict (kept out of window.py).

A counterexample the result panel shows for a verdict becomes a case of the judged domain's tests file,
as in the authoring window (gui/authoring/counterexample_tests.py and case_writer.py, shared): the case is
checked against the judged domain by the tests file's own reader, then saved atomically into the domain's
tests.toml, or for a bundled domain into the user's copy of it (the bundled domains and the installed
package stay as shipped). The status bar says where it went. The saves run in a runner of their own, so
that Generate and Evaluate never wait for them, and they are waited for when the window closes.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import DomainTests
from domain_drafter.core.model import Domain
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.gui.authoring.case_writer import CaseWriter
from domain_drafter.gui.authoring.counterexample_tests import CounterexampleTests
from domain_drafter.gui.panels.result_panel import ResultPanel
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.workers import TaskRunner


class VerdictTestsHost(Protocol):
    """What the verdict's tests use of the main window (so that this module never imports the window)."""

    state: AppState
    result_panel: ResultPanel

    def show_status(self, text: str, *, fit: bool = False) -> None: ...


class VerdictTests(QObject):
    """The result panel's Keep as test and Must never happen…, saving into the judged domain's tests."""

    def __init__(self, window: VerdictTestsHost, parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        self.runner = TaskRunner(self)
        window.state.track(self.runner, "main-tests")
        view = window.result_panel.proof_view
        self.writer = CaseWriter(self, self.runner, view, self, state=window.state)
        self.cases = CounterexampleTests(view, self.writer, window.result_panel, self)

    # what the writer asks (case_writer.CaseHost): the domain the counterexample shown was judged on
    def tests_target(self) -> tuple[DomainBundle, Domain] | None:
        bundle = self.window.result_panel.proof_view.bundle
        return (bundle, bundle.domain) if bundle is not None else None

    def known_tests(self) -> DomainTests | None:
        """The judged domain's tests as they are on disk now (a small file, read when a case is named)."""
        target = self.tests_target()
        return domain_tests_of(target[0]) if target is not None else None

    def say(self, text: str) -> None:
        self.window.show_status(text, fit=True)

    def close(self, timeout_ms: int) -> bool:
        """No more saves; wait for one under way (True: none is left)."""
        self.writer.close()
        return self.runner.shutdown(timeout_ms)
