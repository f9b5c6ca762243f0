"""Menu, toolbar and widget enabling from predicates over the app's state, in one table per window."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol


class Enablable(Protocol):
    def setEnabled(self, enabled: bool) -> None: ...


Rule = tuple[Enablable, Callable[[], bool]]


class EnablingTable:
    """`(target, predicate)` rows; `refresh()` enables each target exactly when its predicate holds."""

    def __init__(self, rules: Iterable[Rule] = ()):
        self.rules: list[Rule] = list(rules)

    def add(self, target: Enablable, predicate: Callable[[], bool]) -> None:
        self.rules.append((target, predicate))

    def refresh(self, *_: object) -> None:
        for target, predicate in self.rules:
            target.setEnabled(bool(predicate()))
