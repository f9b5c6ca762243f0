"""The authoring window: draft a whole domain, accept and revert actions, keep their history, save the domain.

It edits a `WorkingCopy`, only ever on the GUI thread. The model, the planner and the disk are only
touched by workers: its own jobs (authoring_runs) and its own autosaver (authoring_saver), so closing
it waits for its work only. The model, the settings and the evaluator come from the AppState it is given;
the selected action lives in its own AuthoringSelection, which the table writes and everything else reads.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.errors import DrafterError
from domain_drafter.core.pddl_format import UnbalancedError, format_pddl
from domain_drafter.drafting.workspace import NewActionSpec, WorkingCopy
from domain_drafter.gui.authoring.candidates import AuthoringCandidates
from domain_drafter.gui.authoring.counterexample import AuthoringCounterexample
from domain_drafter.gui.authoring.descriptions import DescriptionsEditor
from domain_drafter.gui.authoring.dialogs import NewActionDialog, ask_export, ask_folder
from domain_drafter.gui.authoring.runs import AuthoringRunsMixin
from domain_drafter.gui.authoring.saver import AutoSaver
from domain_drafter.gui.authoring.selection import AuthoringSelection
from domain_drafter.gui.authoring.tables import ActionStateModel, attempt_comparison, attempt_label
from domain_drafter.gui.authoring.tests import AuthoringTests
from domain_drafter.gui.editor.code_editor import CodeEditor
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.enabling import EnablingTable
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import TaskRunner, TaskWorker

SCRATCH_DELAY_MS = 700   # after this pause in typing, the editor's text is saved with the working copy
CLOSE_TIMEOUT_MS = 5_000


class AuthoringWindow(AuthoringRunsMixin, QMainWindow):
    """Draft all, per-action Accept / Revert / history, new actions and Try it, Save domain as, Export."""

    job_ended = Signal(object, object)  # JobKind (draft-all, draft, try, judge, save, export), JobOutcome
    saved = Signal(str)                 # the folder or file written
    closed = Signal()

    def __init__(self, workspace: WorkingCopy, state: AppState | None = None, *, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self._own_state = state is None
        self.state = state or AppState(parent=self)
        self._options = self.state.draft_options()
        self._closing = False
        self.runner = TaskRunner(self)      # drafts, Try it, Judge: the buttons wait for these
        self.state.track(self.runner, "authoring")
        self.saver = AutoSaver(workspace, self)   # saves and exports, on a pool of their own
        self.actions_model = ActionStateModel(workspace, self)
        self.selection = AuthoringSelection(self)   # the action worked on: the table writes it, the rest reads it
        self._build()
        self._shown: str | None = None      # the action whose text the editor holds
        self._scratch_timer = QTimer(self)  # a pause in typing saves the text being edited
        self._scratch_timer.setSingleShot(True)
        self._scratch_timer.setInterval(SCRATCH_DELAY_MS)
        self._scratch_timer.timeout.connect(self._keep_scratch)
        self.editor.textChanged.connect(self._scratch_timer.start)   # typed (a shown text is set silently)
        self.table.selectionModel().currentRowChanged.connect(self._on_row_chosen)
        self.selection.changed.connect(self._on_selection_changed)
        for source in (self.runner.job_ended, self.saver.job_ended):
            source.connect(self.job_ended)
        self.saver.saved.connect(self._on_saved)
        self.saver.failed.connect(lambda err: self.say(f"Not saved: {describe_error(err).text}"))
        workspace.on_change = self._on_changed
        self.enabling = EnablingTable(self._enabling_rules(), self)   # its connections end with this window
        self.candidates = AuthoringCandidates(self, parent=self)   # Draft N: its tab, job and enabling row
        self.tests = AuthoringTests(self, parent=self)   # the Tests tab: runs now, after Accept, Judge, on disk
        self.counterexample = AuthoringCounterexample(self, parent=self)   # the last answer's distinguishing state
        self.runner.busy_changed.connect(self.enabling.refresh)
        self.state.model_changed.connect(self._on_model_changed)   # a slot of the window: ends with it
        self._watching_state = True
        self.runner.busy_changed.connect(self.progress.setVisible)
        opened_on = self.state.action if self.state.action in workspace.entries else None   # the main window's action
        self.select(opened_on or (self.actions_model.name_at(0) if self.actions_model.rowCount() else None))
        self._update_title()
        self.enabling.refresh()
        self.resize(1100, 700)

    # ------------------------------------------------------------ layout

    def _build(self) -> None:
        self.table = QTableView()
        self.table.setModel(self.actions_model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.editor = CodeEditor()
        self.history = QListWidget()
        self.history.setWordWrap(True)
        self.verdict = QPlainTextEdit()
        self.verdict.setReadOnly(True)
        self.verdict.setPlaceholderText("The whole-domain verdict and Try it results show here.")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        labels = {"draft_all": "Draft all", "stop": "Stop", "draft": "Draft", "draft_n": "Draft N", "accept": "Accept",
                  "revert": "Revert to reference", "add": "New action...", "try": "Try it",
                  "judge": "Judge working copy", "restore": "Restore attempt", "compare": "Compare with reference"}
        for key, text in labels.items():
            setattr(self, f"{key}_button", QPushButton(text))
        buttons = self.button_row = QHBoxLayout()    # the Candidates part puts Until proven after Draft N
        for key in ("draft_all", "stop", "draft", "draft_n", "accept", "revert", "add", "try", "judge"):
            buttons.addWidget(getattr(self, f"{key}_button"))
        buttons.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        for widget in (QLabel("History"), self.history, self.restore_button, self.compare_button):
            right_layout.addWidget(widget)
        top = QSplitter()
        for widget in (self.table, self.editor, right):
            top.addWidget(widget)
        self.descriptions_editor = DescriptionsEditor(self.workspace)
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
        for button, slot in ((self.draft_all_button, self.draft_all), (self.stop_button, self.runner.cancel_all),
                             (self.draft_button, self.draft_selected), (self.accept_button, self.accept_selected),
                             (self.revert_button, self.revert_selected), (self.restore_button, self.restore_attempt),
                             (self.compare_button, self.compare_attempt), (self.add_button, self._ask_new_action),
                             (self.try_button, self.try_selected), (self.judge_button, self.judge)):
            button.clicked.connect(slot)
        self.history.itemDoubleClicked.connect(lambda *_: self.restore_attempt())
        menu = self.menuBar().addMenu("&File")
        self.save_as_action = QAction("Save domain as...", self)
        self.save_as_action.setShortcut(QKeySequence.StandardKey.SaveAs)
        self.save_as_action.triggered.connect(self._ask_save_as)
        self.export_action = QAction("Export domain.pddl...", self)
        self.export_action.triggered.connect(lambda: ask_export(self, self.export_to))
        close = QAction("Close", self)
        close.setShortcut(QKeySequence.StandardKey.Close)
        close.triggered.connect(self.close)
        for action in (self.save_as_action, self.export_action, close):
            menu.addAction(action)

    def _enabling_rules(self) -> list:
        """What may be used when: this window's one enabling table."""
        def idle() -> bool:
            return not self.runner.busy

        def entry():
            name = self.selected()
            return self.workspace.entries.get(name) if name else None

        def model() -> bool:
            return self.state.model is not None

        rules = [(self.draft_all_button, lambda: idle() and model()),
                 (self.draft_button, lambda: idle() and model() and entry() is not None),
                 (self.stop_button, lambda: self.runner.busy), (self.add_button, idle),
                 (self.try_button, lambda: idle() and entry() is not None and entry().new is not None),
                 (self.judge_button, idle)]
        rules += [(b, lambda: idle() and entry() is not None)
                  for b in (self.accept_button, self.revert_button, self.restore_button, self.compare_button)]
        return rules

    def selected(self) -> str | None:
        return self.selection.name

    def select(self, name: str | None) -> None:
        self.selection.set(name)

    def _on_row_chosen(self, current, _previous) -> None:   # the table writes the user's pick
        self.selection.set(self.actions_model.name_at(current.row()) if current.isValid() else None)

    def _on_selection_changed(self, name: str | None) -> None:
        """The selection, shown: the table's row (its echo sets the same name: no change) and the editor."""
        if name is not None and self.table.currentIndex().row() != self.actions_model.row_of(name):
            self.table.selectRow(self.actions_model.row_of(name))
        self._show_selected()

    def _on_model_changed(self, _entry: object) -> None:
        self.enabling.refresh()

    def _update_title(self) -> None:
        where = str(self.workspace.folder) if self.workspace.folder else "not saved"
        self.setWindowTitle(f"{'*' if self.workspace.dirty else ''}{self.workspace.name} ({where}) - Authoring")

    def say(self, text: str) -> None:
        self.status.setText(text)

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
        name = self._shown = self.selected()
        self._fill_history(name)
        if name is not None:
            entry = self.workspace.entries[name]   # shown, not typed: no scratch save
            self.editor.show_text(entry.scratch if entry.scratch is not None else self._baseline(name))
        self.enabling.refresh()

    def _fill_history(self, name: str | None) -> None:
        self.history.clear()
        for attempt in self.workspace.entries[name].attempts if name is not None else ():
            item = QListWidgetItem(attempt_label(attempt))
            item.setToolTip(attempt.text)
            self.history.addItem(item)

    def _keep_scratch(self) -> None:
        """Put the editor's text into the working copy (and so on disk) unless it is what it would show anyway."""
        self._scratch_timer.stop()
        name = self._shown
        if name is None or name not in self.workspace.entries:
            return
        text = self.editor.toPlainText()
        self.workspace.set_scratch(name, None if text == self._baseline(name) else text)

    def after_change(self, name: str) -> None:
        """`name` changed: its row updates in place (selection kept); the editor follows if it shows it."""
        self.actions_model.changed(name)
        if name == self.selected():
            self._show_selected()
        self._update_title()
        self.enabling.refresh()

    # ------------------------------------------------------------ editing

    def accept_selected(self) -> bool:
        """Accept the editor's text (formatted) as the selected action; a refusal changes nothing."""
        name = self.selected()
        if name is None:
            return False
        entry = self.workspace.entries[name]
        text = self.editor.toPlainText()
        report = self.workspace.check(name, text)
        if not report.passed:
            finding = report.findings[0]
            self.say(f"Not accepted: {finding.subclass.value}: {finding.message}")
            return False
        self._scratch_timer.stop()
        number = next((a.number for a in entry.attempts if a.text == text), None)
        if number is None:
            number = self.workspace.add_attempt(name, text, source="hand",
                                                message="passed the syntax and semantic checks").number
        candidate = report.candidate or text
        try:   # kept in the same indented layout as the reference's actions
            formatted = format_pddl(candidate).strip()
        except UnbalancedError:
            formatted = candidate
        try:
            self.workspace.accept(name, formatted, attempt=number)
        except DrafterError:
            self.workspace.accept(name, attempt=number)
        self.say(f"Accepted {name} (attempt {number}).")
        self.after_change(name)
        self.tests.run()
        return True

    def revert_selected(self) -> None:
        name = self.selected()
        if name is not None:
            self._scratch_timer.stop()
            self.workspace.revert(name)
            self.say(f"{name}: back to the reference." if self.workspace.entries[name].reference
                      else f"{name}: no accepted definition.")
            self.after_change(name)
            self.tests.run()

    def restore_attempt(self) -> None:
        """Put the selected attempt's text into the editor (Accept keeps it)."""
        name, row = self.selected(), self.history.currentRow()
        if name is not None and row >= 0:
            self.editor.setPlainText(self.workspace.entries[name].attempts[row].text)

    def compare_attempt(self) -> None:
        """Show the selected attempt (or the editor's text) against the reference action: verdict and ARE."""
        name, row = self.selected(), self.history.currentRow()
        if name is not None:
            self.tabs.setCurrentWidget(self.verdict)
            self.verdict.setPlainText("\n".join(attempt_comparison(self.workspace, name, row,
                                                                   self.editor.toPlainText())))

    def add_action(self, spec: NewActionSpec) -> None:
        self.workspace.add_action(spec)
        self.descriptions_editor.fill()
        self.actions_model.changed(spec.name.lower())
        self.select(spec.name.lower())

    def _ask_new_action(self) -> None:
        dialog = NewActionDialog(self, self.workspace.working_domain())
        while dialog.exec() == QDialog.DialogCode.Accepted:
            try:
                self.add_action(dialog.spec())
                return
            except DrafterError as err:
                QMessageBox.warning(self, "Cannot add the action", describe_error(err).text)

    # ------------------------------------------------------------ saving

    def _on_changed(self) -> None:
        self._update_title()
        self.saver.changed()

    def _on_saved(self, path: str) -> None:
        self._update_title()
        self.tests.folder_changed()
        self.say(f"Saved to {path}")
        self.saved.emit(path)

    def _flush_scratch(self) -> None:
        """Keep the text typed in the editor (not yet kept: its pause timer is running) before a save reads the copy."""
        if self._scratch_timer.isActive():
            self._keep_scratch()

    def save_to(self, folder: Path) -> TaskWorker:
        """Write the working copy as a bundle folder (in the save worker) and bind it there."""
        self._flush_scratch()
        return self.saver.save_to(Path(folder))

    def export_to(self, path: Path) -> TaskWorker:
        self._flush_scratch()
        return self.saver.export_to(Path(path))

    def _ask_save_as(self) -> None:
        folder = ask_folder(self, "Save domain as (a new or empty folder)", self.workspace.name)
        if folder is not None:
            self.save_to(folder)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._flush_scratch()
        if self.workspace.dirty and self.workspace.folder is None and not self._closing:
            answer = QMessageBox.question(
                self, "Unsaved work", f"The drafts of {self.workspace.name} are not saved. Save them first?",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
            if answer == QMessageBox.StandardButton.Cancel:
                event.ignore()
                return
            if answer == QMessageBox.StandardButton.Save:
                folder = ask_folder(self, "Save domain as (a new or empty folder)", self.workspace.name)
                if folder is None:
                    event.ignore()
                    return
                self.save_to(folder)
        self._closing = True
        self.runner.shutdown(CLOSE_TIMEOUT_MS)   # this window's drafts only
        self.tests.close(CLOSE_TIMEOUT_MS)
        QCoreApplication.sendPostedEvents()      # their last outcomes are recorded (and so saved) too
        self.saver.close(CLOSE_TIMEOUT_MS)       # the last save reaches the disk before the window goes
        self.workspace.on_change = None
        if self._watching_state:   # the state outlives this window (a second close finds it disconnected)
            self.state.model_changed.disconnect(self._on_model_changed)
            self._watching_state = False
        if self._own_state:
            self.state.close()
        event.accept()
        self.closed.emit()
