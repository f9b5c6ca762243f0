"""The Benchmark dialog: pick models, domains, classes and decoding; run, stop, resume; open the report.

It runs the same engine function as `domain-drafter bench run` (bench.runner.run_experiment) in a
worker of its own, so the main window stays usable while a run goes on. Progress arrives as
`Progress` values through a queued signal; the bar chart of class counts grows as verdicts come in.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.bench.progress import format_eta, rate_text
from domain_drafter.bench.runner import Progress, RunSummary, run_experiment
from domain_drafter.bench.spec import ExperimentSpec, ModelSpec, load_spec
from domain_drafter.core.errors import DrafterError
from domain_drafter.core.paths import data_dir
from domain_drafter.core.tasks import TaskState
from domain_drafter.gui.dialogs.bench_baseline import BaselineTable, baseline_markdown
from domain_drafter.gui.dialogs.bench_choices import (
    GRAMMAR_CHOICES,
    NO_SPEC,
    action_count,
    generators_spin,
    settings_summary,
    size_text,
    strategy_checks,
    strategy_grid,
)
from domain_drafter.gui.dialogs.bench_lists import checked, checklist, domain_checklist, with_all_none
from domain_drafter.gui.dialogs.bench_session import ask_to_stop
from domain_drafter.gui.dialogs.class_bars import ClassBars
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.folders import Purpose, file_dialog
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.gui.state.workers import JobKind, JobOutcome, TaskRunner, TaskWorker


class _ProgressRelay(QObject):
    """Carries Progress values from the worker thread to the GUI thread (a queued connection)."""

    progress = Signal(object)


def run_benchmark(spec: ExperimentSpec, out: Path, relay: _ProgressRelay, *, task: TaskState) -> RunSummary:
    """The worker's job: run or continue `spec` into `out` (resume is always allowed here)."""
    return run_experiment(spec, out, resume=True, task=task, on_progress=relay.progress.emit)


def write_report_files(results: Path, folder: Path, *, task: TaskState) -> Path:
    from domain_drafter.bench.report import write_report

    task.report(0, 1, "writing the report")
    write_report(results, folder, with_paper=True)
    return folder / "report.html"


class BenchmarkDialog(QDialog):
    """Non-modal. `models` are (name, registry name or GGUF path) pairs; `domains` bundled names."""

    run_ended = Signal(object)   # JobOutcome: FINISHED, STOPPED, FAILED, CANCELLED or REPORTED, buttons up to date

    def __init__(self, models: Sequence[tuple[str, str]], domains: Sequence[str], parent: QWidget | None = None,
                 *, results_path: Path | None = None, open_externally: bool = True,
                 settings: AppSettings | None = None):
        super().__init__(parent)
        self.setWindowTitle("Benchmark")
        self.resize(1180, 720)
        self.settings = settings or AppSettings()   # the engine options the run uses, as in Settings
        self.runner = TaskRunner(self)
        self.runner.job_ended.connect(self._on_done)   # after the runner dropped the worker: not busy any more
        self.relay = _ProgressRelay(self)
        self.relay.progress.connect(self._on_progress)
        self.open_externally = open_externally
        self.worker: TaskWorker | None = None
        self.last_progress: Progress | None = None
        self.last_summary: RunSummary | None = None
        self.report_path: Path | None = None
        self.last_error = ""
        self.close_box: QMessageBox | None = None   # the question while a close waits for an answer

        self.model_list = checklist(list(models), checked_first=True, rows=min(len(models), 5))
        self.domain_list = domain_checklist(domains)
        domains_box = with_all_none(self.domain_list)
        self.class_checks = {c: QCheckBox(c) for c in ("base", "flipped", "random")}
        self.class_checks["base"].setChecked(True)
        classes = QHBoxLayout()
        for box in self.class_checks.values():
            classes.addWidget(box)
        self.strategy_checks = strategy_checks()
        strategies = strategy_grid(self.strategy_checks)
        self.prompts_spin = QSpinBox(minimum=1, maximum=1000, value=1)
        self.grammar_combo = QComboBox()
        self.grammar_combo.addItems(list(GRAMMAR_CHOICES))
        self.grammar_combo.setCurrentText("grammar" if self.settings.grammar else "free decoding")
        self.workers_spin = QSpinBox(minimum=1, maximum=64, value=1)
        self.generators_spin = generators_spin()
        # Until the user picks a file, the name follows the settings: the same settings later resume the same run.
        self._auto_path = results_path is None
        self.path_edit = QLineEdit(str(results_path or data_dir() / "results" / "benchmark.sqlite"))
        self.path_edit.textEdited.connect(self._path_chosen)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)

        # A spec file (as `bench run` reads it) replaces the choices below it, the settings' options included.
        self.loaded_spec: ExperimentSpec | None = None
        self.spec_label = QLabel(NO_SPEC)
        self.spec_label.setObjectName("benchmarkSpec")
        self.spec_label.setWordWrap(True)
        self.spec_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.spec_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.load_spec_button = QPushButton("Load…")
        self.load_spec_button.setToolTip("Run an experiment spec file (TOML, as `domain-drafter bench run` reads it): "
                                         "its models, domains, strategies and options")
        self.load_spec_button.clicked.connect(self._browse_spec)
        self.clear_spec_button = QPushButton("Clear")
        self.clear_spec_button.setToolTip("Back to the choices of this dialog and the settings")
        self.clear_spec_button.clicked.connect(self.clear_spec)
        spec_row = QHBoxLayout()
        spec_row.addWidget(self.load_spec_button)
        spec_row.addWidget(self.clear_spec_button)
        spec_row.addStretch(1)

        form = QFormLayout()
        form.addRow("Experiment spec", spec_row)
        form.addRow("", self.spec_label)      # a row of its own: a long name or an error wraps there
        form.addRow("Models", self.model_list)
        form.addRow("Domains", domains_box)
        form.addRow("Description classes", classes)
        form.addRow("Prompts per action", self.prompts_spin)
        form.addRow("Decoding", self.grammar_combo)
        form.addRow("Strategies", strategies)
        form.addRow("Worker processes", self.workers_spin)
        form.addRow("Generator processes", self.generators_spin)
        form.addRow("Results file", path_row)

        self.options_label = QLabel(settings_summary(self.settings))
        self.options_label.setObjectName("benchmarkOptions")
        self.options_label.setWordWrap(True)
        form.addRow("Options (Settings)", self.options_label)
        self.size_label = QLabel()
        self.size_label.setWordWrap(True)   # the size, the generators and any warning: wraps, never widens
        self.progress_bar = QProgressBar()
        self.eta_label = QLabel("Not started")
        self.eta_label.setWordWrap(True)
        self.eta_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bars = ClassBars()
        self.start_button = QPushButton("Start")
        self.stop_button = QPushButton("Stop")
        self.report_button = QPushButton("Open report")
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.report_button.clicked.connect(self.open_report)
        buttons = QHBoxLayout()
        for b in (self.start_button, self.stop_button, self.report_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.baseline_title = QLabel("<b>Baseline</b> (Gemma 3 270M, experiment 1, committed under resources/results)")
        self.baseline = BaselineTable(baseline_markdown())

        left, right = QVBoxLayout(), QVBoxLayout()   # the run on the left, its results beside it
        for item in (form, self.size_label, buttons, self.progress_bar, self.eta_label):
            (left.addLayout if isinstance(item, QLayout) else left.addWidget)(item)
        left.addStretch(1)
        right.addWidget(self.bars)
        right.addWidget(self.baseline_title)
        right.addWidget(self.baseline, 1)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 4)
        layout.addLayout(right, 7)
        for widget in (self.model_list, self.domain_list, self.prompts_spin, self.generators_spin,
                       *self.class_checks.values(), *self.strategy_checks.values()):
            signal = widget.itemChanged if isinstance(widget, QListWidget) else (
                widget.valueChanged if isinstance(widget, QSpinBox) else widget.toggled)
            signal.connect(self._update)
        self.grammar_combo.currentIndexChanged.connect(self._update)
        self._update()

    # --- building ---------------------------------------------------------------------------
    def set_settings(self, settings: AppSettings) -> None:
        self.settings = settings
        self.options_label.setText(settings_summary(settings))
        self._update()

    def _browse(self) -> None:
        current = Path(self.path_edit.text())
        file_dialog(self, Purpose.RESULTS, "Results file", self._results_chosen, filters="SQLite (*.sqlite)", save=True,
                    name=current.name, fallback=current.parent)

    def _results_chosen(self, path: Path) -> None:
        self.path_edit.setText(str(path))
        self._auto_path = False

    def _path_chosen(self, _text: str) -> None:
        self._auto_path = False

    def _browse_spec(self) -> None:
        file_dialog(self, Purpose.EXPERIMENT, "Experiment spec", self.load_spec_file,
                    filters="Experiment specs (*.toml);;All files (*)")

    def load_spec_file(self, path: Path) -> bool:
        """Use the spec in `path` for the next run; on a bad file, say what and where and keep what was chosen."""
        try:
            spec = load_spec(path)
        except DrafterError as err:
            kept = f"\n\nThe spec in use is still: {self.loaded_spec.name}" if self.loaded_spec else ""
            self.spec_label.setText(f"Not loaded: {describe_error(err).text}{kept}")
            return False
        self.loaded_spec = spec
        self.spec_label.setText(f"{path.name}: {spec.name}" + (f" ({spec.description})" if spec.description else ""))
        self.spec_label.setToolTip(str(path))
        self._update()
        return True

    def clear_spec(self) -> None:
        self.loaded_spec = None
        self.spec_label.setText(NO_SPEC)
        self.spec_label.setToolTip("")
        self._update()

    # --- state ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.runner.busy

    @property
    def run_going_on(self) -> bool:
        """A benchmark run that nobody asked to stop yet (writing a report does not count): quitting asks first."""
        return self.worker is not None and self.runner.running(JobKind.BENCHMARK) and not self.worker.cancelled

    def spec(self) -> ExperimentSpec:
        """The run as chosen here, with every engine option from the settings; or the spec file loaded."""
        if self.loaded_spec is not None:
            return self.loaded_spec
        models = tuple(ModelSpec(name, model=source) for name, source in checked(self.model_list))
        s = self.settings
        strategies = tuple(name for name, box in self.strategy_checks.items() if box.isChecked())
        search = {}
        if any(name != "one-shot" for name in strategies):   # one-shot alone: the spec (and its results file) as before
            o = s.search_options()
            search = dict(budget=o.budget, width=o.width, children=o.children, feedback=o.feedback.value,
                          temperature=o.temperature, repair=o.repair, reheat=o.reheat, rotate=o.rotate)
        return ExperimentSpec(
            name="gui-benchmark", models=models, domains=tuple(d for _, d in checked(self.domain_list)),
            classes=tuple(c for c, box in self.class_checks.items() if box.isChecked()),
            prompts_per_action=self.prompts_spin.value(), grammar=GRAMMAR_CHOICES[self.grammar_combo.currentText()],
            workers=self.workers_spin.value(), generators=self.generators_spin.value() or None,
            first_seed=s.seed, examples=s.examples, k=s.k,
            time_limit_s=s.planner_time_limit_s, retries=s.retries, feedback=s.feedback, equivalence=s.equivalence,
            max_tokens=s.max_new_tokens, threads=s.threads or None, strategies=strategies, search=search)

    def _valid(self) -> bool:
        spec = self.spec()
        return bool(spec.models and spec.domains and spec.classes and spec.strategies)

    def _update(self) -> None:
        valid, actions = self._valid(), None
        if not valid:
            self.size_label.setText("Choose at least one model, one domain, one description class and one strategy.")
        elif not self.running:
            spec = self.spec()
            try:
                actions = sum(action_count(d) for d in spec.domains)
            except DrafterError as err:
                self.size_label.setText(f"Cannot count the tasks: {describe_error(err).message}")
                actions = None
        if valid and not self.running and actions is not None:
            valid, text = size_text(spec, actions)
            self.size_label.setText(text)
            if self._auto_path:
                self.path_edit.setText(str(data_dir() / "results" / f"benchmark-{spec.fingerprint}.sqlite"))
        chosen_here = self.loaded_spec is None
        for widget in (self.model_list, self.domain_list, self.prompts_spin, self.grammar_combo, self.workers_spin,
                       self.generators_spin, *self.class_checks.values(), *self.strategy_checks.values()):
            widget.setEnabled(not self.running and chosen_here)
        for widget in (self.path_edit, self.load_spec_button):
            widget.setEnabled(not self.running)
        self.clear_spec_button.setEnabled(not self.running and not chosen_here)
        self.options_label.setText(settings_summary(self.settings) if chosen_here else
                                   "from the spec file (the settings do not apply to it)")
        self.start_button.setEnabled(valid and not self.running)
        self.stop_button.setEnabled(self.running)
        self.report_button.setEnabled(not self.running and Path(self.path_edit.text()).is_file())

    # --- actions ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start, or resume if the results file already holds this experiment."""
        if self.running or not self._valid():
            return
        self.last_error = ""
        self.worker = TaskWorker(run_benchmark, self.spec(), Path(self.path_edit.text()), self.relay, kind=JobKind.BENCHMARK)
        self.worker.signals.finished.connect(self._on_finished)
        self.worker.signals.failed.connect(self._on_failed)
        self.eta_label.setText("Starting…")
        self.runner.start(self.worker)
        self._update()

    def stop(self) -> None:
        if self.worker is not None:
            self.eta_label.setText("Stopping after the current answer…")
            self.worker.cancel()

    def open_report(self) -> None:
        results = Path(self.path_edit.text())
        folder = results.with_name(results.stem + "-report")
        worker = TaskWorker(write_report_files, results, folder, kind=JobKind.REPORT)
        worker.signals.finished.connect(self._on_report)
        worker.signals.failed.connect(self._on_failed)
        self.runner.start(worker)
        self._update()

    def shutdown(self, timeout_ms: int = 60_000) -> bool:
        return self.runner.shutdown(timeout_ms)

    def reject(self) -> None:
        """Close (the title bar's button reaches here too) or Escape: mid-run, ask first and close only on Stop;
        a run already asked to stop is not asked about again."""
        if not self.run_going_on:   # nothing runs, or the run was asked to stop already (a quit, Stop)
            super().reject()
        elif self.close_box is None:
            self.close_box = ask_to_stop(self, self._stop_and_close)
            self.close_box.finished.connect(lambda _result: setattr(self, "close_box", None))

    def _stop_and_close(self) -> None:
        self.stop()   # the run stops after the current answer; Start resumes it next time
        super().reject()

    # --- slots ------------------------------------------------------------------------------
    def _on_progress(self, p: Progress) -> None:
        self.last_progress = p
        self.progress_bar.setMaximum(max(1, p.total))
        self.progress_bar.setValue(p.evaluated)
        self.bars.set_counts(p.counts)
        self.eta_label.setText(f"{p.evaluated} of {p.total} judged, {p.generated} generated{rate_text(p.answers_per_min)}; "
                               f"ETA {format_eta(p.eta_s)}" + (f"; {p.message}" if p.message else ""))

    def _on_finished(self, summary: RunSummary) -> None:
        self.last_summary = summary
        if summary.cancelled:
            self.start_button.setText("Resume")
            self.eta_label.setText(f"Stopped at {summary.evaluated} of {summary.total}; Resume continues the run.")
        else:
            self.start_button.setText("Start")
            self.eta_label.setText(f"Finished: {summary.evaluated} of {summary.total} judged.")

    def _on_failed(self, error: BaseException) -> None:
        self.last_error = describe_error(error).text
        self.eta_label.setText(f"Failed: {self.last_error}")

    def _on_report(self, page: Path) -> None:
        self.report_path = page
        opened = self.open_externally and QDesktopServices.openUrl(QUrl.fromLocalFile(str(page)))
        self.eta_label.setText(f"Report written to {page}" + ("" if opened or not self.open_externally else
                               " (no web browser could be started: open that file yourself)"))

    def _on_done(self, kind: JobKind, outcome: JobOutcome) -> None:
        """After the worker's own signal and the runner's bookkeeping: the buttons are right when we say so."""
        if kind is JobKind.BENCHMARK:
            self.worker = None   # the run's worker (its spec, its relay) goes with the run; the summary stays
        self._update()
        if outcome is JobOutcome.FINISHED and kind is JobKind.REPORT:
            outcome = JobOutcome.REPORTED
        elif outcome is JobOutcome.FINISHED and self.last_summary is not None and self.last_summary.cancelled:
            outcome = JobOutcome.STOPPED   # the run returned what it had judged: Resume continues it
        self.run_ended.emit(outcome)

