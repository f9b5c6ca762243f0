"""Authoring > Domain tests: the selected domain's tests in a dock of the main window.

The same Tests panel as the authoring window's tab (gui/panels/tests_panel.py), on the domain the main
window has selected, proven on that domain as it is (no working copy: no quick fixes here). It reads the
domain's one tests file from the AppState, runs again when another domain is selected or a case is saved
in any window, and New case… adds a case as the authoring window does (case_writer.py). Nothing runs
while the dock is hidden. Under the cases, the invariant findings on the answer judged in the main window
(`show_findings`, from the judging worker's result): Dismiss / Restore saves with the domain in a worker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Qt, QThreadPool
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import DomainTests
from domain_drafter.core.model import Domain
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.gui.authoring.case_writer import CaseWriter
from domain_drafter.gui.authoring.tests_jobs import TestsRun, run_tests_job
from domain_drafter.gui.panels.tests_panel import TestsPanel, case_rows
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.jobs import keep_starter_job, save_dismissal_job, starters_job
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.planning.evaluate import EvaluationResult
from domain_drafter.planning.starter_cases import Starters, wants_starters


class TestsDockHost(Protocol):
    state: AppState

    def show_status(self, text: str) -> None: ...


class DomainTestsDock(QObject):
    """The dock, its runner and its New case… writer; `show()` brings it up on the selected domain."""

    __test__ = False

    def __init__(self, window: TestsDockHost, dock_area: QMainWindow, menu: QMenu):
        super().__init__(dock_area)
        self.window, self.state = window, window.state
        self.panel = TestsPanel()
        for widget in (self.panel.fixes_button, self.panel.keep_button, self.panel.fixes.parentWidget()):
            widget.hide()   # quick fixes change a working copy: the authoring window's
        self.dock = QDockWidget("Domain tests", dock_area)
        self.dock.setObjectName("domainTestsDock")
        self.dock.setWidget(self.panel)
        dock_area.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.runner = TaskRunner(self)
        self.state.track(self.runner, "main-domain-tests")
        self.writer = CaseWriter(self, self.runner, self.panel, self, state=self.state)
        self.bundle: DomainBundle | None = None   # the domain whose tests are shown
        self.last: TestsRun | None = None
        self._number = 0
        self._closed = False
        self.panel.run_requested.connect(self.run)
        self.panel.new_case_requested.connect(self.writer.ask_new_case)
        self.panel.case_selected.connect(self._show_case)
        self.state.target_changed.connect(self._on_target_changed)   # slots of this object: they end with it
        self.state.tests_changed.connect(self._on_tests_changed)
        self.state.dismissals_changed.connect(self._on_dismissals_changed)
        # dismissals and kept starters, in order on a pool of their own: a save never waits behind tests runs,
        # starter searches or a model load filling the shared pool
        self.write_pool = QThreadPool(self)
        self.write_pool.setMaxThreadCount(1)
        self.writes = TaskRunner(self, self.write_pool)
        self.state.track(self.writes, "main-tests-writes")
        self.findings_bundle: DomainBundle | None = None   # the domain of the findings shown
        self.panel.findings.dismiss_requested.connect(self.dismiss)
        self.panel.starters.keep_requested.connect(self.keep_starter)
        self.dock.visibilityChanged.connect(lambda visible: visible and self._follow())
        self.action: QAction = menu.addAction("Domain tests", self.show)
        self.action.setToolTip("The selected domain's tests: each case proven on the domain, and New case…")

    def show(self) -> None:
        self.dock.show()
        self.dock.raise_()
        self._follow()

    def _on_target_changed(self, target: object) -> None:
        report = self.panel.findings.report
        if report is not None and (getattr(target, "bundle", None) is not self.findings_bundle
                                   or getattr(target, "action", None) != report.action):
            self.show_findings(None)
        self._follow()

    # --- the invariant findings on the judged answer ---------------------------------------
    def show_findings(self, result: EvaluationResult | None) -> None:
        """The invariant findings of the result shown in the main window (None, or none found: cleared)."""
        report = result.invariants if result is not None else None
        self.findings_bundle = self.state.bundle if report is not None else None
        note = ("Invariant findings: the answer did not pass the checks." if result is not None and report is None
                else "")
        self.panel.findings.show_report(report, note)

    def dismiss(self, action: str, key: str, dismiss: bool) -> TaskWorker | None:
        """Save that the author dismissed (or restored) `key` for `action`; every window follows when it is saved."""
        bundle = self.findings_bundle
        if bundle is None or self._closed or self.writes.busy:
            return None
        worker = TaskWorker(save_dismissal_job, bundle, action, key, dismiss, kind=JobKind.DISMISS)
        worker.signals.finished.connect(lambda keys: self.state.dismissals_saved(bundle, action, keys))
        worker.signals.failed.connect(lambda err: self.window.show_status(
            f"Not saved: {describe_error(err).text}"))
        worker.signals.finished.connect(lambda _keys: self.window.show_status(
            f"{'Dismissed' if dismiss else 'Restored'} for {action}: {key}"))
        self.panel.findings.set_busy(True)
        worker.signals.run_ended.connect(lambda _outcome: self.panel.findings.set_busy(False))
        return self.writes.start(worker)

    def _on_dismissals_changed(self, folder: Path, action: str, keys: frozenset[str]) -> None:
        report = self.panel.findings.report
        if report is not None and self.findings_bundle is not None and folder == self.findings_bundle.folder \
                and action == report.action:
            self.panel.findings.show_report(report.with_dismissed(keys))

    def _follow(self) -> None:
        """Show the selected domain's tests (run them if another domain is selected since)."""
        bundle = self.state.bundle
        if self._closed or not self.dock.isVisible() or bundle is self.bundle:
            return
        self.bundle = bundle
        self.dock.setWindowTitle(f"Tests of {bundle.name}" if bundle is not None else "Domain tests")
        self.run()

    def _on_tests_changed(self, folder: Path, _path: Path) -> None:
        if self.bundle is not None and folder == self.bundle.folder and self.dock.isVisible():
            self.run()

    def run(self) -> TaskWorker | None:
        bundle = self.bundle
        if bundle is None or self._closed:
            self.panel.show_cases([], "Pick a domain: its tests show here.")
            return None
        self.runner.cancel_all()
        self._number += 1
        number = self._number
        worker = TaskWorker(run_tests_job, self.state.tests_file(bundle), bundle, bundle.domain, kind=JobKind.TESTS)
        worker.signals.finished.connect(lambda result, n=number: self._on_ran(n, result))
        worker.signals.failed.connect(lambda err, n=number: self._on_failed(n, err))
        self.panel.summary.setText(f"Running the tests of {bundle.name}…")
        return self.runner.start(worker)

    def _on_ran(self, number: int, result: TestsRun) -> None:
        if number != self._number or self._closed:
            return
        self.last = result
        self.panel.show_cases(case_rows(result.tests.cases, result.report),
                              f"{result.report.summary()}, from {result.path}")
        self.panel.summary.setToolTip(str(result.path))
        self._offer_starters(number, result.tests)

    def _on_failed(self, number: int, error: BaseException) -> None:
        if number != self._number or self._closed:
            return
        self.last = None
        path = self.state.tests_file(self.bundle) if self.bundle is not None else None
        if path is not None and not path.is_file():
            self.panel.show_cases([], f"{self.bundle.name} has no tests yet: New case… starts its {path.name}, "
                                      "or keep a starter case.")
            self._offer_starters(number, None)
        else:
            self.panel.show_error(describe_error(error).text)

    # --- starter cases: tests that grow with use -------------------------------------------------
    def _offer_starters(self, number: int, tests: DomainTests | None) -> TaskWorker | None:
        """For a domain with few tests, find the starter cases in a worker (it may plan) and list them."""
        self.panel.starters.show_starters(None)
        bundle = self.bundle
        if bundle is None or not wants_starters(tests):
            return None
        worker = TaskWorker(starters_job, bundle, tests, self.state.evaluator.plan_cache, kind=JobKind.STARTERS)
        worker.signals.finished.connect(lambda starters, n=number: self._on_starters(n, starters))
        return self.runner.start(worker)

    def _on_starters(self, number: int, starters: Starters) -> None:
        if number == self._number and not self._closed:
            self.panel.starters.show_starters(starters)

    def keep_starter(self, starter_id: str) -> TaskWorker | None:
        """Keep as test: append the starter to the domain's tests file; the tests run again once it is saved."""
        bundle, starters = self.bundle, self.panel.starters.starters
        if bundle is None or starters is None or self._closed or self.writes.busy:
            return None
        worker = TaskWorker(keep_starter_job, bundle, starters.find(starter_id), kind=JobKind.SAVE_CASE)
        worker.signals.finished.connect(lambda kept: self._on_kept(bundle, *kept))
        worker.signals.failed.connect(lambda err: self.window.show_status(f"Not kept: {describe_error(err).text}"))
        self.panel.starters.set_busy(True)
        worker.signals.run_ended.connect(lambda _outcome: self.panel.starters.set_busy(False))
        return self.writes.start(worker)

    def _on_kept(self, bundle: DomainBundle, path: Path, name: str) -> None:
        self.window.show_status(f"Kept {name} as a test in {path}")
        self.state.tests_saved(bundle, path)   # every window showing these tests reads them again

    def _show_case(self, name: str) -> None:
        results = {r.name: r for r in self.last.report.results} if self.last is not None else {}
        rows = {r.name: r for r in self.panel.model.rows}
        self.panel.evidence.show_result(results.get(name), rows.get(name))

    # what the writer asks (case_writer.CaseHost)
    def tests_target(self) -> tuple[DomainBundle, Domain] | None:
        return (self.bundle, self.bundle.domain) if self.bundle is not None else None

    def known_tests(self) -> DomainTests | None:
        return domain_tests_of(self.bundle) if self.bundle is not None else None

    def say(self, text: str) -> None:
        self.window.show_status(text)

    def close(self, timeout_ms: int) -> bool:
        """No more runs or saves; wait for one under way (True: none is left)."""
        self._closed = True
        self.writer.close()
        stopped = self.writes.shutdown(timeout_ms)
        return self.runner.shutdown(timeout_ms) and stopped
