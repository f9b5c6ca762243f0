"""The Tests panel's starter cases: for a domain with few tests, what the engine knows offered as cases (issue 37).

A view over `planning.starter_cases.Starters`: one row per starter (where it comes from, its name, what it
asks; the TOML table it would add as the tooltip). Keep as test says which one through a signal; the window
appends it to the domain's tests file in a worker, and the tests run again.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidgetItem, QPushButton, QWidget

from domain_drafter.gui.panels.list_box import ListBox
from domain_drafter.planning.starter_cases import Starters

IdRole = Qt.ItemDataRole.UserRole + 1   # the starter's id (its case name)


class StarterCasesBox(ListBox):
    """The starters on offer, Keep as test under them; hidden while there are none."""

    keep_requested = Signal(str)   # the id of the starter to keep

    def __init__(self, parent: QWidget | None = None):
        button = QPushButton("Keep as test")
        button.setObjectName("keepStarter")
        button.setToolTip("Add this case to the domain's tests file (a bundled domain's: your copy's)")
        super().__init__("Starter cases", button, name="starters", list_name="starterCases", parent=parent)
        self.keep_button = button
        self.starters: Starters | None = None
        self.keep_button.clicked.connect(self._on_keep)
        self.setVisible(False)

    def show_starters(self, starters: Starters | None) -> None:
        """The starters on offer (None, or none: the box hides)."""
        self.starters = starters
        self.list.clear()
        if starters is not None:
            for starter in starters.starters:
                item = QListWidgetItem(f"[{starter.source.value}] {starter.id}: {starter.words}")
                item.setToolTip(starter.table)
                item.setData(IdRole, starter.id)
                self.list.addItem(item)
            notes = "".join(f"\n{note}" for note in starters.notes)
            self.title.setText(f"Starter cases ({len(starters.starters)}): keep any as a test, and the judge "
                               f"grows with your work{notes}")
        self.setVisible(bool(starters and starters.starters))
        self._update_button()

    def ids(self) -> list[str]:
        return [self.list.item(r).data(IdRole) for r in range(self.list.count())]

    def select(self, starter_id: str) -> None:
        if starter_id in self.ids():
            self.list.setCurrentRow(self.ids().index(starter_id))

    def _update_button(self) -> None:
        self.keep_button.setEnabled(self.list.currentItem() is not None and not self.busy)

    def _on_keep(self) -> None:
        item = self.list.currentItem()
        if item is not None and not self.busy:
            self.keep_requested.emit(item.data(IdRole))
