"""The natural-language side: the predicates with their templates, the action's description."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass, describe_action
from domain_drafter.core.errors import DrafterError
from domain_drafter.gui.panels.item_models import PredicateTableModel, predicate_rows

CLASS_LABELS = {
    DescriptionClass.BASE: "Base",
    DescriptionClass.FLIPPED: "Flipped",
    DescriptionClass.RANDOM: "Random",
}


class NoBreakInVariablesDelegate(QStyledItemDelegate):
    """Draws cell text so that a line never breaks inside `?name` (Qt would break after the '?')."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().initStyleOption(option, index)
        option.text = option.text.replace("?", "?\u2060")   # U+2060 WORD JOINER: no break here


class DescriptionPanel(QWidget):
    """Predicate table, description class and seed, and the description they give."""

    options_changed = Signal(object, int)   # the DescriptionClass and seed the user chose

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.predicate_model = PredicateTableModel(parent=self)
        self.predicate_table = QTableView()
        self.predicate_table.setModel(self.predicate_model)
        self.predicate_table.verticalHeader().setVisible(False)
        self.predicate_table.setWordWrap(True)
        self.predicate_table.setItemDelegate(NoBreakInVariablesDelegate(self.predicate_table))
        self.predicate_table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.predicate_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)

        self.class_combo = QComboBox()
        for cls, label in CLASS_LABELS.items():
            self.class_combo.addItem(label, cls)
        self.class_combo.setToolTip("How much of the action the description gives away (the paper's classes)")
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 1_000_000)
        self.seed_spin.setToolTip("Seed of the random description and of the prompt's example choice")
        self.description_view = QPlainTextEdit()
        self.description_view.setReadOnly(True)
        self.description_view.setObjectName("descriptionView")
        self.description_view.setMaximumHeight(110)

        self.title = QLabel("<b>Predicates</b>")
        options = QHBoxLayout()
        self.action_label = QLabel("<b>Description</b>")
        options.addWidget(self.action_label)
        options.addStretch(1)
        options.addWidget(QLabel("Class"))
        options.addWidget(self.class_combo)
        options.addWidget(QLabel("Seed"))
        options.addWidget(self.seed_spin)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.predicate_table, 1)
        layout.addLayout(options)
        layout.addWidget(self.description_view)

        self._bundle: DomainBundle | None = None
        self._action = ""
        self.class_combo.currentIndexChanged.connect(self._on_options_changed)
        self.seed_spin.valueChanged.connect(self._on_options_changed)

    # --- options ---------------------------------------------------------------------------
    def description_class(self) -> DescriptionClass:
        return self.class_combo.currentData()

    def set_description_class(self, cls: DescriptionClass) -> None:
        self.class_combo.setCurrentIndex(self.class_combo.findData(cls))

    def seed(self) -> int:
        return self.seed_spin.value()

    def show_target(self, bundle: DomainBundle | None, action: str, cls: DescriptionClass, seed: int) -> None:
        """Show the state's target, silently (a user's change of class or seed is said through `options_changed`)."""
        if bundle is not self._bundle:
            self.show_bundle(bundle)
        with QSignalBlocker(self.class_combo), QSignalBlocker(self.seed_spin):
            self.class_combo.setCurrentIndex(self.class_combo.findData(cls))
            self.seed_spin.setValue(seed)
        self.show_action(action)

    def description(self) -> str:
        return self.description_view.toPlainText()

    # --- content ---------------------------------------------------------------------------
    def show_bundle(self, bundle: DomainBundle | None) -> None:
        self._bundle = bundle
        self.predicate_model.set_rows(predicate_rows(bundle) if bundle is not None else [])
        count = self.predicate_model.rowCount()
        self.title.setText(f"<b>Predicates</b> ({count})" if bundle is not None else "<b>Predicates</b>")
        self.predicate_table.resizeRowsToContents()

    def show_action(self, action: str) -> None:
        self._action = action
        self._refresh()

    def _on_options_changed(self) -> None:
        self._refresh()
        self.options_changed.emit(self.description_class(), self.seed())

    def _refresh(self) -> None:
        bundle, action = self._bundle, self._action
        if bundle is None or not action:
            self.action_label.setText("<b>Description</b>")
            self.description_view.setPlainText("")
            return
        self.action_label.setText(f"<b>Description</b> of <code>{action}</code>")
        try:
            descriptions = bundle.require_descriptions()
            text = describe_action(bundle.domain, descriptions, action, self.description_class(), self.seed())
        except DrafterError as err:
            text = f"No description: {err.message}"
        self.description_view.setPlainText(text)
