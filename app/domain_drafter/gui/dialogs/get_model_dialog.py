"""File > Get a model…: the model catalogue as a table, Download with progress, ETA and Stop, Check speed.

The dialog runs the same engine functions as `domain-drafter models pull` and `models check`
(llm.download.pull_model, llm.speed_check.speed_check) in workers of its own (gui/state/workers.py), so
the main window stays usable during a download. Stop cancels the download's TaskState; the part
already received stays on disk and the next Download resumes from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.errors import DrafterError
from domain_drafter.gui.panels.item_models import ReadOnlyTable
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.llm.catalogue import RAM_NOTE, Catalogue, CatalogueModel, gb_text, installed_path, load_catalogue
from domain_drafter.llm.download import PullResult, hub_endpoint, pull_model
from domain_drafter.llm.models import ModelEntry, default_model_path, list_models, user_models_dir
from domain_drafter.llm.speed_check import SpecEstimate, SpeedReport, estimate_spec, format_report, speed_check

Index = QModelIndex | QPersistentModelIndex
DisplayRole = Qt.ItemDataRole.DisplayRole
ModelRole = Qt.ItemDataRole.UserRole + 1    # the row's CatalogueModel


class CatalogueTableModel(ReadOnlyTable):
    """One row per catalogue model: name, size, RAM, licence, prompt format, installed?"""

    HEADERS = ("Model", "Size", "RAM", "Licence", "Prompt", "Installed")
    RAM_COLUMN = 2

    def __init__(self, catalogue: Catalogue, entries: list[ModelEntry], parent: Any = None):
        super().__init__(parent)
        self._models = list(catalogue)
        self._installed = [installed_path(m, entries) for m in self._models]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._models)

    def data(self, index: Index, role: int = DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._models)):
            return None
        model, where = self._models[index.row()], self._installed[index.row()]
        if role == ModelRole:
            return model
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{model.title}\n{model.notes}\n{model.repo or ''} {model.file}".strip()
        if role != DisplayRole:
            return None
        installed = "embedded" if model.embedded else ("yes" if where else "no")
        return (model.title, gb_text(model.size), model.ram_text, model.licence, model.prompt_format,
                installed)[index.column()]

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal \
                and section == self.RAM_COLUMN:
            return RAM_NOTE
        return super().headerData(section, orientation, role)

    def model_at(self, row: int) -> CatalogueModel:
        return self._models[row]

    def installed_at(self, row: int) -> Path | None:
        return self._installed[row]

    def set_installed(self, name: str, path: Path) -> None:
        for row, model in enumerate(self._models):
            if model.name == name:
                self._installed[row] = path
                cell = self.index(row, len(self.HEADERS) - 1)
                self.dataChanged.emit(cell, cell, [DisplayRole])


ESTIMATE_SPEC = "paper-exp1.toml"   # the estimate the speed check gives: the paper's experiment 1


def _check_speed(model: CatalogueModel, path: Path, *, task) -> tuple[SpeedReport, SpecEstimate | None]:
    """Measure the model, and estimate the paper's experiment 1 with it (the spec is read here, off
    the GUI thread)."""
    from importlib import resources

    from domain_drafter.bench.spec import load_spec

    if model.embedded:
        path = default_model_path(task=task)
    report = speed_check(path, ram=model.ram, task=task)
    spec_path = Path(str(resources.files("domain_drafter.resources"))) / "experiments" / ESTIMATE_SPEC
    try:
        estimate = estimate_spec(report, load_spec(spec_path))
    except DrafterError:   # a damaged installation: the measurement alone still says a lot
        estimate = None
    return report, estimate


class GetModelDialog(QDialog):
    """Non-modal. `catalogue`, `dest` (the models folder) and `endpoint` (the hub) default to the real ones."""

    job_ended = Signal(object, object)   # JobKind.DOWNLOAD or SPEED_CHECK, JobOutcome; the buttons already up to date
    model_installed = Signal(object)     # the Path of a model just downloaded (for the window's model list)

    def __init__(self, parent: QWidget | None = None, *, catalogue: Catalogue | None = None,
                 dest: Path | None = None, endpoint: str | None = None):
        super().__init__(parent)
        self.setWindowTitle("Get a model")
        self.resize(820, 460)
        self.dest = dest or user_models_dir()
        self.endpoint = endpoint
        self.runner = TaskRunner(self)
        self.runner.busy_changed.connect(self._update)
        self.runner.job_ended.connect(self.job_ended)   # after the worker's own signal and busy_changed
        self.worker: TaskWorker | None = None
        self.job: JobKind | None = None    # DOWNLOAD or SPEED_CHECK while one runs
        self.last_result: PullResult | SpeedReport | None = None
        self.last_error = ""

        self.table_model = CatalogueTableModel(catalogue or load_catalogue(), list_models(), self)
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._update)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress_bar = QProgressBar()
        self.progress_bar.setValue(0)
        self.status = QLabel(f"Models are saved in {self.dest}")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.download_button = QPushButton("Download")
        self.download_button.clicked.connect(self.download)
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop)
        self.check_button = QPushButton("Check speed")
        self.check_button.setToolTip("Load the model, read one real prompt, write a few tokens: tokens/s and memory")
        self.check_button.clicked.connect(self.check_speed)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        for button in (self.download_button, self.stop_button, self.check_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self.table.selectRow(0)
        self._update()

    # --- state ------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.runner.busy

    def selected_row(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def select(self, name: str) -> None:
        for row in range(self.table_model.rowCount()):
            if self.table_model.model_at(row).name == name:
                self.table.selectRow(row)
                return
        raise KeyError(name)

    def _update(self, *_: Any) -> None:
        row = self.selected_row()
        model = self.table_model.model_at(row) if row is not None else None
        installed = row is not None and (model.embedded or self.table_model.installed_at(row) is not None)
        self.download_button.setEnabled(not self.busy and model is not None and not installed)
        self.check_button.setEnabled(not self.busy and installed)
        self.stop_button.setEnabled(self.busy and self.job is JobKind.DOWNLOAD)
        if model is not None:
            sha = "sha256 checked after download" if model.sha256 else "no sha256 in the catalogue"
            source = "ships with Domain Drafter" if model.embedded else model.url(self.endpoint or hub_endpoint())
            self.details.setText(f"<b>{model.title}</b> ({model.quant}, {model.params_b or '?'}B parameters): "
                                 f"{model.notes}<br>{source}; {sha}; licence: {model.licence}")

    # --- actions ----------------------------------------------------------------------------
    def download(self) -> None:
        row = self.selected_row()
        if row is None or self.busy:
            return
        model = self.table_model.model_at(row)
        self._start(JobKind.DOWNLOAD, pull_model, model, dest=self.dest, endpoint=self.endpoint)
        self.status.setText(f"Downloading {model.file_name}…")

    def stop(self) -> None:
        if self.worker is not None and self.job is JobKind.DOWNLOAD:
            self.worker.cancel()
            self.status.setText("Stopping…")

    def check_speed(self) -> None:
        row = self.selected_row()
        if row is None or self.busy:
            return
        model, path = self.table_model.model_at(row), self.table_model.installed_at(row)
        self._start(JobKind.SPEED_CHECK, _check_speed, model, path)
        self.status.setText(f"Checking {model.title}: loading it, reading a prompt, writing a few tokens…")

    def _start(self, job: JobKind, fn: Any, *args: Any, **kwargs: Any) -> None:
        self.job, self.last_error, self.last_result = job, "", None
        self.progress_bar.setRange(0, 0 if job is JobKind.SPEED_CHECK else 100)
        self.progress_bar.setValue(0)
        worker = self.worker = TaskWorker(fn, *args, kind=job, **kwargs)
        worker.signals.progress.connect(self._on_progress)
        worker.signals.finished.connect(self._on_finished)
        worker.signals.failed.connect(self._on_failed)
        worker.signals.cancelled.connect(self._on_cancelled)
        self.runner.start(worker)
        self._update()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        return self.runner.shutdown(timeout_ms)

    def closeEvent(self, event) -> None:
        self.stop()   # a download resumes next time
        super().closeEvent(event)

    # --- slots ------------------------------------------------------------------------------
    def _on_progress(self, done: int, total: int, message: str) -> None:
        if self.job is JobKind.DOWNLOAD:
            self.progress_bar.setRange(0, max(1, total))
            self.progress_bar.setValue(done)
        self.status.setText(message)

    def _on_finished(self, result: PullResult | tuple[SpeedReport, SpecEstimate | None]) -> None:
        estimate = None
        if isinstance(result, tuple):
            result, estimate = result
        self.last_result = result
        if isinstance(result, PullResult):
            self.table_model.set_installed(result.model, result.path)
            resumed = f", resumed at {result.resumed_from / 2**20:,.0f} MiB" if result.resumed_from else ""
            self.status.setText(f"Installed {result.path} ({result.verified}{resumed}).")
            self.model_installed.emit(result.path)
        else:
            self.progress_bar.setRange(0, 1)
            self.progress_bar.setValue(1)
            self.status.setText("<br>".join(format_report(result, estimate)))
        self._end()

    def _on_failed(self, error: BaseException) -> None:
        self.last_error = describe_error(error).text
        self.status.setText(f"<span style='color:#c0392b'>Failed: {self.last_error}</span>".replace("\n", "<br>"))
        self._end()

    def _on_cancelled(self) -> None:
        self.status.setText("Stopped. Download again to resume from where it stopped.")
        self._end()

    def _end(self) -> None:
        # The worker's own signal comes first; the runner then drops it, says it is idle (the buttons follow)
        # and passes on the job's kind and JobOutcome (job_ended).
        self.job, self.worker = None, None
        if self.progress_bar.maximum() == 0:
            self.progress_bar.setRange(0, 1)


def open_get_model_dialog(parent: QWidget | None = None) -> GetModelDialog:
    """Show the dialog (non-modal) and return it; the caller keeps a reference while it is open."""
    dialog = GetModelDialog(parent)
    dialog.show()
    dialog.raise_()
    return dialog
