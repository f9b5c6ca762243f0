"""The model's life in the window: loaded in the background with progress and Stop, and the
status-bar figures of each job (model, prompt tokens, tokens/s, planner time), and File > Get a model…
(gui/dialogs/get_model_dialog.py; a model it installs joins the state's models on offer).

Loading runs on its own TaskRunner, so Evaluate and the domain panels stay usable meanwhile; a
Generate started during the load waits for it in its worker (the ModelLibrary loads one model at a
time), never here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QProgressBar, QSizePolicy, QStatusBar, QToolButton

from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.jobs import LoadedModel, preload_model
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.llm.backend import GenerationStats
from domain_drafter.llm.model_library import ModelLibrary
from domain_drafter.llm.models import ModelEntry, list_models
from domain_drafter.planning.evaluate import EvaluationResult

if TYPE_CHECKING:
    from domain_drafter.gui.dialogs.get_model_dialog import GetModelDialog

NAME_WIDTH_PX = 260   # a longer model name is elided in its middle, so the status bar's right side stays in view


def threads_text(threads: int) -> str:
    return f"{threads} thread{'' if threads == 1 else 's'}"


def stats_text(prompt_tokens: int | None, tokens_per_s: float | None, planner_s: float | None) -> str:
    parts = []
    if prompt_tokens is not None:
        parts.append(f"prompt {prompt_tokens} tok")
    if tokens_per_s is not None:
        parts.append(f"{tokens_per_s:.0f} tok/s")
    if planner_s is not None:
        parts.append(f"planner {planner_s:.2f} s")
    return " · ".join(parts)


class StatusLine(QLabel):
    """A one-line status that never widens the window: a line longer than the room it has is elided in its middle,
    whole in its tooltip, and shown whole again when the window grows. `text()` is the whole line."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._whole = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)     # not its text's width: the layout gives it the room there is
        self.setText(text)

    def setText(self, text: str) -> None:
        self._whole = text
        self._fit()

    def text(self) -> str:
        return self._whole

    def shown(self) -> str:
        """The line as it is on screen (elided when it did not fit)."""
        return super().text()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        shown = self._whole
        if self.fontMetrics().horizontalAdvance(shown) > self.width():
            shown = self.fontMetrics().elidedText(shown, Qt.TextElideMode.ElideMiddle, self.width())
        super().setText(shown)
        self.setToolTip(self._whole if shown != self._whole else "")


def job_status_widgets(status_bar: QStatusBar) -> tuple[QLabel, QProgressBar]:
    """The window's status line (what runs, what was saved, Ready) and its job progress bar, hidden while idle."""
    label = StatusLine("Ready")
    progress = QProgressBar()
    progress.setObjectName("jobProgress")
    progress.setMaximumWidth(220)
    progress.hide()
    status_bar.addWidget(label, 1)
    status_bar.addPermanentWidget(progress)
    return label, progress


class ModelStatus(QObject):
    """Owns the model-loading worker and the status bar's model and statistics widgets."""

    loaded = Signal(object)            # LoadedModel
    failed = Signal(object)            # the exception of a load that failed
    state_changed = Signal()

    def __init__(self, models: ModelLibrary, status_bar: QStatusBar, parent: QObject | None = None):
        super().__init__(parent)
        self.models = models
        self.runner = TaskRunner(self)
        self.runner.job_ended.connect(self._on_done)   # once the runner is idle, so a queued request can start
        self.loaded_model: LoadedModel | None = None
        self.warmed_prompt = ""
        self.last_error = ""
        self._again: tuple[ModelEntry, str] | None = None
        self._worker: TaskWorker | None = None

        self.model_label = QLabel("Model: not loaded")
        self.model_label.setObjectName("modelStatus")
        self.stats_label = QLabel("")
        self.stats_label.setObjectName("jobStats")
        self.progress = QProgressBar()
        self.progress.setObjectName("modelProgress")
        self.progress.setMaximumWidth(140)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.stop_button = QToolButton()
        self.stop_button.setObjectName("stopModelLoad")
        self.stop_button.setText("Stop loading")
        self.stop_button.setToolTip("Stop loading the model (it loads again at the next Generate)")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        for widget in (self.stats_label, self.model_label, self.progress, self.stop_button):
            status_bar.addPermanentWidget(widget)

    # --- state -----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.runner.busy

    def is_loaded(self, entry: ModelEntry | None) -> bool:
        """Exactly: `entry`'s file is the current model (for the default model too)."""
        return self.models.is_loaded(entry)

    # --- loading ---------------------------------------------------------------------------
    def preload(self, entry: ModelEntry | None, warm_prompt: str = "") -> bool:
        """Load `entry` in the background (then read `warm_prompt` into its cache); False if nothing to do."""
        if entry is None:
            return False
        if self.runner.busy:   # one job at a time: stop this one and start the newest request after it
            self._again = (entry, warm_prompt)
            if self._worker is not None and self._worker.kind in (JobKind.MODEL_LOAD, JobKind.MODEL_WARM):
                self._worker.cancel()   # a warm of the old prompt (or model) is wasted once a newer request came
            return True
        loaded = self.is_loaded(entry)
        if loaded and (not warm_prompt or warm_prompt == self.warmed_prompt):
            self.model_used(entry.name)   # still loaded: say so (a failed load of another file said "not loaded")
            return False
        kind = JobKind.MODEL_WARM if loaded else JobKind.MODEL_LOAD
        worker = TaskWorker(preload_model, self.models, entry, warm_prompt, kind=kind)
        worker.signals.progress.connect(self._on_progress)
        worker.signals.finished.connect(lambda model, prompt=warm_prompt: self._on_loaded(model, prompt))
        worker.signals.failed.connect(self._on_failed)
        worker.signals.cancelled.connect(self._on_cancelled)
        self._worker = worker
        if not loaded:
            self.loaded_model = None
            self._say(entry.name, "loading ", "…")
            self.progress.setRange(0, 0)
            self.progress.show()
            self.stop_button.show()
        self.runner.start(worker)
        self.state_changed.emit()
        return True

    def stop(self) -> None:
        self._again = None
        self.runner.cancel_all()

    def _on_progress(self, done: int, total: int, message: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        if message and self._worker is not None and self._worker.kind is JobKind.MODEL_LOAD:
            self._say(message, after="…")

    def _on_loaded(self, model: LoadedModel, prompt: str) -> None:
        self.loaded_model = model
        self.last_error = ""
        if model.warmed_tokens:
            self.warmed_prompt = prompt
        chat = ", chat format" if model.prompt_format == "chat" else ""
        self._say(model.name, after=f" ({threads_text(model.threads)}{chat}, loaded in {model.load_time_s:.1f} s)",
                  detail=str(model.path))
        self.loaded.emit(model)

    def _on_failed(self, error: BaseException) -> None:
        self.loaded_model = None
        described = describe_error(error)
        self.last_error = described.message
        self.model_label.setText("Model: not loaded (see Settings ▸ Model file)")
        self.model_label.setToolTip(described.text)
        self.failed.emit(error)

    def _on_cancelled(self) -> None:
        if self.loaded_model is None:
            self.model_label.setText("Model: not loaded (stopped; it loads at the next Generate)")

    def _on_done(self, _kind: JobKind, _outcome: object) -> None:
        self.progress.hide()
        self.stop_button.hide()
        self._worker = None
        again, self._again = self._again, None
        self.state_changed.emit()
        if again is not None:
            self.preload(*again)

    def model_used(self, name: str) -> None:
        """A job loaded (or used) the current model itself."""
        path, backend = self.models.loaded_path, self.models.backend
        if path is not None and backend is not None and (self.loaded_model is None or self.loaded_model.path != path):
            threads = getattr(backend, "n_threads", 0)
            self.loaded_model = LoadedModel(name, path, getattr(backend, "load_time_s", 0.0), threads, 0)
            self._say(name, after=f" ({threads_text(threads)})", detail=str(path))

    def _say(self, name: str, before: str = "", after: str = "", detail: str = "") -> None:
        """"Model: <before><name><after>", a long name elided in its middle; the whole name (and `detail`) as tooltip."""
        shown = self.model_label.fontMetrics().elidedText(name, Qt.TextElideMode.ElideMiddle, NAME_WIDTH_PX)
        self.model_label.setText(f"Model: {before}{shown}{after}")
        self.model_label.setToolTip("\n".join(part for part in (name, detail) if part))

    # --- figures of the last job -----------------------------------------------------------
    def show_generation(self, stats: GenerationStats, result: EvaluationResult | None) -> None:
        self.stats_label.setText(stats_text(stats.prompt_tokens, stats.tokens_per_s, planner_seconds(result)))

    def show_evaluation(self, result: EvaluationResult) -> None:
        self.stats_label.setText(stats_text(None, None, planner_seconds(result)))

    def shutdown(self) -> None:
        self._again = None
        self.runner.cancel_all()


def planner_seconds(result: EvaluationResult | None) -> float | None:
    if result is None:
        return None
    return result.timings.get("equivalence_s")


class GetModelMenu(QObject):
    """File > Get a model…: the catalogue dialog (one at a time); a model it installs joins the models on offer.
    Closing the window stops the dialog's download first (its part file stays for a resume)."""

    def __init__(self, window: QMainWindow, file_menu: QMenu, state: AppState,
                 show_status: Callable[[str], None]):
        super().__init__(window)
        self.window = window
        self.state = state
        self.show_status = show_status
        self.dialog: GetModelDialog | None = None
        self.action = file_menu.addAction("Get a model…", self.open)
        self.action.setStatusTip("Download a model from the catalogue, or check how fast one runs here")
        window.installEventFilter(self)

    def open(self) -> GetModelDialog:
        from domain_drafter.gui.dialogs.get_model_dialog import open_get_model_dialog

        if self.dialog is None or not self.dialog.isVisible():
            self.dialog = open_get_model_dialog(self.window)
            self.dialog.model_installed.connect(self._on_installed)
        else:
            self.dialog.raise_()
            self.dialog.activateWindow()
        return self.dialog

    def _on_installed(self, path: object) -> None:
        self.state.add_model_entries(list_models())   # new files join; the selection and opened files stay
        self.show_status(f"Installed {getattr(path, 'name', path)}: choose it in the model selector")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close and self.dialog is not None:
            self.dialog.shutdown()
        return False
