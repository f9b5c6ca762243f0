"""The Benchmark dialog's model and domain lists: checkable rows, every row in view, All and None for domains."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout

from domain_drafter.gui.dialogs.bench_session import remember_domains, remembered_domains


def checklist(items: Sequence[tuple[str, str]], *, checked_all: bool = False, checked_first: bool = False,
              rows: int | None = None) -> QListWidget:
    """A list of checkable (label, data) rows, tall enough for `rows` of them (all of them by default)."""
    widget = QListWidget()
    for i, (label, data) in enumerate(items):
        item = QListWidgetItem(label)
        item.setData(Qt.ItemDataRole.UserRole, data)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        on = checked_all or (checked_first and i == 0)
        item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        widget.addItem(item)
    shown = len(items) if rows is None else rows
    widget.setFixedHeight(widget.sizeHintForRow(0) * max(1, shown) + 2 * widget.frameWidth() + 2)
    return widget


def check_all(widget: QListWidget, state: Qt.CheckState) -> None:
    for row in range(widget.count()):
        widget.item(row).setCheckState(state)


def checked(widget: QListWidget) -> list[tuple[str, str]]:
    """The (label, data) of the ticked rows, in order."""
    return [(widget.item(i).text(), widget.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(widget.count())
            if widget.item(i).checkState() == Qt.CheckState.Checked]


def domain_checklist(domains: Sequence[str]) -> QListWidget:
    """Every domain, ticked as the last time the dialog was used (all of them the first time); a change is kept."""
    widget = checklist([(d, d) for d in domains], checked_all=True)
    kept = remembered_domains(domains)
    for row in range(widget.count()) if kept is not None else ():
        item = widget.item(row)
        item.setCheckState(Qt.CheckState.Checked if item.text() in kept else Qt.CheckState.Unchecked)
    widget.itemChanged.connect(lambda _item: remember_domains([d for _, d in checked(widget)]))
    return widget


def with_all_none(widget: QListWidget) -> QVBoxLayout:
    """The list with All and None buttons under it."""
    buttons = QHBoxLayout()
    for text, state in (("All", Qt.CheckState.Checked), ("None", Qt.CheckState.Unchecked)):
        button = QPushButton(text)
        button.setObjectName(f"domains{text}")
        button.clicked.connect(lambda _=False, s=state: check_all(widget, s))
        buttons.addWidget(button)
    buttons.addStretch(1)
    box = QVBoxLayout()
    box.addWidget(widget)
    box.addLayout(buttons)
    return box
