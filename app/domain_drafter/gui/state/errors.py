"""The one place where an exception becomes what the user reads: a message, what to do, which setting.

Workers hand over the exception object itself; this module branches on its type (the engine's
DrafterError hierarchy, OSError for files), never on words in its message.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from domain_drafter.core.errors import (
    ContextTooSmallError,
    DomainError,
    DrafterError,
    ErrorKind,
    ModelError,
    PddlSyntaxError,
    PlannerError,
    UsageError,
)

log = logging.getLogger(__name__)

MODEL_ADVICE = ("Choose another GGUF file in Settings ▸ Model file (empty: the embedded default model), or a "
                "smaller one if memory is short.")
BUG_HINT = "This is a bug in Domain Drafter; the log has the details. Please report it."


@dataclass(frozen=True)
class ErrorText:
    """What to tell the user about one error."""

    message: str      # what went wrong, and where
    hint: str         # what to do about it
    setting: str = ""  # the AppSettings field that can fix it ("" if none)

    @property
    def text(self) -> str:
        return f"{self.message}\n\n{self.hint}" if self.hint else self.message


def describe_error(exc: BaseException) -> ErrorText:
    """Message, hint and setting for `exc`, by its type."""
    if isinstance(exc, DrafterError):
        what = f"{exc.where}: {exc.what}" if exc.where is not None else exc.what
        hint = exc.hint or ""
        if isinstance(exc, ContextTooSmallError):
            return ErrorText(what, "Use fewer context examples in Settings ▸ Context examples (the paper's "
                                   "prompt has 3), or a model with a larger context.", "examples")
        if isinstance(exc, ModelError):
            return ErrorText(what, f"{hint}\n{MODEL_ADVICE}" if hint else MODEL_ADVICE, "model")
        if isinstance(exc, (PddlSyntaxError, DomainError)):
            return ErrorText(what, hint or "Fix the file at the place named, then open it again.")
        if isinstance(exc, PlannerError):
            return ErrorText(what, hint or "Check that the K* planner is installed (pip install kstar-planner); "
                                           "Settings ▸ Planner time limit bounds each run.",
                             "planner_time_limit_s")
        if exc.kind is ErrorKind.PROOF:   # the proof contradicted itself
            return ErrorText(what, hint or BUG_HINT)
        if isinstance(exc, UsageError):
            return ErrorText(what, hint)
        return ErrorText(what, hint)
    if isinstance(exc, OSError):
        where = exc.filename if exc.filename is not None else ""
        what = exc.strerror or str(exc)
        return ErrorText(f"{where}: {what}" if where else what,
                         "Check that the folder exists and can be written to, and that the disk is not full.")
    return ErrorText(f"unexpected error: {type(exc).__name__}: {exc}", BUG_HINT)


def error_box(parent: QWidget | None, title: str, text: str, *, name: str = "errorBox",
              icon: QMessageBox.Icon = QMessageBox.Icon.Critical) -> QMessageBox:
    """A window-modal box that does not block the event loop (open(), not exec()), deleted on close."""
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName(name)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def show_error(parent: QWidget | None, exc: BaseException, title: str = "Error") -> ErrorText:
    """Tell the user about `exc` in a box over `parent`; returns what was said."""
    described = describe_error(exc)
    log.info("%s: %s", title, described.message)
    error_box(parent, title, described.text)
    return described
