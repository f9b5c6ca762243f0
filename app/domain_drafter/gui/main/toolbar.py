"""The main toolbar: Generate, Draft N candidates, Stop, Evaluate, Show prompt, the model selector, the grammar switch."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QToolBar, QWidget

from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.llm.models import ModelEntry


def size_text(size: int) -> str:
    return f"{size / 2**20:.0f} MB" if size >= 2**20 else f"{size / 1024:.0f} KB"


class ModelSelector(QComboBox):
    """The view of the AppState's models on offer and the one in use (item data is the ModelEntry): it shows
    them silently (under QSignalBlocker); a user's pick is said through currentIndexChanged."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("modelSelector")
        # as wide as its longest entry: a cut-off label ("(defaul") hides which model it is
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setToolTip("The GGUF model that writes the action")

    def bind(self, state: AppState) -> None:
        """Follow the state's models (slots of the selector: the connections end with it)."""
        self.show_entries(state.model_entries)
        self.show_entry(state.model)
        state.model_entries_changed.connect(self.show_entries)
        state.model_changed.connect(self.show_entry)

    def show_entries(self, entries: Iterable[ModelEntry]) -> None:
        """The state's models, silently: a row whose file is the same is updated in place (and stays selected)."""
        entries = list(entries)
        with QSignalBlocker(self):
            for row, entry in enumerate(entries):
                if row >= self.count() or self.itemData(row).path != entry.path:
                    self.insertItem(row, "")
                label = f"{entry.name} ({'default, ' if entry.source == 'default' else ''}{size_text(entry.size)})"
                self.setItemText(row, label)
                self.setItemData(row, entry)
                self.setItemData(row, str(entry.path), Qt.ItemDataRole.ToolTipRole)
            while self.count() > len(entries):
                self.removeItem(len(entries))

    def current_entry(self) -> ModelEntry | None:
        return self.currentData()

    def show_entry(self, entry: ModelEntry | None) -> None:
        """Show the state's model as selected, silently (a user's pick is said through currentIndexChanged)."""
        rows = [row for row in range(self.count()) if entry is not None and self.itemData(row).path == entry.path]
        if rows:
            with QSignalBlocker(self):
                self.setCurrentIndex(rows[0])

    def select_default(self) -> None:
        for row in range(self.count()):
            if self.itemData(row).source == "default":
                self.setCurrentIndex(row)
                return


class DraftToolBar(QToolBar):
    """Holds the run actions (also put in the Run menu) and the generation options."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Main", parent)
        self.setObjectName("mainToolBar")
        self.setMovable(False)
        self.generate_action = self._make("Generate", "Ctrl+G",
                                          "Ask the model for the selected action, then evaluate its answer")
        self.candidates_action = self._make("Draft N", "Ctrl+Shift+G",
                                            "Draft N candidates in one batch, judge and rank them (N: Settings)")
        self.candidates_action.setText("Draft N candidates")
        self.candidates_action.setIconText("Draft N")
        self.search_action = self._make("Draft until proven", "Ctrl+Alt+G",
                                        "Search: re-prompt with each answer's feedback until one is proven "
                                        "Equivalent or the budget (Settings) is spent")
        self.search_action.setIconText("Until proven")
        self.stop_action = self._make("Stop", "Esc", "Stop the running generation or evaluation")
        self.evaluate_action = self._make("Evaluate", "Ctrl+E", "Judge the text in the answer editor")
        # Ctrl+Enter too (both Return and the keypad's Enter), as in notebooks
        self.evaluate_action.setShortcuts([QKeySequence("Ctrl+E"), QKeySequence("Ctrl+Return"),
                                           QKeySequence("Ctrl+Enter")])
        self.evaluate_action.setToolTip("Judge the text in the answer editor (Ctrl+E or Ctrl+Enter)")
        self.prompt_action = self._make("Show prompt", "Ctrl+P",
                                        "Show the prompt the model gets for the selected action")
        self.model_selector = ModelSelector()
        self.grammar_check = QCheckBox("Grammar")
        self.grammar_check.setToolTip("Constrain decoding to one well-formed action for the target "
                                      "(off: faithful to the paper)")
        for action in self.run_actions:
            self.addAction(action)
        self.addSeparator()
        self.addWidget(QLabel(" Model "))
        self.addWidget(self.model_selector)
        self.addWidget(self.grammar_check)

    def bind_grammar(self, state: AppState) -> None:
        """The Grammar switch writes the setting and follows it (shown back under QSignalBlocker: no echo)."""
        self.grammar_check.setChecked(state.settings.grammar)   # before it is connected: not a write
        self.grammar_check.toggled.connect(state.set_grammar)
        state.settings_changed.connect(self._show_settings)      # a slot of the toolbar: ends with it

    def _show_settings(self, settings: AppSettings) -> None:
        with QSignalBlocker(self.grammar_check):
            self.grammar_check.setChecked(settings.grammar)

    def explain_generate(self, blocker: str | None) -> None:
        """Generate and Draft N say why they are off (a domain without usable descriptions), or what they do."""
        for action in (self.generate_action, self.candidates_action, self.search_action):
            if action.property("tip") is None:
                action.setProperty("tip", action.toolTip())
            action.setToolTip(blocker or action.property("tip"))

    @property
    def run_actions(self) -> tuple[QAction, ...]:
        return (self.generate_action, self.candidates_action, self.search_action, self.stop_action,
                self.evaluate_action, self.prompt_action)

    def _make(self, text: str, shortcut: str, tip: str) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(f"{tip} ({shortcut})")
        action.setStatusTip(tip)
        return action
