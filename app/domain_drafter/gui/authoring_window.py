"""The authoring window: draft a whole domain, accept and revert actions, keep their history, save the domain.

It edits a `WorkingCopy`. The model, the planner and the disk are only touched by workers;
the GUI thread reads and changes the working copy (plain data) and starts a save job after
each change once the copy has a folder, so a crash loses at most the change being saved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog, QFileDialog, QHBoxLayout, QLabel, QListWidget, QMainWindow, QMessageBox, QPlainTextEdit, QProgressBar,
    QPushButton, QSplitter, QTableView, QTabWidget, QVBoxLayout, QWidget,
)

from domain_drafter.core.errors import DrafterError
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.new_action import TryReport, try_action
from domain_drafter.drafting.whole_domain import ActionOutcome, DomainDraft, record
from domain_drafter.drafting.workspace import NewActionSpec, WorkingCopy
from domain_drafter.gui.authoring_descriptions import DescriptionsEditor
from domain_drafter.gui.authoring_dialogs import NewActionDialog
from domain_drafter.gui.authoring_jobs import (
    BackendSource, draft_all_job, draft_one_job, export_job, judge_job, write_job,
)
from domain_drafter.gui.authoring_model import ActionStateModel, attempt_label
from domain_drafter.gui.code_editor import CodeEditor
from domain_drafter.gui.workers import TaskRunner, TaskWorker
from domain_drafter.planning.evaluate import Evaluator

SCRATCH_DELAY_MS = 700   # after this pause in typing, the editor's text is saved with the working copy


class AuthoringWindow(QMainWindow):
    """Draft all, per-action Accept / Revert / history, new actions and Try it, Save domain as, Export."""

    job_ended = Signal(str, str)       # kind ("draft-all", "draft", "try", "save", "export"), outcome
    saved = Signal(str)                # the folder or file written
    _changed = Signal()                # the working copy changed (emitted from any thread)
    _outcome = Signal(object)          # (ActionOutcome, model name): an action's draft is done

    def __init__(self, workspace: WorkingCopy, backend_source: BackendSource | None = None, *,
                 evaluator: Evaluator | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.backend_source = backend_source
        self.evaluator = evaluator or Evaluator()
        self._own_evaluator = evaluator is None
        self.options = DraftOptions()
        self.runner = TaskRunner(self)      # drafts and Try it: the buttons wait for these
        self.saver = TaskRunner(self)       # saves and exports: they never block the buttons
        self._generation = 0            # counts changes, so a save job knows whether it saved the latest
        self._save_pending = False
        self._jobs: dict[object, tuple[str, TaskWorker, Callable[[object], None]]] = {}
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)

        self.actions_model = ActionStateModel(workspace, self)
        self.table = QTableView()
        self.table.setModel(self.actions_model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.editor = CodeEditor()
        self.history = QListWidget()
        self.verdict = QPlainTextEdit()
        self.verdict.setReadOnly(True)
        self.verdict.setPlaceholderText("The whole-domain verdict and Try it results show here.")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setVisible(False)

        self.draft_all_button = QPushButton("Draft all")
        self.stop_button = QPushButton("Stop")
        self.draft_button = QPushButton("Draft")
        self.accept_button = QPushButton("Accept")
        self.revert_button = QPushButton("Revert to reference")
        self.restore_button = QPushButton("Restore attempt")
        self.compare_button = QPushButton("Compare with reference")
        self.add_button = QPushButton("New action...")
        self.try_button = QPushButton("Try it")
        self.judge_button = QPushButton("Judge working copy")
        buttons = QHBoxLayout()
        for b in (self.draft_all_button, self.stop_button, self.draft_button, self.accept_button, self.revert_button,
                  self.add_button, self.try_button, self.judge_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(QLabel("History"))
        right_layout.addWidget(self.history)
        right_layout.addWidget(self.restore_button)
        right_layout.addWidget(self.compare_button)
        top = QSplitter()
        top.addWidget(self.table)
        top.addWidget(self.editor)
        top.addWidget(right)
        self.descriptions_editor = DescriptionsEditor(workspace)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.verdict, "Verdict")
        self.tabs.addTab(self.descriptions_editor, "Descriptions")
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(top)
        body.addWidget(self.tabs)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addLayout(buttons)
        layout.addWidget(body, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        self.setCentralWidget(central)
        self._build_menu()

        self._shown: str | None = None      # the action whose text the editor holds
        self._loading = False
        self._scratch_timer = QTimer(self)  # a pause in typing saves the text being edited
        self._scratch_timer.setSingleShot(True)
        self._scratch_timer.setInterval(SCRATCH_DELAY_MS)
        self._scratch_timer.timeout.connect(self._keep_scratch)
        self.editor.textChanged.connect(self._on_typed)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())
        self.draft_all_button.clicked.connect(self.draft_all)
        self.stop_button.clicked.connect(self.runner.cancel_all)
        self.draft_button.clicked.connect(self.draft_selected)
        self.accept_button.clicked.connect(self.accept_selected)
        self.revert_button.clicked.connect(self.revert_selected)
        self.restore_button.clicked.connect(self.restore_attempt)
        self.compare_button.clicked.connect(self.compare_attempt)
        self.history.itemDoubleClicked.connect(lambda *_: self.restore_attempt())
        self.add_button.clicked.connect(self._ask_new_action)
        self.try_button.clicked.connect(self.try_selected)
        self.judge_button.clicked.connect(self.judge)
        self.runner.busy_changed.connect(self._update_buttons)
        self._changed.connect(self._on_changed)
        self._outcome.connect(self._on_outcome)
        workspace.on_change = self._changed.emit
        self.table.selectRow(0)
        self._update_title()
        self._update_buttons()
        self.resize(1100, 700)

    # ------------------------------------------------------------ layout helpers

    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        self.save_as_action = QAction("Save domain as...", self)
        self.save_as_action.setShortcut(QKeySequence.StandardKey.SaveAs)
        self.save_as_action.triggered.connect(self._ask_save_as)
        self.export_action = QAction("Export domain.pddl...", self)
        self.export_action.triggered.connect(self._ask_export)
        close = QAction("Close", self)
        close.setShortcut(QKeySequence.StandardKey.Close)
        close.triggered.connect(self.close)
        for action in (self.save_as_action, self.export_action, close):
            menu.addAction(action)

    def selected(self) -> str | None:
        index = self.table.currentIndex()
        return self.actions_model.name_at(index.row()) if index.isValid() else None

    def select(self, name: str) -> None:
        self.table.selectRow(self.actions_model.row_of(name))

    def _update_title(self) -> None:
        where = str(self.workspace.folder) if self.workspace.folder else "not saved"
        self.setWindowTitle(f"{'*' if self.workspace.dirty else ''}{self.workspace.name} ({where}) - Authoring")

    def _update_buttons(self, *_: object) -> None:
        busy = self.runner.busy
        name = self.selected()
        entry = self.workspace.entries.get(name) if name else None
        has_model = self.backend_source is not None
        self.draft_all_button.setEnabled(not busy and has_model)
        self.draft_button.setEnabled(not busy and has_model and entry is not None)
        self.stop_button.setEnabled(busy)
        for b in (self.accept_button, self.revert_button, self.restore_button, self.compare_button, self.add_button):
            b.setEnabled(not busy and (entry is not None or b is self.add_button))
        self.try_button.setEnabled(not busy and entry is not None and entry.new is not None)
        self.judge_button.setEnabled(not busy)
        self.progress.setVisible(busy)

    def _baseline(self, name: str) -> str:
        """What the editor shows for an action with nothing being edited."""
        entry = self.workspace.entries[name]
        if entry.accepted is not None:
            return entry.accepted
        if entry.attempts:
            return entry.attempts[-1].text
        if entry.reference is not None:
            return entry.reference.to_pddl(indent="")
        params = " ".join(f"{p.name} - {p.type}" for p in entry.new.parameters) if entry.new else ""
        return f"(:action {entry.name}\n  :parameters ({params})\n  :precondition (and)\n  :effect (and))"

    def _show_selected(self) -> None:
        if self._scratch_timer.isActive():   # typed, not yet kept: keep it before the editor changes
            self._keep_scratch()
        name = self.selected()
        self.history.clear()
        self._shown = name
        if name is None:
            return
        entry = self.workspace.entries[name]
        self.history.addItems([attempt_label(a) for a in entry.attempts])
        self._loading = True
        self.editor.setPlainText(entry.scratch if entry.scratch is not None else self._baseline(name))
        self._loading = False
        self._update_buttons()

    def _on_typed(self) -> None:
        if not self._loading:
            self._scratch_timer.start()

    def _keep_scratch(self) -> None:
        """Put the editor's text into the working copy (and so on disk) unless it is what it would show anyway."""
        self._scratch_timer.stop()
        name = self._shown
        if name is None or name not in self.workspace.entries:
            return
        text = self.editor.toPlainText()
        self.workspace.set_scratch(name, None if text == self._baseline(name) else text)

    def _refresh(self) -> None:
        name = self.selected()
        self.actions_model.refresh()
        if name is not None and name in self.workspace.entries:
            self.select(name)
        self._show_selected()
        self._update_title()

    def _say(self, text: str) -> None:
        self.status.setText(text)

    # ------------------------------------------------------------ editing

    def accept_selected(self) -> bool:
        """Accept the editor's text as the selected action (recorded as a hand edit unless it is an attempt)."""
        name = self.selected()
        if name is None:
            return False
        self._scratch_timer.stop()
        entry = self.workspace.entries[name]
        text = self.editor.toPlainText()
        number = next((a.number for a in entry.attempts if a.text == text), None)
        report = self.workspace.check(name, text)
        if not report.passed:
            finding = report.findings[0]
            self._say(f"Not accepted: {finding.subclass.value}: {finding.message}")
            return False
        if number is None:
            number = self.workspace.add_attempt(name, text, source="hand",
                                                message="passed the syntax and semantic checks").number
        self.workspace.accept(name, attempt=number)
        self._say(f"Accepted {name} (attempt {number}).")
        self._refresh()
        return True

    def revert_selected(self) -> None:
        name = self.selected()
        if name is not None:
            self._scratch_timer.stop()
            self.workspace.revert(name)
            self._say(f"{name}: back to the reference." if self.workspace.entries[name].reference
                      else f"{name}: no accepted definition.")
            self._refresh()

    def restore_attempt(self) -> None:
        """Put the selected attempt's text into the editor (Accept keeps it)."""
        name, row = self.selected(), self.history.currentRow()
        if name is None or row < 0:
            return
        self.editor.setPlainText(self.workspace.entries[name].attempts[row].text)

    def compare_attempt(self) -> None:
        """Show the selected attempt (or the editor's text) against the reference action: verdict and ARE."""
        from domain_drafter.presentation import format_are
        from domain_drafter.core.are import action_reconstruction_error

        name, row = self.selected(), self.history.currentRow()
        if name is None:
            return
        entry = self.workspace.entries[name]
        attempt = entry.attempts[row] if 0 <= row < len(entry.attempts) else None
        text = attempt.text if attempt is not None else self.editor.toPlainText()
        report = self.workspace.check(name, text)
        head = f"attempt {attempt.number}" if attempt is not None else "the editor's text"
        lines = [f"{name}, {head}: " + (f"{report.subclass.value}: {report.findings[0].message}"
                                        if report.findings else "passes the syntax and semantic checks")]
        if attempt is not None and attempt.subclass:
            lines.append(f"  verdict when drafted: {attempt.subclass}: {attempt.message}")
        if report.action is not None and entry.reference is not None:
            lines += format_are(action_reconstruction_error(entry.reference, report.action))
            lines += ["", "reference:", entry.reference.to_pddl(indent=""), "", head + ":",
                      report.action.to_pddl(indent="")]
        elif entry.reference is None:
            lines.append("  a new action: there is no reference to compare with (use Try it)")
        self.verdict.setPlainText("\n".join(lines))

    def add_action(self, spec: NewActionSpec) -> None:
        self.workspace.add_action(spec)
        self.descriptions_editor.fill()
        self._refresh()
        self.select(spec.name.lower())

    def _ask_new_action(self) -> None:
        dialog = NewActionDialog(self)
        while dialog.exec() == QDialog.DialogCode.Accepted:
            try:
                self.add_action(dialog.spec())
                return
            except DrafterError as err:
                QMessageBox.warning(self, "Cannot add the action", err.message)

    # ------------------------------------------------------------ jobs

    def _start(self, kind: str, worker: TaskWorker, on_finished: Callable[[object], None],
               runner: TaskRunner | None = None) -> TaskWorker:
        # bound methods only: Qt drops them with the window, so a late signal never reaches a deleted one
        self._jobs[worker.signals] = (kind, worker, on_finished)
        worker.signals.finished.connect(self._job_finished)
        worker.signals.failed.connect(self._job_failed)
        worker.signals.cancelled.connect(self._job_cancelled)
        worker.signals.progress.connect(self._on_progress)
        worker.signals.done.connect(self._job_done)
        return (runner or self.runner).start(worker)

    def _job_finished(self, result: object) -> None:
        job = self._jobs.get(self.sender())
        if job is not None:
            job[2](result)

    def _job_failed(self, message: str) -> None:
        job = self._jobs.get(self.sender())
        self._say(f"{job[0] if job else 'job'} failed: {message}")

    def _job_cancelled(self) -> None:
        job = self._jobs.get(self.sender())
        self._say(f"{job[0] if job else 'job'}: stopped.")

    def _job_done(self) -> None:
        job = self._jobs.pop(self.sender(), None)
        if job is not None:
            self.job_ended.emit(job[0], job[1].outcome)

    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self._say(message)

    def draft_all(self) -> None:
        if self.backend_source is None or self.runner.busy:
            return
        self.verdict.setPlainText("Drafting every action...")
        worker = TaskWorker(draft_all_job, self.backend_source, self.workspace, self.evaluator, self.options,
                            self._outcome.emit, name="draft-all")
        self._start("draft-all", worker, self._on_domain_draft)

    def _on_outcome(self, item: tuple[ActionOutcome, str]) -> None:
        outcome, model = item   # recorded here, in the GUI thread, as each action's verdict arrives
        record(self.workspace, outcome, model, self.options, accept=False)
        self._refresh()

    def _on_domain_draft(self, result: DomainDraft) -> None:
        self.tabs.setCurrentWidget(self.verdict)
        from domain_drafter.presentation import format_comparison

        lines = [format_comparison(result.comparison, self.workspace.reference_bundle()),
                 f"  ARE total {result.are_total} over {result.are_defined} of {len(result.outcomes)} actions"]
        if result.failed:
            lines.append(f"  left out of D' (failed the checks): {', '.join(result.failed)}")
        self.verdict.setPlainText("\n".join(lines))

    def draft_selected(self) -> None:
        name = self.selected()
        if name is None or self.backend_source is None or self.runner.busy:
            return
        worker = TaskWorker(draft_one_job, self.backend_source, self.workspace, name, self.evaluator, self.options,
                            name="draft")
        self._start("draft", worker, self._on_drafted)

    def _on_drafted(self, result) -> None:
        if isinstance(result, tuple):   # a reference action: record its rounds here, in the GUI thread
            outcome, model = result
            record(self.workspace, outcome, model, self.options, accept=False)
        self._refresh()

    def judge(self) -> None:
        """The whole-domain verdict on the working copy as it stands."""
        if self.runner.busy:
            return
        self.verdict.setPlainText("Judging the working copy against the reference...")
        self._start("judge", TaskWorker(judge_job, self.workspace, self.evaluator, name="judge"), self._on_judged)

    def _on_judged(self, comparison) -> None:
        from domain_drafter.presentation import format_comparison

        self.tabs.setCurrentWidget(self.verdict)
        self.verdict.setPlainText("Working copy: " + format_comparison(comparison, self.workspace.reference_bundle()))

    def try_selected(self) -> None:
        name = self.selected()
        if name is None or self.runner.busy:
            return
        worker = TaskWorker(try_action, self.workspace, name, self.evaluator.planner, text=self.editor.toPlainText(),
                            name="try")
        self._start("try", worker, self._on_tried)

    def _on_tried(self, report: TryReport) -> None:
        self.tabs.setCurrentWidget(self.verdict)
        lines = [f"Try it: {report.action} is {'used' if report.used else 'not used'} by the plans"]
        for problem in report.problems:
            lines.append(f"  {problem.message}")
            lines.extend(f"      {line}" for line in problem.words)
        self.verdict.setPlainText("\n".join(lines))

    # ------------------------------------------------------------ saving

    def _on_changed(self) -> None:
        self._generation += 1
        self._update_title()
        if self.workspace.folder is not None and not self._save_pending:
            # one save for all changes of this event (Accept records an attempt, then accepts it)
            self._save_pending = True
            QTimer.singleShot(0, self._save_now)

    def _save_now(self) -> None:
        self._save_pending = False
        if self.workspace.folder is not None:
            self.save_to(self.workspace.folder)

    def save_to(self, folder: Path) -> TaskWorker:
        """Write the working copy as a bundle folder (in a worker) and bind it there."""
        generation = self._generation
        worker = TaskWorker(write_job, Path(folder), self.workspace.snapshot(), name="save")

        def done(path: object) -> None:
            self.workspace.folder = Path(str(path))
            if generation == self._generation:
                self.workspace.dirty = False
            self._update_title()
            self.saved.emit(str(path))

        return self._start("save", worker, done, self.saver)

    def export_to(self, path: Path) -> TaskWorker:
        worker = TaskWorker(export_job, Path(path), self.workspace.domain_text().encode("utf-8"), name="export")
        return self._start("export", worker, lambda p: self.saved.emit(str(p)), self.saver)

    def _ask_save_as(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Save domain as (folder)")
        if folder:
            self.save_to(Path(folder))

    def _ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export domain.pddl", "domain.pddl", "PDDL (*.pddl)")
        if path:
            self.export_to(Path(path))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self._scratch_timer.isActive():
            self._keep_scratch()
        if self._save_pending:
            self._save_now()
        if self.workspace.dirty and self.workspace.folder is None:
            answer = QMessageBox.question(
                self, "Unsaved work", f"The drafts of {self.workspace.name} are not saved. Save them first?",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
            if answer == QMessageBox.StandardButton.Cancel:
                event.ignore()
                return
            if answer == QMessageBox.StandardButton.Save:
                folder = QFileDialog.getExistingDirectory(self, "Save domain as (folder)")
                if not folder:
                    event.ignore()
                    return
                self.save_to(Path(folder))
        self.runner.shutdown()           # stops drafts (their last changes are then saved too)
        self.saver.pool.waitForDone()    # the last save reaches the disk before the window goes
        self.workspace.on_change = None
        if self._own_evaluator:
            self.evaluator.close()
        event.accept()
