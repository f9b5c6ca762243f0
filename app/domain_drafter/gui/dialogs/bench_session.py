"""What the Benchmark dialog asks when it is closed mid-run, and the domain choice it keeps for next time.

Closing (the title bar's button or Escape) while a run goes on asks first, in a window-modal box opened
with .open(), so nothing waits in the GUI thread: Stop the run and close, or Keep running. The domains
checked are kept in gui.conf (state/folders.gui_settings) and checked again when the dialog next opens.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from domain_drafter.gui.state.folders import gui_settings

STOP_AND_CLOSE = "Stop the run and close"
KEEP_RUNNING = "Keep running"
DOMAINS_KEY = "benchmark/domains"


def ask_to_stop(parent: QWidget, on_stop: Callable[[], None]) -> QMessageBox:
    """Open (not exec) the question; `on_stop` runs only if the user chooses Stop the run and close."""
    box = QMessageBox(QMessageBox.Icon.Question, "Benchmark running",
                      "A benchmark run is going on. Stop it and close? Start resumes it later from the "
                      "results file.", QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("benchmarkCloseBox")
    stop = box.addButton(STOP_AND_CLOSE, QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(KEEP_RUNNING, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.buttonClicked.connect(lambda button: on_stop() if button is stop else None)
    box.open()
    return box


def remembered_domains(offered: Sequence[str]) -> set[str] | None:
    """The domains checked when the dialog was last used (of those `offered`); None if never saved."""
    value = gui_settings().value(DOMAINS_KEY, "")
    try:
        chosen = json.loads(str(value)) if value else None
    except ValueError:
        return None
    if not isinstance(chosen, list):
        return None
    return {str(d) for d in chosen} & set(offered)


def remember_domains(chosen: Sequence[str]) -> None:
    gui_settings().setValue(DOMAINS_KEY, json.dumps(list(chosen)))
