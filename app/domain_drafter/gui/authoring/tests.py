"""The authoring window's Tests tab: the domain's tests proven on the working copy, quick fixes, new cases.

The tests run in a worker of this tab's own runner (the window's buttons do not wait for them) on the
working domain taken on the GUI thread: when the window opens, after every Accept or Revert, on
*Judge working copy*, and when the tests file changes on disk (a QFileSystemWatcher on it and its
folder: an atomic save replaces the file). A newer run cancels the older one, whose result is dropped.
A bad tests file shows its file:line in the tab. Quick fixes run in a worker too; one is applied to the
working copy only, as an attempt of its action, and Undo puts the action back as it was. They are
not offered while a benchmark runs (the reference must not leak). New cases go to tests.toml in the
user's copy of a bundled domain, atomically (`writer`, case_writer.py), checked against the working domain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, SignalInstance
from PySide6.QtWidgets import QTabWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import EXPLORING_KINDS, CaseKind, DomainTests, free_case_name
from domain_drafter.core.model import Domain
from domain_drafter.core.user_domains import is_bundled
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.case_writer import CaseWriter
from domain_drafter.gui.authoring.tests_jobs import TestsRun, case_table, quick_fix_job, run_tests_job
from domain_drafter.gui.panels.tests_panel import TestsPanel, case_rows
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.planning.quick_fixes import QuickFix, QuickFixSearch
from domain_drafter.planning.tests_report import Verdict
from domain_drafter.planning.validator import FailureKind

DISK_DELAY_MS = 150   # a save is a burst of events (write, rename): one run after it


class TestsHost(Protocol):
    """What the Tests tab uses of its authoring window (so it never imports the window that builds it)."""

    state: AppState
    workspace: WorkingCopy
    tabs: QTabWidget
    job_ended: SignalInstance

    def say(self, text: str) -> None: ...
    def after_change(self, name: str) -> None: ...


class AuthoringTests(QObject):
    """The Tests tab of one authoring window, and its jobs."""

    __test__ = False
    ran = Signal(object)   # the TestsRun shown, or the error of a tests file that could not be read

    def __init__(self, window: TestsHost, parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        self.panel = TestsPanel()
        self.panel.findings.hide()   # the invariant findings are the main window's judged answer's (Domain tests)
        window.tabs.addTab(self.panel, "Tests")
        self.runner = TaskRunner(self)
        window.state.track(self.runner, "authoring-tests")
        self.runner.job_ended.connect(window.job_ended)
        self.runner.busy_changed.connect(lambda _busy: self.refresh())
        window.state.running_changed.connect(self.refresh)   # a benchmark started or ended (a slot: ends with us)
        self.last: TestsRun | None = None
        self.error: BaseException | None = None
        self.fixes: tuple[QuickFix, ...] = ()
        self.undo: tuple[str, str | None, int | None, str | None] | None = None   # action, accepted, from, scratch
        self._tests: TaskWorker | None = None    # the newest tests run; older ones are cancelled and ignored
        self._run_number = 0                      # the newest run's number (its results are the ones shown)
        self._fixing: TaskWorker | None = None
        self._fixed_on = None                    # the working domain the fixes were searched on
        self._closed = False
        self.writer = CaseWriter(self, self.runner, self.panel, self, state=window.state)   # New case…, Keep as…: then run again
        self.writer.saved.connect(self._on_saved)
        self.path = window.state.tests_file(window.workspace.bundle)
        window.state.tests_changed.connect(self._on_tests_changed)   # a case kept in another window
        self._seen = self._stamp()
        self.watcher = QFileSystemWatcher(self)
        self._watch()
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(DISK_DELAY_MS)
        self._delay.timeout.connect(self._check_disk)
        self.watcher.fileChanged.connect(lambda _p: self._delay.start())
        self.watcher.directoryChanged.connect(lambda _p: self._delay.start())
        panel = self.panel
        panel.run_requested.connect(self.run)
        panel.case_selected.connect(self.show_case)
        panel.fixes_requested.connect(self.find_fixes)
        panel.apply_requested.connect(self.apply_fix)
        panel.undo_requested.connect(self.undo_fix)
        panel.keep_plan_requested.connect(self.keep_as_expected_plan)
        panel.new_case_requested.connect(self.writer.ask_new_case)
        self.run()

    # ------------------------------------------------------------ running

    def run(self) -> TaskWorker | None:
        """Prove the tests file on the working domain as it stands now (an older run is cancelled)."""
        if self._closed:
            return None
        if self._tests is not None:
            self._tests.cancel()
        workspace = self.window.workspace
        worker = TaskWorker(run_tests_job, self.path, workspace.bundle, workspace.working_domain(), kind=JobKind.TESTS)
        # the slots get the run's number, never the worker: a worker held by its own signal's slot is a cycle
        # through C++ that Python's collector cannot see, and every run's worker would stay alive
        self._run_number += 1
        number = self._run_number
        worker.signals.finished.connect(lambda result, n=number: self._on_ran(n, result))
        worker.signals.failed.connect(lambda err, n=number: self._on_failed(n, err))
        worker.signals.run_ended.connect(lambda _outcome, n=number: self._release(n))
        self._tests = worker
        self.panel.summary.setText("Running the tests…")
        return self.runner.start(worker)

    def _on_ran(self, number: int, result: TestsRun) -> None:
        if number != self._run_number:
            return
        self.last, self.error = result, None
        report = result.report
        self.panel.show_cases(case_rows(result.tests.cases, report), f"{report.summary()}, from {result.path}")
        failing = len(report.failed)
        self.window.tabs.setTabText(self.window.tabs.indexOf(self.panel), f"Tests ({failing} failing)" if failing
                                    else "Tests")
        if self.panel.selected():
            self.show_case(self.panel.selected())
        self.refresh()
        self.ran.emit(result)

    def _on_failed(self, number: int, error: BaseException) -> None:
        if number != self._run_number:
            return
        self.error = error
        self.window.tabs.setTabText(self.window.tabs.indexOf(self.panel), "Tests")
        if not self.path.is_file():   # no tests yet: not a mistake
            self.panel.show_cases([], f"No {self.path.name} beside the domain yet: New case… starts one "
                                      "(see the README's 'Domain tests').")
        else:
            self.panel.show_error(describe_error(error).text)
        self.refresh()
        self.ran.emit(error)

    def show_case(self, name: str) -> None:
        result = self.result(name)
        rows = {r.name: r for r in self.panel.model.rows}
        self.panel.evidence.show_result(result, rows.get(name))
        self.refresh()

    def result(self, name: str | None):
        if self.last is None or name is None:
            return None
        return next((r for r in self.last.report.results if r.name == name), None)

    @property
    def testing(self) -> bool:
        """A tests run is on its way (the report shown may be older than the working copy)."""
        return self._tests is not None and not self._tests.ended.is_set()

    def refresh(self) -> None:
        panel, result = self.panel, self.result(self.panel.selected())
        benchmark = self.window.state.running(kind=JobKind.BENCHMARK)
        panel.fixes_button.setEnabled(result is not None and result.verdict is Verdict.FAIL and not benchmark
                                      and self._fixing is None and not self.testing)
        panel.fixes_button.setToolTip("Not while a benchmark runs: the reference must not leak" if benchmark
                                      else "Search the smallest edits of one action that make every case pass")
        panel.keep_button.setEnabled(self._kept_plan(result) is not None)
        panel.apply_button.setEnabled(bool(self.fixes) and not benchmark)
        panel.undo_button.setEnabled(self.undo is not None)

    # ------------------------------------------------------------ the disk

    def _stamp(self) -> tuple[int, int] | None:
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def _watch(self) -> None:
        paths = [str(self.path.parent)] + ([str(self.path)] if self.path.is_file() else [])
        missing = [p for p in paths if p not in self.watcher.files() + self.watcher.directories()]
        if missing:
            self.watcher.addPaths(missing)

    def _on_tests_changed(self, folder: Path, _path: Path) -> None:
        if not self._closed and folder == self.window.workspace.bundle.folder:
            self._check_disk()

    def folder_changed(self) -> None:
        """The working copy was saved into a folder: its tests file is that folder's from now on."""
        self._check_disk()

    def _check_disk(self) -> None:
        """The folder or the file changed: run again if the tests file is new or not as last seen."""
        self.path = self.window.state.tests_file(self.window.workspace.bundle)
        self._watch()
        stamp = self._stamp()
        if stamp != self._seen:
            self._seen = stamp
            self.run()

    def close(self, timeout_ms: int) -> None:
        self._closed = True
        self.writer.close()
        if self._tests is not None:
            self._tests.cancel()
        self._delay.stop()
        self.watcher.removePaths(self.watcher.files() + self.watcher.directories())
        self.runner.shutdown(timeout_ms)

    # ------------------------------------------------------------ quick fixes

    def find_fixes(self, name: str) -> TaskWorker | None:
        result = self.result(name)
        if self.last is None or result is None or result.verdict is not Verdict.FAIL or self._fixing is not None \
                or self.testing or self.window.state.running(kind=JobKind.BENCHMARK):
            return None
        self._fixed_on = domain = self.window.workspace.working_domain()
        worker = TaskWorker(quick_fix_job, domain, self.last.tests, self.last.report, kind=JobKind.QUICK_FIX)
        worker.signals.finished.connect(self._on_fixes)
        worker.signals.failed.connect(lambda err: self.panel.show_fixes([], [], f"No quick fixes: "
                                                                       f"{describe_error(err).text}"))
        worker.signals.run_ended.connect(self._fixes_done)
        self._fixing = worker
        self.panel.show_fixes([], [], f"Searching quick fixes for {name}…")
        self.refresh()
        return self.runner.start(worker)

    def _release(self, number: int) -> None:
        """The run has ended: the tab no longer holds its worker (only its result)."""
        if number == self._run_number:
            self._tests = None

    def _fixes_done(self) -> None:
        self._fixing = None
        self.refresh()

    def _on_fixes(self, search: QuickFixSearch) -> None:
        self.fixes = search.fixes
        if search.fixes:
            note = (f"{len(search.fixes)} quick fix{'es' if len(search.fixes) > 1 else ''} after which every case "
                    "passes. Apply one to put it into the working copy (Undo puts the action back).")
        else:
            note = (f"No quick fix: {search.candidates} edits of one or two atoms tried in {search.elapsed_s:.1f} s"
                    + ("" if search.complete else " (stopped by the time limit)") + ".")
        self.panel.show_fixes([f.summary for f in search.fixes], [f.diff for f in search.fixes], note)
        self.refresh()

    def apply_fix(self, row: int) -> bool:
        """Put fix `row` into the working copy as an attempt of its action, accepted; never into any file of
        the domain (a working copy bound to a folder saves into that folder, never a bundled one)."""
        if not 0 <= row < len(self.fixes) or self.window.state.running(kind=JobKind.BENCHMARK):
            return False
        fix, workspace = self.fixes[row], self.window.workspace
        if workspace.folder is not None and is_bundled(workspace.folder):
            self.window.say("Not applied: this working copy lives in a bundled domain, which the app never changes.")
            return False
        if workspace.working_domain() != self._fixed_on:
            self.fixes = ()
            self.panel.show_fixes([], [], "The working copy changed since these fixes were found: search again.")
            self.refresh()
            return False
        entry = workspace.entry(fix.action)
        before = (entry.name, entry.accepted, entry.accepted_from, entry.scratch)
        attempt = workspace.add_attempt(fix.action, fix.action_pddl, source="quick fix", message=fix.summary)
        workspace.accept(fix.action, attempt=attempt.number)
        self.undo, self.fixes = before, ()
        self.panel.show_fixes([], [], f"Applied: {fix.summary} (attempt {attempt.number}). Undo puts it back.")
        self.window.after_change(fix.action)
        self.window.say(f"Quick fix applied to the working copy: {fix.summary}.")
        self.run()
        return True

    def undo_fix(self) -> None:
        if self.undo is None:
            return
        name, accepted, accepted_from, scratch = self.undo
        workspace = self.window.workspace
        if accepted is None:
            workspace.revert(name)
        else:
            workspace.accept(name, accepted, attempt=accepted_from)
        if scratch is not None:
            workspace.set_scratch(name, scratch)
        self.undo = None
        self.panel.show_fixes([], [], f"Undone: {name} is back as it was before the quick fix.")
        self.window.after_change(name)
        self.window.say(f"Quick fix undone: {name} is as it was.")
        self.run()

    # ------------------------------------------------------------ new cases

    def _kept_plan(self, result) -> dict | None:
        """The fields of a `plan` case for the result's evidence plan, if it is an executable plan worth keeping."""
        if result is None or self.last is None or result.evidence is None or not result.evidence.plan:
            return None
        evidence, case = result.evidence, self.last.tests.case(result.name)
        check = evidence.validation
        if case.kind not in (CaseKind.PLAN, *EXPLORING_KINDS) or case.problem.startswith("case:") \
                or check is None or not (check.valid or check.kind is FailureKind.GOAL):
            return None
        fields: dict[str, object] = {"plan": list(evidence.plan)}
        if case.kind is CaseKind.PLAN:
            fields.update(goal=str(case.formula) if case.formula is not None else None,
                          reaches_goal=None if check.valid else False)
        else:
            fields["goal"] = "(and " + " ".join(evidence.goal) + ")"
        return {"problem": case.problem, "fields": fields}   # a case's own inline problem has no name to use

    def keep_as_expected_plan(self, name: str) -> TaskWorker | None:
        kept = self._kept_plan(self.result(name))
        if kept is None or self.last is None:
            return None
        table = case_table(free_case_name(f"kept-{name}", self.writer.case_names), CaseKind.PLAN.value,
                           kept["problem"], kept["fields"])
        return self.writer.save_case(table)

    # what the writer asks of this tab (case_writer.CaseHost)
    def tests_target(self) -> tuple[DomainBundle, Domain] | None:
        workspace = self.window.workspace
        return None if self._closed else (workspace.bundle, workspace.working_domain())

    def known_tests(self) -> DomainTests | None:
        return self.last.tests if self.last is not None else None

    def say(self, text: str) -> None:
        self.window.say(text)

    def _on_saved(self, path: Path) -> None:
        self.path = path
        self._watch()
        self._seen = self._stamp()
        self.run()
