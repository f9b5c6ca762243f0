"""Edit AppSettings: model, threads, generation, corrective rounds, evaluation, descriptions."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.drafting.candidate_options import MAX_CANDIDATES
from domain_drafter.drafting.loop import Feedback
from domain_drafter.gui.state.folders import GGUF_FILTER, Purpose, file_dialog
from domain_drafter.gui.state.settings import MAX_SEARCH_BUDGET, AppSettings
from domain_drafter.planning.proof_types import EquivalenceMode

EQUIVALENCE_LABELS = {EquivalenceMode.PROVEN.value: "Proven on the problems (reachable states)",
                      EquivalenceMode.PAPER.value: "The paper's plan heuristic (top-k plans)"}
PROMPT_FORMAT_LABELS = {"auto": "Automatic (the catalogue's format for the model; else plain)",
                        "completion": "Plain text (the paper's completion prompt)",
                        "chat": "Chat (one user message in the model's chat template)"}
FEEDBACK_LABELS = {Feedback.CHECKS.value: "Checks only (no reference: nothing of it leaks)",
                   Feedback.PLANS.value: "Checks and the distinguishing state (uses the reference)",
                   Feedback.LANDMARKS.value: "Checks and the reference's landmarks (uses the reference)",
                   Feedback.ALL.value: "Everything (uses the reference)"}


def _spin(low: int, high: int, tip: str, special: str = "") -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setToolTip(tip)
    if special:
        spin.setSpecialValueText(special)
    return spin


class SettingsDialog(QDialog):
    """Modal; `values()` gives the edited AppSettings once accepted."""

    def __init__(self, settings: AppSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self._original = settings

        self.model_edit = QLineEdit()
        self.model_edit.setPlaceholderText("the embedded default model (Gemma 3 270M)")
        self.model_edit.setToolTip("A GGUF file; empty for the embedded default model")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_edit, 1)
        model_row.addWidget(browse)
        self.threads_spin = _spin(0, 256, "CPU threads for llama.cpp", special="Automatic (half the CPUs)")
        self.preload_check = QCheckBox("Load the model in the background when the window opens")
        self.format_combo = QComboBox()
        self.format_combo.setObjectName("promptFormat")
        self.format_combo.setToolTip("How the prompt reaches the model: the paper's plain text, or one user "
                                     "message in the model's own chat template")
        for value, label in PROMPT_FORMAT_LABELS.items():
            self.format_combo.addItem(label, value)

        self.grammar_check = QCheckBox("Constrain decoding to one well-formed action (grammar)")
        self.free_signature_check = QCheckBox("Free signature: the model chooses the parameters (with the grammar)")
        self.grammar_check.toggled.connect(self.free_signature_check.setEnabled)
        self.examples_spin = _spin(0, 10, "Context examples in the prompt (the paper: 3)")
        self.max_tokens_spin = _spin(1, 4096, "Most tokens the model may write (the paper: 300)")
        self.retries_spin = _spin(0, 10, "Corrective rounds after a failed answer", special="None")
        self.feedback_combo = QComboBox()
        for value, label in FEEDBACK_LABELS.items():
            self.feedback_combo.addItem(label, value)
        self.retries_spin.valueChanged.connect(lambda n: self.feedback_combo.setEnabled(n > 0))

        self.candidates_spin = _spin(1, MAX_CANDIDATES, "How many answers Draft N candidates writes in one batch")
        self.sample_check = QCheckBox("Sample the candidates from one prompt (off: one greedy answer per prompt seed)")
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(0.05, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setToolTip("Sampling temperature of the candidates")
        self.sample_check.toggled.connect(self.temperature_spin.setEnabled)
        self.search_budget_spin = _spin(1, MAX_SEARCH_BUDGET, "Draft until proven: model calls at most before it "
                                        "stops with the best answer so far")
        self.search_budget_spin.setObjectName("searchBudget")
        self.search_budget_spin.setSuffix(" model calls")
        self.search_feedback_combo = QComboBox()
        self.search_feedback_combo.setObjectName("searchFeedback")
        self.search_feedback_combo.setToolTip("What Draft until proven tells the model about each answer it expands")
        for value, label in FEEDBACK_LABELS.items():
            self.search_feedback_combo.addItem(label, value)
        self.search_guided_check = QCheckBox("Guided: no model call writes an answer tried before")
        self.search_guided_check.setObjectName("searchGuided")
        self.search_guided_check.setToolTip("Draft until proven never writes an answer already judged, and with the "
                                            "grammar a child may not write a literal its parent was told to take "
                                            "out (the feedback's \"extra ...: remove it\", from the reference, so "
                                            "with feedback that shows the plans)")

        self.k_spin = _spin(1, 1000, "Plans per problem K* finds in each domain (the paper: 100)")
        self.time_spin = QDoubleSpinBox()
        self.time_spin.setRange(1.0, 3600.0)
        self.time_spin.setDecimals(0)
        self.time_spin.setSuffix(" s")
        self.time_spin.setToolTip("Planner time limit per problem")
        self.equivalence_combo = QComboBox()
        self.equivalence_combo.setObjectName("equivalenceMode")
        self.equivalence_combo.setToolTip("How an answer that passes the checks is judged equivalent")
        for value, label in EQUIVALENCE_LABELS.items():
            self.equivalence_combo.addItem(label, value)

        self.class_combo = QComboBox()
        for cls in DescriptionClass:
            self.class_combo.addItem(cls.value.capitalize(), cls.value)
        self.seed_spin = _spin(0, 1_000_000, "Seed of the random descriptions and of the examples' choice")

        sections = [
            ("Model", [("Model file", model_row), ("Threads", self.threads_spin),
                       ("Prompt format", self.format_combo), ("", self.preload_check)]),
            ("Generation", [("", self.grammar_check), ("", self.free_signature_check),
                            ("Context examples", self.examples_spin), ("Max new tokens", self.max_tokens_spin),
                            ("Retries", self.retries_spin), ("Feedback", self.feedback_combo)]),
            ("Candidates", [("Candidates (N)", self.candidates_spin), ("", self.sample_check),
                            ("Temperature", self.temperature_spin), ("Search budget", self.search_budget_spin),
                            ("Search feedback", self.search_feedback_combo), ("", self.search_guided_check)]),
            ("Evaluation", [("Equivalence", self.equivalence_combo), ("K (plans per problem)", self.k_spin),
                            ("Planner time limit", self.time_spin)]),
            ("Descriptions", [("Default class", self.class_combo), ("Seed", self.seed_spin)]),
        ]
        layout = QVBoxLayout(self)
        labels: list[QLabel] = []
        for title, rows in sections:
            box = QGroupBox(title)
            form = QFormLayout(box)
            for label, field in rows:
                if label:
                    labels.append(QLabel(label))
                    form.addRow(labels[-1], field)
                else:
                    form.addRow("", field)
            layout.addWidget(box)
        width = max(label.sizeHint().width() for label in labels)
        for label in labels:   # one label column across the sections
            label.setMinimumWidth(width)
        self.setMinimumWidth(560)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                                        | QDialogButtonBox.StandardButton.RestoreDefaults)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            lambda: self.set_values(AppSettings()))
        layout.addWidget(self.buttons)
        self.set_values(settings)

    def set_values(self, s: AppSettings) -> None:
        self.model_edit.setText(s.model)
        self.threads_spin.setValue(s.threads)
        self.format_combo.setCurrentIndex(max(0, self.format_combo.findData(s.prompt_format)))
        self.preload_check.setChecked(s.preload_model)
        self.grammar_check.setChecked(s.grammar)
        self.free_signature_check.setChecked(s.free_signature)
        self.free_signature_check.setEnabled(s.grammar)
        self.examples_spin.setValue(s.examples)
        self.max_tokens_spin.setValue(s.max_new_tokens)
        self.retries_spin.setValue(s.retries)
        self.feedback_combo.setCurrentIndex(max(0, self.feedback_combo.findData(s.feedback)))
        self.feedback_combo.setEnabled(s.retries > 0)
        self.k_spin.setValue(s.k)
        self.time_spin.setValue(s.planner_time_limit_s)
        self.equivalence_combo.setCurrentIndex(max(0, self.equivalence_combo.findData(s.equivalence)))
        self.class_combo.setCurrentIndex(max(0, self.class_combo.findData(s.default_class)))
        self.seed_spin.setValue(s.seed)
        self.candidates_spin.setValue(s.candidates)
        self.sample_check.setChecked(s.sample_candidates)
        self.temperature_spin.setValue(s.candidate_temperature)
        self.temperature_spin.setEnabled(s.sample_candidates)
        self._search_width = s.search_width   # kept as it is (no field of its own)
        self.search_budget_spin.setValue(s.search_budget)
        self.search_feedback_combo.setCurrentIndex(max(0, self.search_feedback_combo.findData(s.search_feedback)))
        self.search_guided_check.setChecked(s.search_guided)

    def values(self) -> AppSettings:
        return AppSettings(
            model=self.model_edit.text().strip(),
            threads=self.threads_spin.value(),
            prompt_format=self.format_combo.currentData(),
            grammar=self.grammar_check.isChecked(),
            free_signature=self.free_signature_check.isChecked(),
            retries=self.retries_spin.value(),
            feedback=self.feedback_combo.currentData(),
            examples=self.examples_spin.value(),
            max_new_tokens=self.max_tokens_spin.value(),
            k=self.k_spin.value(),
            planner_time_limit_s=float(self.time_spin.value()),
            equivalence=self.equivalence_combo.currentData(),
            default_class=self.class_combo.currentData(),
            seed=self.seed_spin.value(),
            preload_model=self.preload_check.isChecked(),
            candidates=self.candidates_spin.value(),
            sample_candidates=self.sample_check.isChecked(),
            candidate_temperature=float(self.temperature_spin.value()),
            search_budget=self.search_budget_spin.value(),
            search_width=self._search_width,
            search_feedback=self.search_feedback_combo.currentData(),
            search_guided=self.search_guided_check.isChecked(),
        ).checked()

    def focus_setting(self, name: str) -> None:
        """Put the keyboard focus on the field of the setting `name` (e.g. after a model failed to load)."""
        fields = {"model": self.model_edit, "threads": self.threads_spin, "max_new_tokens": self.max_tokens_spin,
                  "planner_time_limit_s": self.time_spin, "k": self.k_spin}
        widget = fields.get(name)
        if widget is not None:
            widget.setFocus()

    def _browse(self) -> None:
        current = self.model_edit.text().strip()
        file_dialog(self, Purpose.MODEL, "Model file", lambda path: self.model_edit.setText(str(path)),
                    filters=GGUF_FILTER, start=Path(current).expanduser().parent if current else None)
