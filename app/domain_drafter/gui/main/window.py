"""The main window: lays out the panels, starts its own jobs, reports errors; no engine logic here.

Everything the window shows as "current" (domain, action, class, seed, model, settings) lives in the
`AppState` it is given (or makes), which the other windows and dialogs share: widgets write to it, views follow it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QSplitter, QWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.errors import DrafterError, ModelError
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.gui.authoring.menu import install_authoring_menu
from domain_drafter.gui.dialogs.bench_menu import install_benchmark_menu
from domain_drafter.gui.dialogs.help_dialogs import ResultClassesDialog
from domain_drafter.gui.dialogs.prompt_dialog import PromptDialog
from domain_drafter.gui.dialogs.settings_dialog import SettingsDialog
from domain_drafter.gui.editor.edit_menu import add_edit_commands, add_zoom_commands
from domain_drafter.gui.look.theme import theme_notifier
from domain_drafter.gui.main.candidates import MainCandidates
from domain_drafter.gui.main.closing import WindowClosingMixin
from domain_drafter.gui.main.domain_tests import DomainTestsDock
from domain_drafter.gui.main.draft_controller import DraftController
from domain_drafter.gui.main.files import WindowFilesMixin
from domain_drafter.gui.main.model_status import GetModelMenu, ModelStatus, job_status_widgets
from domain_drafter.gui.main.remembered import WindowState
from domain_drafter.gui.main.settings_help import WindowSettingsMixin
from domain_drafter.gui.main.toolbar import DraftToolBar
from domain_drafter.gui.main.verdict_tests import VerdictTests
from domain_drafter.gui.panels.answer_panel import AnswerPanel
from domain_drafter.gui.panels.description_panel import DescriptionPanel
from domain_drafter.gui.panels.domain_panel import DomainPanel
from domain_drafter.gui.panels.result_panel import ResultPanel
from domain_drafter.gui.state.app_state import AppState, Target
from domain_drafter.gui.state.enabling import EnablingTable
from domain_drafter.gui.state.jobs import StartupData, load_startup
from domain_drafter.gui.state.settings import AppSettings, load_settings
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.llm.models import ModelEntry
from domain_drafter.planning.evaluate import Evaluator

APP_TITLE = "Domain Drafter"
JOB_LABELS = {JobKind.STARTUP: "Loading", JobKind.OPEN: "Opening", JobKind.GENERATE: "Generating",
              JobKind.EVALUATE: "Evaluating"}
FAILURE_TITLES = {JobKind.STARTUP: "Cannot load the domains", JobKind.OPEN: "Cannot open the domain",
                  JobKind.GENERATE: "Generation failed", JobKind.EVALUATE: "Evaluation failed"}
WARM_DELAY_MS = 400    # after the selection settles, read its prompt into the loaded model
MIN_POOL_THREADS = 4   # model load, generation and K* may run at once, whatever the CPU count


class MainWindow(WindowClosingMixin, WindowSettingsMixin, WindowFilesMixin, QMainWindow):
    error_reported = Signal(object)    # the exception of an error shown to the user (its text: describe_error)
    result_shown = Signal(object)      # an EvaluationResult now on screen
    job_ended = Signal(object, object)  # JobKind (startup, open, generate, evaluate), JobOutcome

    def __init__(self, parent: QWidget | None = None, *, state: AppState | None = None,
                 evaluator: Evaluator | None = None, load: bool = True, app_settings: AppSettings | None = None):
        super().__init__(parent)
        self.setWindowTitle(APP_TITLE)
        self.setAcceptDrops(True)
        pool = QThreadPool.globalInstance()
        pool.setMaxThreadCount(max(pool.maxThreadCount(), MIN_POOL_THREADS))
        self.state = state or AppState(app_settings or load_settings(), evaluator=evaluator, parent=self)
        self.runner = TaskRunner(self)
        self.state.track(self.runner, "main")
        self.last_error = ""
        self.prompt_dialog: PromptDialog | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.classes_dialog: ResultClassesDialog | None = None
        self.authoring_windows: list[QMainWindow] = []
        self._job_kind = JobKind.OTHER
        self.closing = False
        self._started = False   # the bundled domains and the models are listed
        self._build_panels()
        self.drafts = DraftController(self.state, self.answer_panel, self.result_panel, parent=self)
        self.drafts.result_shown.connect(self.result_shown)
        self.drafts.status.connect(self.show_status)
        self.drafts.streaming.connect(self._on_streaming)
        self._build_actions()
        self.status_label, self.progress_bar = job_status_widgets(self.statusBar())
        self.model_status = ModelStatus(self.state.models, self.statusBar(), self)
        self.model_status.failed.connect(self._on_model_failed)
        self.drafts.generated.connect(self._on_generated)
        self.drafts.result_shown.connect(self.domain_tests.show_findings)   # the Tests panel lists the invariant findings
        self.domain_tests.panel.findings.edit_requested.connect(self.apply_finding_edit)
        self.drafts.evaluated.connect(self.model_status.show_evaluation)
        self.runner.busy_changed.connect(self._on_busy_changed)
        self.runner.job_ended.connect(self.job_ended)
        self.state.settings_save_failed.connect(self._on_settings_save_failed)   # a slot of the window: ends with it
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(WARM_DELAY_MS)
        self._warm_timer.timeout.connect(self._warm_prompt)
        self.description_panel.options_changed.connect(self.state.set_description)   # the widget writes to the state
        self.state.target_changed.connect(self._on_target_changed)   # slots of the window: they end with it
        self.state.domains_changed.connect(self.domain_panel.show_domains)   # the list is the state's (silently)
        self.model_selector.bind(self.state)   # so are the models on offer and the one in use
        self.window_state = WindowState(self, {"main": self.main_splitter, "centre": self.centre_splitter,
                                               "answer": self.answer_panel.splitter})
        self.window_state.restore()
        self._apply_settings_to_widgets()
        theme_notifier().changed.connect(self._on_scheme_changed)
        self.enabling = EnablingTable(self._enabling_rules(), self)   # its connections end with this window
        for signal in (self.runner.busy_changed, self.state.target_changed, self.state.model_changed,
                       self.model_status.state_changed):
            signal.connect(self.enabling.refresh)
        self.candidates = MainCandidates(self, self.toolbar.candidates_action, self, self.toolbar.search_action)   # its job, dock, enabling
        self.verdict_tests = VerdictTests(self, self)   # Keep as test, Must never happen… on the verdict shown
        self.enabling.refresh()
        if load:
            self.reload()

    # --- construction ----------------------------------------------------------------------
    def _build_panels(self) -> None:
        self.domain_panel = DomainPanel()
        self.description_panel = DescriptionPanel()
        self.answer_panel = AnswerPanel()
        self.result_panel = ResultPanel()
        centre = self.centre_splitter = QSplitter(Qt.Orientation.Vertical)
        centre.setObjectName("centreSplitter")
        centre.addWidget(self.description_panel)
        centre.addWidget(self.answer_panel)
        centre.setSizes([300, 420])
        centre.setChildrenCollapsible(False)
        main = self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        main.setObjectName("mainSplitter")
        for widget, stretch in ((self.domain_panel, 0), (centre, 3), (self.result_panel, 3)):
            main.addWidget(widget)
            main.setStretchFactor(main.count() - 1, stretch)
        main.setSizes([170, 560, 530])
        main.setChildrenCollapsible(False)
        main.setContentsMargins(6, 4, 6, 0)
        self.setCentralWidget(main)
        self.result_panel.explain_requested.connect(self.show_result_classes)
        self.domain_panel.action_selected.connect(self._on_action_selected)
        self.domain_panel.open_requested.connect(self.open_domain_dialog)

    def _build_actions(self) -> None:
        self.toolbar = DraftToolBar(self)
        self.addToolBar(self.toolbar)
        self.model_selector = self.toolbar.model_selector
        self.grammar_check = self.toolbar.grammar_check
        self.generate_action = self.toolbar.generate_action
        self.stop_action = self.toolbar.stop_action
        self.evaluate_action = self.toolbar.evaluate_action
        self.prompt_action = self.toolbar.prompt_action
        self.generate_action.triggered.connect(self.generate)
        self.stop_action.triggered.connect(self.stop)
        self.evaluate_action.triggered.connect(self.evaluate)
        self.prompt_action.triggered.connect(self.show_prompt)
        self.model_selector.currentIndexChanged.connect(self._on_model_selected)
        self.toolbar.bind_grammar(self.state)   # the switch writes the setting and follows it
        editor = self.answer_panel.editor

        file_menu = self.menuBar().addMenu("&File")
        self.open_action = file_menu.addAction("Open domain folder…", QKeySequence.StandardKey.Open,
                                               self.open_domain_dialog)
        self.recent_menu = file_menu.addMenu("Open recent domain")
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addAction("Open model file…", self.open_model_dialog)
        self.get_model_menu = GetModelMenu(self, file_menu, self.state, self.show_status)   # main/model_status.py
        file_menu.addSeparator()
        self.settings_action = file_menu.addAction("Settings…", QKeySequence("Ctrl+,"), self.show_settings)
        file_menu.addSeparator()
        file_menu.addAction("Quit", QKeySequence.StandardKey.Quit, self.close)
        edit_menu = self.menuBar().addMenu("&Edit")
        self.edit_actions = add_edit_commands(edit_menu, editor)   # Undo, Redo, Cut, Copy, Paste, Select all
        edit_menu.addSeparator()
        self.format_action = edit_menu.addAction("Format action", QKeySequence("Ctrl+Shift+F"), self.format_answer)
        self.find_action = edit_menu.addAction("Find…", QKeySequence.StandardKey.Find, self.answer_panel.show_find)
        add_zoom_commands(edit_menu, editor)
        run_menu = self.menuBar().addMenu("&Run")
        for action in self.toolbar.run_actions:
            run_menu.addAction(action)
        install_benchmark_menu(self, self.state)   # Benchmark > Run benchmark… (gui/dialogs/bench_menu.py)
        install_authoring_menu(self, self.state)   # Authoring > Draft this domain… (gui/authoring/menu.py)
        self.domain_tests = DomainTestsDock(self, self, self.authoring_menu)   # Authoring > Domain tests
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction("Result classes", lambda: self.show_result_classes(None))
        help_menu.addAction("About Domain Drafter", self._about)

    def _enabling_rules(self) -> list:
        """What may be used when: the one table of this window's menu, toolbar and panel enabling."""
        state = self.state

        def idle() -> bool:
            return not self.runner.busy

        def ready() -> bool:
            return idle() and state.has_target

        return [(self.generate_action, lambda: ready() and state.model is not None and not state.generate_blocker()),
                (self.evaluate_action, ready), (self.prompt_action, lambda: state.has_target),
                (self.stop_action, lambda: self.runner.busy), (self.open_action, idle),
                (self.format_action, idle), (self.settings_action, idle), (self.domain_panel, idle),
                (self.model_selector, idle), (self.grammar_check, idle)]

    # --- state -----------------------------------------------------------------------------
    @property
    def app_settings(self) -> AppSettings:
        return self.state.settings

    def current_bundle(self) -> DomainBundle | None:   # the current things are the state's (the widgets write them)
        return self.state.bundle

    def current_action(self) -> str:
        return self.state.action

    def current_model(self) -> ModelEntry | None:
        return self.state.model

    def draft_options(self) -> DraftOptions:
        return self.state.draft_options()

    def show_status(self, text: str, *, fit: bool = False) -> None:
        """A line longer than the status line's width is elided in its middle, whole in its tooltip (StatusLine).
        `fit` is kept for the callers that asked for it; every line fits now."""
        self.status_label.setText(text)

    def _on_action_selected(self, action: str) -> None:   # the user's pick goes to the state; the views follow it
        self.state.set_target(self.domain_panel.current_bundle(), action)

    def _on_target_changed(self, target: Target) -> None:
        """The state's target, shown: the panels (silently), why Generate cannot run, the title; then warm it."""
        bundle, action = target.bundle, target.action
        self.domain_panel.show_target(bundle, action)
        self.description_panel.show_target(bundle, action, target.description_class, target.seed)
        if blocker := self.state.generate_blocker():
            self.show_status(blocker)
        self.toolbar.explain_generate(blocker)
        title = f"{bundle.name} / {action}" if bundle is not None and action else ""
        named = QApplication.applicationDisplayName() == APP_TITLE   # then Qt appends it to every window title
        self.setWindowTitle((title if named else f"{APP_TITLE} — {title}") if title else APP_TITLE)
        self._warm_timer.start()

    def current_prompt_text(self) -> str:
        """The prompt Generate would send now ('' if there is none)."""
        if not self.state.has_target or not self.state.bundles:
            return ""
        try:
            return self.state.prompt().text
        except DrafterError:
            return ""

    # --- jobs ------------------------------------------------------------------------------
    def start_job(self, worker: TaskWorker, on_finished=None) -> bool:
        """Start a worker (one job at a time in this window)."""
        if self.runner.busy or self.closing:
            self.show_status("Busy: stop the running job first")
            return False
        self._job_kind = worker.kind
        worker.signals.progress.connect(self._on_progress)
        if on_finished is not None:
            worker.signals.finished.connect(on_finished)
        worker.signals.failed.connect(self._on_failed)
        worker.signals.cancelled.connect(self._on_cancelled)
        self.runner.start(worker)
        return True

    def _on_model_selected(self, _index: int) -> None:
        """Another model picked in the toolbar: written to the state (main/files.py)."""
        self.choose_model(self.model_selector.current_entry())

    def _warm_prompt(self) -> None:
        """Read the selected action's prompt into the loaded model, so Generate starts writing at once."""
        if self.closing or self.runner.busy or not self.app_settings.preload_model:
            return
        entry = self.current_model()
        if entry is not None and self.model_status.is_loaded(entry):
            self.model_status.preload(entry, self.current_prompt_text())

    def _on_busy_changed(self, busy: bool) -> None:
        self.answer_panel.set_busy(busy)
        self.progress_bar.setVisible(busy)
        if busy:
            self.progress_bar.setRange(0, 0)   # moving until the job says how far it is
            self.progress_bar.setFormat("")

    def _on_progress(self, done: int, total: int, message: str) -> None:
        if self.closing:
            return
        if total > 0 and not (self._job_kind is JobKind.GENERATE and done >= total):
            self.progress_bar.setRange(0, total)
            self.progress_bar.setValue(min(done, total))
        if message:
            self.show_status(f"{JOB_LABELS.get(self._job_kind, 'Working')}: {message}")

    def _on_streaming(self, tokens: int, most: int) -> None:
        if not self.closing and most > 0:
            self.progress_bar.setRange(0, most)
            self.progress_bar.setValue(min(tokens, most))
            self.progress_bar.setFormat(f"{tokens} tokens")

    def _on_failed(self, error: BaseException) -> None:
        if not self.closing:
            self.report_exception(FAILURE_TITLES.get(self._job_kind, "Error"), error)

    def _on_cancelled(self) -> None:
        if not self.closing:
            self.show_status("Stopped")

    def stop(self) -> None:
        """Cancel the running generation or evaluation (loading the bundled domains is not stopped)."""
        if self.runner.busy and self._job_kind is not JobKind.STARTUP:
            self.runner.cancel_all()
            self.show_status("Stopping…")

    def reload(self) -> None:
        """Load the bundled domains and list the models (in a worker)."""
        self.show_status("Loading the bundled domains…")
        self.start_job(TaskWorker(load_startup, kind=JobKind.STARTUP), self._on_startup_loaded)

    def _on_startup_loaded(self, data: StartupData) -> None:
        if self.closing:
            return
        self.state.set_bundles(data.bundles)          # the domain list and the model selector follow the state
        self.state.set_model_entries(data.models)
        setting = self.app_settings.model
        self.state.set_model(self.state.model_for_file(setting) if setting else next(iter(data.models), None))
        if data.bundles:
            first = data.bundles[0]
            self.state.set_target(first, next(iter(first.action_names), ""))
        models = len(self.state.model_entries)
        self.show_status(f"{len(data.bundles)} domains, {models} model{'' if models == 1 else 's'}")
        self._started = True
        if self.app_settings.preload_model:
            self._warm_timer.stop()
            self.model_status.preload(self.current_model(), self.current_prompt_text())

    def generate(self) -> None:
        """Ask the selected model for the selected action (streaming into the editor), then evaluate."""
        entry = self.state.model
        if not self.state.has_target or self.runner.busy:
            return
        if entry is None:
            self.report_exception("No model", ModelError("no model to use", hint="File ▸ Open model file…"))
            return
        self._warm_timer.stop()
        self.start_job(self.drafts.generate_worker(entry))

    def evaluate(self) -> None:
        """Judge the text in the answer editor (typed, pasted or generated)."""
        if self.state.has_target and not self.runner.busy and (worker := self.drafts.evaluate_worker()):
            self.start_job(worker)

    def _on_generated(self, draft) -> None:
        self.model_status.show_generation(draft.rounds[-1].generation.stats, draft.final)
        if self.state.model is not None:
            self.model_status.model_used(self.state.model.name)

    def _on_scheme_changed(self, _scheme: object) -> None:
        """Light/dark switched: repaint what draws the scheme's colours itself."""
        self.answer_panel.editor.refresh_colours()
        self.result_panel.refresh_colours()
        for view in (self.answer_panel.finding_list, self.result_panel.plan_view, self.result_panel.are_table):
            view.viewport().update()

    def apply_finding_edit(self, action: str, key: str) -> None:
        """The Tests panel's Apply edit: the finding's edit made in the answer, then judged again."""
        if self.runner.busy:
            self.show_status("Not edited: wait for the running job to end (or Stop it)")
            return
        done = self.drafts.apply_finding_edit(action, key)
        if done is None:
            self.show_status("Not edited: the answer changed since it was judged; press Evaluate first")
            return
        self.show_status(f"Edited: {done}; judging it again (Edit ▸ Undo takes the edit back)")
        self.evaluate()

    def format_answer(self) -> None:
        """Edit ▸ Format: the answer in canonical indented form, comments kept (one undo step)."""
        if not self.runner.busy:
            self.show_status(self.answer_panel.editor.format_text() or "Formatted")

    def show_fitted(self) -> None:
        """Show at the saved geometry, or maximised / sized from the screen (see geometry.py)."""
        self.window_state.show_fitted()
