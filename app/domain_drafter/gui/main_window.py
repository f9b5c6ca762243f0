"""The main window: lays out the panels, starts the workers, reports errors; no engine logic here."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar, QSplitter, QWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.errors import DrafterError
from domain_drafter.core.prompt import build_prompt
from domain_drafter.gui.answer_panel import AnswerPanel
from domain_drafter.gui.bench_dialog import install_benchmark_menu
from domain_drafter.gui.description_panel import DescriptionPanel
from domain_drafter.gui.domain_panel import DomainPanel
from domain_drafter.gui.draft_controller import DraftController
from domain_drafter.gui.drops import dropped_domain
from domain_drafter.gui.help_dialogs import ResultClassesDialog
from domain_drafter.gui.model_status import ModelStatus
from domain_drafter.gui.settings import AppSettings, load_settings
from domain_drafter.gui.settings_dialog import SettingsDialog
from domain_drafter.gui.theme import theme_notifier
from domain_drafter.gui.window_settings import WindowSettingsMixin
from domain_drafter.gui.window_state import WindowState, gui_settings
from domain_drafter.gui.jobs import StartupData, load_startup, model_failure_advice, open_bundle
from domain_drafter.gui.prompt_dialog import PromptDialog
from domain_drafter.gui.result_panel import ResultPanel
from domain_drafter.gui.toolbar import DraftToolBar
from domain_drafter.gui.workers import TaskRunner, TaskWorker
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.llm.models import ModelEntry
from domain_drafter.planning.evaluate import Evaluator

APP_TITLE = "Domain Drafter"
SHUTDOWN_TIMEOUT_MS = 10_000
JOB_LABELS = {"startup": "Loading", "open": "Opening", "generate": "Generating", "evaluate": "Evaluating"}
FAILURE_TITLES = {"startup": "Cannot load the domains", "open": "Cannot open the domain",
                  "generate": "Generation failed", "evaluate": "Evaluation failed"}


WARM_DELAY_MS = 400    # after the selection settles, read its prompt into the loaded model
MIN_POOL_THREADS = 4   # model load, generation and K* may run at once, whatever the CPU count


def settings() -> QSettings:
    """Window state only (geometry, splitters, recent domains): see window_state.py."""
    return gui_settings()


class MainWindow(WindowSettingsMixin, QMainWindow):
    error_reported = Signal(str)     # the message of an error shown to the user
    result_shown = Signal(object)    # an EvaluationResult now on screen
    job_ended = Signal(str, str)     # kind ("startup", "open", "generate", "evaluate"), outcome

    def __init__(self, parent: QWidget | None = None, *, evaluator: Evaluator | None = None, load: bool = True,
                 app_settings: AppSettings | None = None):
        super().__init__(parent)
        self.setWindowTitle(APP_TITLE)
        self.setAcceptDrops(True)
        pool = QThreadPool.globalInstance()
        pool.setMaxThreadCount(max(pool.maxThreadCount(), MIN_POOL_THREADS))
        self.app_settings = app_settings or load_settings()
        self.runner = TaskRunner(self)
        self.bundled: list[DomainBundle] = []
        self.last_error = ""
        self.prompt_dialog: PromptDialog | None = None
        self._job_kind = ""
        self._closing = False
        self._started = False   # the bundled domains and the models are listed
        self._build_panels()
        evaluator = evaluator or Evaluator(self.app_settings.evaluation_options())
        self.drafts = DraftController(self.answer_panel, self.result_panel, evaluator=evaluator, parent=self)
        self.drafts.models.n_threads = self.app_settings.threads
        self.drafts.result_shown.connect(self.result_shown)
        self.drafts.status.connect(self.show_status)
        self.settings_dialog: SettingsDialog | None = None
        self.classes_dialog: ResultClassesDialog | None = None
        self._build_actions()
        self._build_status_bar()
        self.model_status = ModelStatus(self.drafts.models, self.statusBar(), self)
        self.model_status.failed.connect(self._on_model_failed)
        self.model_status.state_changed.connect(self._update_actions)
        self.drafts.generated.connect(self._on_generated)
        self.drafts.evaluated.connect(self.model_status.show_evaluation)
        self.runner.busy_changed.connect(self._on_busy_changed)
        self.runner.job_ended.connect(self.job_ended)
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(WARM_DELAY_MS)
        self._warm_timer.timeout.connect(self._warm_prompt)
        self.description_panel.options_changed.connect(self._warm_timer.start)
        self.window_state = WindowState(self, {"main": self.main_splitter, "centre": self.centre_splitter,
                                               "answer": self.answer_panel.splitter})
        self.window_state.restore()
        self._apply_settings_to_widgets()
        theme_notifier().changed.connect(self._on_scheme_changed)
        self._update_actions()
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
        main.addWidget(self.domain_panel)
        main.addWidget(centre)
        main.addWidget(self.result_panel)
        main.setStretchFactor(0, 0)
        main.setStretchFactor(1, 3)
        main.setStretchFactor(2, 3)
        main.setSizes([170, 560, 530])
        main.setChildrenCollapsible(False)
        main.setContentsMargins(6, 4, 6, 0)
        self.setCentralWidget(main)
        self.result_panel.explain_requested.connect(self.show_result_classes)
        self.domain_panel.domain_selected.connect(self.description_panel.show_bundle)
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
        self.model_selector.currentIndexChanged.connect(self._update_actions)
        self.model_selector.currentIndexChanged.connect(self._on_model_selected)

        self.grammar_check.toggled.connect(self._on_grammar_toggled)
        editor = self.answer_panel.editor

        file_menu = self.menuBar().addMenu("&File")
        self.open_action = file_menu.addAction("Open domain folder…", QKeySequence.StandardKey.Open,
                                               self.open_domain_dialog)
        self.recent_menu = file_menu.addMenu("Open recent domain")
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addAction("Open model file…", self.open_model_dialog)
        file_menu.addSeparator()
        self.settings_action = file_menu.addAction("Settings…", QKeySequence("Ctrl+,"), self.show_settings)
        file_menu.addSeparator()
        file_menu.addAction("Quit", QKeySequence.StandardKey.Quit, self.close)
        edit_menu = self.menuBar().addMenu("&Edit")
        self.format_action = edit_menu.addAction("Format action", QKeySequence("Ctrl+Shift+F"), self.format_answer)
        self.find_action = edit_menu.addAction("Find…", QKeySequence.StandardKey.Find, self.answer_panel.show_find)
        edit_menu.addSeparator()
        edit_menu.addAction("Zoom in", QKeySequence.StandardKey.ZoomIn, editor.zoom_in)
        edit_menu.addAction("Zoom out", QKeySequence.StandardKey.ZoomOut, editor.zoom_out)
        edit_menu.addAction("Reset zoom", QKeySequence("Ctrl+0"), editor.reset_zoom)
        run_menu = self.menuBar().addMenu("&Run")
        for action in self.toolbar.run_actions:
            run_menu.addAction(action)
        install_benchmark_menu(self)   # Benchmark > Run benchmark… (gui/bench_dialog.py)
        from domain_drafter.gui.authoring_menu import install_authoring_menu
        install_authoring_menu(self)   # Authoring > Draft this domain… (gui/authoring_menu.py)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction("Result classes", lambda: self.show_result_classes(None))
        help_menu.addAction("About Domain Drafter", self._about)

    def _build_status_bar(self) -> None:
        self.status_label = QLabel("Ready")
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(220)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.hide()
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress_bar)

    # --- state -----------------------------------------------------------------------------
    def current_bundle(self) -> DomainBundle | None:
        return self.domain_panel.current_bundle()

    def current_action(self) -> str:
        return self.domain_panel.current_action()

    def current_model(self) -> ModelEntry | None:
        return self.model_selector.current_entry()

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)

    def _update_actions(self) -> None:
        busy = self.runner.busy
        ready = self.current_bundle() is not None and bool(self.current_action())
        self.generate_action.setEnabled(not busy and ready and self.model_selector.count() > 0)
        self.evaluate_action.setEnabled(not busy and ready)
        self.prompt_action.setEnabled(ready)
        self.stop_action.setEnabled(busy)
        self.open_action.setEnabled(not busy)
        self.format_action.setEnabled(not busy)
        self.settings_action.setEnabled(not busy)
        for widget in (self.domain_panel, self.model_selector, self.grammar_check):
            widget.setEnabled(not busy)

    def _on_action_selected(self, action: str) -> None:
        bundle = self.current_bundle()
        self.description_panel.show_action(action)
        self.drafts.set_target(bundle, action)
        title = f"{bundle.name} / {action}" if bundle is not None and action else ""
        self.setWindowTitle(f"{APP_TITLE} — {title}" if title else APP_TITLE)
        self._update_actions()
        self._warm_timer.start()

    # --- jobs ------------------------------------------------------------------------------
    def _start(self, worker: TaskWorker, on_finished=None) -> bool:
        """Start a worker (one job at a time); its kind is the worker's name."""
        if self.runner.busy or self._closing:
            self.show_status("Busy: stop the running job first")
            return False
        self._job_kind = worker.name
        worker.signals.progress.connect(self._on_progress)
        if on_finished is not None:
            worker.signals.finished.connect(on_finished)
        worker.signals.failed.connect(self._on_failed)
        worker.signals.cancelled.connect(self._on_cancelled)
        self.runner.start(worker)
        return True

    def _on_model_selected(self, _index: int) -> None:
        """Another model in the toolbar: load it in the background (once the start-up is done)."""
        if self._started and self.app_settings.preload_model and not self._closing:
            self._warm_timer.stop()
            self.model_status.preload(self.current_model(), self.current_prompt_text())

    def _warm_prompt(self) -> None:
        """Read the selected action's prompt into the loaded model, so Generate starts writing at once."""
        if self._closing or self.runner.busy or not self.app_settings.preload_model:
            return
        entry = self.current_model()
        if entry is not None and self.model_status.is_loaded(entry):
            self.model_status.preload(entry, self.current_prompt_text())

    def current_prompt_text(self) -> str:
        """The prompt Generate would send now ('' if there is none)."""
        bundle, action = self.current_bundle(), self.current_action()
        if bundle is None or not action or not self.bundled:
            return ""
        options = self.draft_options()
        try:
            return build_prompt(bundle, action, self.bundled, options.description_class, options.seed,
                                options.examples).text
        except DrafterError:
            return ""

    def draft_options(self) -> DraftOptions:
        """The settings, with the class, seed and grammar as the panels show them now."""
        return self.app_settings.draft_options(self.description_panel.description_class(),
                                               self.description_panel.seed(), self.grammar_check.isChecked())

    def _on_busy_changed(self, busy: bool) -> None:
        self.answer_panel.set_busy(busy)
        self.progress_bar.setVisible(busy)
        if busy:
            self.progress_bar.setRange(0, 0)
        self._update_actions()

    def _on_progress(self, done: int, total: int, message: str) -> None:
        if self._closing:
            return
        if total > 0:
            self.progress_bar.setRange(0, total)
            self.progress_bar.setValue(min(done, total))
        if message:
            self.show_status(f"{JOB_LABELS.get(self._job_kind, 'Working')}: {message}")

    def _on_failed(self, message: str) -> None:
        if self._closing:
            return
        if self._job_kind == "generate" and self.drafts.models.backend is None:
            # the model itself did not load: say which setting to change, as the background load does
            _setting, advice = model_failure_advice(message)
            message = f"{message}\n\n{advice}"
        self.report_error(FAILURE_TITLES.get(self._job_kind, "Error"), message)

    def _on_cancelled(self) -> None:
        if not self._closing:
            self.show_status("Stopped")

    def stop(self) -> None:
        """Cancel the running generation or evaluation (loading the bundled domains is not stopped)."""
        if self.runner.busy and self._job_kind != "startup":
            self.runner.cancel_all()
            self.show_status("Stopping…")

    def reload(self) -> None:
        """Load the bundled domains and list the models (in a worker)."""
        self.show_status("Loading the bundled domains…")
        self._start(TaskWorker(load_startup, name="startup"), self._on_startup_loaded)

    def _on_startup_loaded(self, data: StartupData) -> None:
        if self._closing:
            return
        self.bundled = list(data.bundles)
        self.domain_panel.set_bundles(self.bundled)
        self.model_selector.set_entries(data.models)
        if self.app_settings.model:
            self.model_selector.add_file(self.app_settings.model)
        if self.bundled:
            self.domain_panel.domain_list.setCurrentRow(0)
        models = self.model_selector.count()
        self.show_status(f"{len(self.bundled)} domains, {models} model{'' if models == 1 else 's'}")
        self._started = True
        if self.app_settings.preload_model:
            self._warm_timer.stop()
            self.model_status.preload(self.current_model(), self.current_prompt_text())

    def generate(self) -> None:
        """Ask the selected model for the selected action (streaming into the editor), then evaluate."""
        entry = self.current_model()
        if self.current_bundle() is None or not self.current_action() or self.runner.busy:
            return
        if entry is None:
            self.report_error("No model", "No model to generate with: open a GGUF file (File ▸ Open model file…).")
            return
        self._warm_timer.stop()
        self._start(self.drafts.generate_worker(entry, self.draft_options(), self.bundled))

    def evaluate(self) -> None:
        """Judge the text in the answer editor (typed, pasted or generated)."""
        if self.current_bundle() is not None and self.current_action() and not self.runner.busy:
            self._start(self.drafts.evaluate_worker())

    # --- prompt, domains, models -----------------------------------------------------------
    def show_prompt(self) -> None:
        bundle, action = self.current_bundle(), self.current_action()
        if bundle is None or not action:
            return
        try:  # the examples come from the bundled domains, as in the CLI
            prompt = build_prompt(bundle, action, self.bundled, self.description_panel.description_class(),
                                  self.description_panel.seed())
        except DrafterError as err:
            self.report_error("Cannot build the prompt", err.message)
            return
        if self.prompt_dialog is None:
            self.prompt_dialog = PromptDialog(self)
        self.prompt_dialog.show_prompt(prompt)
        self.prompt_dialog.show()
        self.prompt_dialog.raise_()

    def open_domain_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open domain folder")
        if folder:
            self.open_domain_folder(folder)

    def open_domain_folder(self, path: str | Path) -> None:
        """Load a domain folder (or domain.pddl) in a worker; errors are reported with file:line:col."""
        self.show_status(f"Opening {path}…")
        self._start(TaskWorker(open_bundle, str(path), name="open"), self._on_bundle_opened)

    def _on_bundle_opened(self, bundle: DomainBundle) -> None:
        if not self._closing:
            self.domain_panel.add_bundle(bundle)
            self.window_state.add_recent_domain(bundle.folder)
            self.show_status(f"Opened {bundle.name} from {bundle.folder}")

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.window_state.recent_domains()
        for path in recent:
            self.recent_menu.addAction(path, lambda p=path: self.open_domain_folder(p))
        if recent:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear the list", self.window_state.clear_recent_domains)
        else:
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # --- drag and drop: a domain folder or a domain.pddl -----------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if dropped_domain(event.mimeData()) is not None and not self.runner.busy:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        path = dropped_domain(event.mimeData())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.open_domain_folder(path)

    def open_model_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open model file", "", "GGUF models (*.gguf);;All files (*)")
        if path:
            self.add_model_file(path)

    def add_model_file(self, path: str | Path) -> ModelEntry:
        """Offer a GGUF file in the model selector and select it (it loads at the next Generate)."""
        entry = self.model_selector.add_file(path)
        self._update_actions()
        return entry

    # --- errors, about, closing ------------------------------------------------------------
    def report_error(self, title: str, message: str) -> None:
        """Tell the user in a window-modal box that does not block the event loop; emit error_reported."""
        self.last_error = message
        self.show_status(message.splitlines()[0] if message else title)
        box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorBox")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.error_reported.emit(message)

    def _on_generated(self, draft) -> None:  # noqa: ANN001 - a Draft
        stats = draft.rounds[-1].generation.stats
        self.model_status.show_generation(stats, draft.final)
        entry = self.current_model()
        if entry is not None:
            self.model_status.model_used(self.drafts.models.loaded_path, entry.name)

    def _on_scheme_changed(self, _scheme: object) -> None:
        """Light/dark switched: repaint what draws the scheme's colours itself."""
        self.answer_panel.editor.refresh_colours()
        self.result_panel.refresh_colours()
        for view in (self.answer_panel.finding_list, self.result_panel.plan_view, self.result_panel.are_table):
            view.viewport().update()

    def format_answer(self) -> None:
        """Edit ▸ Format: the answer in canonical indented form, comments kept (one undo step)."""
        if self.runner.busy:
            return
        problem = self.answer_panel.editor.format_text()
        self.show_status(problem or "Formatted")

    def show_fitted(self) -> None:
        """Show at the saved geometry, or maximised / sized from the screen (see geometry.py)."""
        self.window_state.show_fitted()

    def shutdown(self) -> bool:
        """Cancel and wait for every worker, then release the model and the caches. Idempotent."""
        if self._closing:
            return True
        self._closing = True
        self._warm_timer.stop()
        self.model_status.shutdown()
        stopped = self.runner.shutdown(SHUTDOWN_TIMEOUT_MS)
        if stopped:  # a worker still running may be using them
            self.drafts.close()
        return stopped

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        self.window_state.save()
        super().closeEvent(event)
