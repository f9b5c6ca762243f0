"""The left column: the domains (bundled and opened) and the actions of the selected one.

The view of the AppState's domains and target: `show_domains` lists the state's domains (rows updated in
place, so the selection stays) and `show_target` shows its choice, both without a signal (under
QSignalBlocker), so nothing echoes. A user's pick is said through `domain_selected` / `action_selected`
(the window writes it to the AppState).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.user_domains import is_bundled

BundleRole = Qt.ItemDataRole.UserRole + 1


def folder_line(folder: Path) -> str:
    """A user domain's folder as its second line: under the home folder as ~/..."""
    try:
        return "~/" + folder.resolve().relative_to(Path.home().resolve()).as_posix()
    except ValueError:
        return str(folder)


class DomainPanel(QWidget):
    """Lists domains and actions; says which is selected through its signals."""

    domain_selected = Signal(object)   # DomainBundle or None
    action_selected = Signal(str)      # "" when none
    open_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.domain_list = QListWidget()
        self.domain_list.setObjectName("domainList")
        self.action_list = QListWidget()
        self.action_list.setObjectName("actionList")
        self._actions_of: DomainBundle | None = None   # the domain whose actions are listed
        self.open_button = QPushButton("Open domain folder…")
        self.open_button.clicked.connect(self.open_requested)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Domains</b>"))
        layout.addWidget(self.domain_list, 3)
        layout.addWidget(self.open_button)
        layout.addWidget(QLabel("<b>Actions</b>"))
        layout.addWidget(self.action_list, 2)

        self.domain_list.currentItemChanged.connect(self._on_domain_changed)
        self.action_list.currentItemChanged.connect(self._on_action_changed)

    # --- domains ---------------------------------------------------------------------------
    def show_domains(self, domains: Sequence[DomainBundle]) -> None:
        """The state's domains, silently: a row whose file is the same is updated in place (and stays selected)."""
        with QSignalBlocker(self.domain_list):
            for row, bundle in enumerate(domains):
                item = self.domain_list.item(row)
                if item is None or item.data(BundleRole).path != bundle.path:
                    item = QListWidgetItem()
                    self.domain_list.insertItem(row, item)
                self._describe(item, bundle)
            while self.domain_list.count() > len(domains):
                self.domain_list.takeItem(len(domains))   # taken out, the item is Python's: dropped, it is deleted

    @staticmethod
    def _describe(item: QListWidgetItem, bundle: DomainBundle) -> None:
        """A bundled domain shows its name; a user's domain also its folder, so a same-named one can be told apart."""
        bundled = is_bundled(bundle.folder)
        item.setText(bundle.name if bundled else f"{bundle.name}\n{folder_line(bundle.folder)}")
        item.setData(BundleRole, bundle)
        item.setToolTip(f"bundled domain: {bundle.path}" if bundled else f"your domain: {bundle.path}")

    def _row_of_path(self, path: Path) -> int | None:
        for row in range(self.domain_list.count()):
            if self.domain_list.item(row).data(BundleRole).path == path:
                return row
        return None

    def domain_names(self) -> list[str]:
        return [self.domain_list.item(r).data(BundleRole).name for r in range(self.domain_list.count())]

    def domain_count(self) -> int:
        return self.domain_list.count()

    def current_bundle(self) -> DomainBundle | None:
        item = self.domain_list.currentItem()
        return item.data(BundleRole) if item is not None else None

    def select_domain(self, name: str) -> bool:
        for row, listed in enumerate(self.domain_names()):
            if listed == name:
                self.domain_list.setCurrentRow(row)
                return True
        return False

    # --- actions ---------------------------------------------------------------------------
    def action_names(self) -> list[str]:
        return [self.action_list.item(r).text() for r in range(self.action_list.count())]

    def current_action(self) -> str:
        item = self.action_list.currentItem()
        return item.text() if item is not None else ""

    def select_action(self, name: str) -> bool:
        for row in range(self.action_list.count()):
            if self.action_list.item(row).text() == name:
                self.action_list.setCurrentRow(row)
                return True
        return False

    def show_target(self, bundle: DomainBundle | None, action: str) -> None:
        """Show `bundle`'s `action` as the selection, silently: the choice came from the state, not the user."""
        with QSignalBlocker(self.domain_list), QSignalBlocker(self.action_list):
            row = self._row_of_path(bundle.path) if bundle is not None else None
            self.domain_list.setCurrentRow(-1 if row is None else row)
            if bundle is not self._actions_of:   # another domain, or the same file read again
                self._fill_actions(bundle)
            names = self.action_names()
            self.action_list.setCurrentRow(names.index(action) if action in names else -1)

    def _fill_actions(self, bundle: DomainBundle | None) -> None:
        self._actions_of = bundle
        with QSignalBlocker(self.action_list):
            self.action_list.clear()
            if bundle is not None:
                self.action_list.addItems(list(bundle.action_names))

    def _on_domain_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        bundle = current.data(BundleRole) if current is not None else None
        self._fill_actions(bundle)
        self.domain_selected.emit(bundle)
        if self.action_list.count():
            self.action_list.setCurrentRow(0)
        else:
            self.action_selected.emit("")

    def _on_action_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        self.action_selected.emit(current.text() if current is not None else "")
