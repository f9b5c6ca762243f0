"""What the app asks before a benchmark run is stopped by a close, and the domain choice it keeps for next time.

Closing the Benchmark dialog (the title bar's button or Escape) while a run goes on asks first: Stop the
run and close, or Keep running. Quitting the app (the main window's close, File > Quit) asks the same
over the main window: Stop the run and quit, or Keep working. Either box is window-modal and opened with
.open(), so nothing waits in the GUI thread; a stopped run keeps every answer judged in its results file,
and Start (Resume) continues it. The domains checked are kept in gui.conf (state/folders.gui_settings)
and checked again when the dialog next opens.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from domain_drafter.gui.state.folders import gui_settings

STOP_AND_CLOSE = "Stop the run and close"
KEEP_RUNNING = "Keep running"
STOP_AND_QUIT = "Stop the run and quit"
KEEP_WORKING = "Keep working"
DOMAINS_KEY = "benchmark/domains"
_RESUME = "Start resumes it later from the results file."
_QUESTIONS = {False: ("benchmarkCloseBox", f"A benchmark run is going on. Stop it and close? {_RESUME}",
                      STOP_AND_CLOSE, KEEP_RUNNING),
              True: ("benchmarkQuitBox", "A benchmark run is going on. Stop it and quit Domain Drafter? The answers "
                     f"judged so far stay; Benchmark > Run benchmark… with the same choices: {_RESUME}",
                     STOP_AND_QUIT, KEEP_WORKING)}


def ask_to_stop(parent: QWidget, on_stop: Callable[[], None], *, quitting: bool = False) -> QMessageBox:
    """Open (not exec) the question; `on_stop` runs only if the user chooses to stop the run (and close the
    dialog, or quit the app when `quitting`)."""
    name, text, stop_text, keep_text = _QUESTIONS[quitting]
    box = QMessageBox(QMessageBox.Icon.Question, "Benchmark running", text, QMessageBox.StandardButton.NoButton,
                      parent)
    box.setObjectName(name)
    stop = box.addButton(stop_text, QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(keep_text, QMessageBox.ButtonRole.RejectRole)
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
