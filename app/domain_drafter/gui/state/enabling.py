"""Menu, toolbar and widget enabling from predicates over the app's state, in one table per window.

A QObject, so that a state signal connected to `refresh` is disconnected when the table's window (its
parent) goes: a closed window's table never touches its deleted buttons.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from PySide6.QtCore import QObject


class Enablable(Protocol):
    def setEnabled(self, enabled: bool) -> None: ...


Rule = tuple[Enablable, Callable[[], bool]]


class EnablingTable(QObject):
    """`(target, predicate)` rows; `refresh()` enables each target exactly when its predicate holds."""

    def __init__(self, rules: Iterable[Rule] = (), parent: QObject | None = None):
        super().__init__(parent)
        self.rules: list[Rule] = list(rules)

    def add(self, target: Enablable, predicate: Callable[[], bool]) -> None:
        self.rules.append((target, predicate))

    def refresh(self, *_: object) -> None:
        for target, predicate in self.rules:
            target.setEnabled(bool(predicate()))
