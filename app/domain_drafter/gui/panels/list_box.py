"""A titled list with buttons under it, for the row selected: the Tests panel's findings and starter cases."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget


class ListBox(QWidget):
    """`title` (wrapped) over a word-wrapped list, `button` and then `more` (disabled until a subclass enables
    them) under it. `name` prefixes the object names: NAMETitle, and the list's `list_name`."""

    def __init__(self, title: str, button: QPushButton, *, name: str, list_name: str,
                 more: Sequence[QPushButton] = (), parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(title)
        self.title.setObjectName(f"{name}Title")
        self.title.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName(list_name)
        self.list.setWordWrap(True)
        buttons = QHBoxLayout()
        for each in (button, *more):
            each.setEnabled(False)
            buttons.addWidget(each)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.busy = False   # the row's action is being saved
        self.list.currentRowChanged.connect(lambda _row: self._update_button())

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self._update_button()

    def _update_button(self) -> None:
        """Enable the buttons for the row selected (each box says when)."""
        raise NotImplementedError
