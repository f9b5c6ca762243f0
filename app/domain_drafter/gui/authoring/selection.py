"""The authoring window's selection: which action is being worked on, as a small state object.

The actions table writes a user's pick to it; the window and its parts read `name` and follow
`changed`, which carries the new name and is emitted only when it changes, so the table showing the
selection back (its own echo) ends there.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class AuthoringSelection(QObject):
    """The selected action's name (None: none)."""

    changed = Signal(object)   # the new name, or None

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.name: str | None = None

    def set(self, name: str | None) -> None:
        if name != self.name:
            self.name = name
            self.changed.emit(name)
