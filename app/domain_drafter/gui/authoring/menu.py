"""The main window's Authoring menu: open the authoring window on the current domain or a saved draft folder.

Installed by one `install_authoring_menu(window, state)` call. Each authoring window gets the app's
state, so it drafts with the model chosen in the main window when a job starts and the settings'
options; a closed authoring window is dropped from the list and freed.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMessageBox

from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.window import AuthoringWindow
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.errors import show_error
from domain_drafter.gui.state.folders import Purpose, file_dialog
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker


def _open_folder(folder: Path, *, task: TaskState) -> WorkingCopy:
    return WorkingCopy.open(folder)


def show_authoring(window: QMainWindow, state: AppState, workspace: WorkingCopy) -> AuthoringWindow:
    authoring = AuthoringWindow(workspace, state, parent=window)
    windows: list = window.authoring_windows

    def closed() -> None:
        if authoring in windows:
            windows.remove(authoring)
        authoring.deleteLater()

    authoring.closed.connect(closed)
    windows.append(authoring)
    authoring.show()
    return authoring


def install_authoring_menu(window: QMainWindow, state: AppState) -> QAction:
    """Add Authoring > Draft this domain… / Open drafted folder… to a main window."""
    menu = window.menuBar().addMenu("&Authoring")
    runner = TaskRunner(window)

    def draft_current() -> None:
        if state.bundle is None:
            QMessageBox.information(window, "Authoring", "Pick a domain first.")
            return
        show_authoring(window, state, WorkingCopy.from_bundle(state.bundle))

    def open_chosen(folder: Path) -> None:
        worker = TaskWorker(_open_folder, folder, kind=JobKind.OPEN_DRAFT)
        worker.signals.finished.connect(lambda workspace: show_authoring(window, state, workspace))
        worker.signals.failed.connect(lambda err: show_error(window, err, "Cannot open the folder"))
        runner.start(worker)

    def open_folder() -> None:
        file_dialog(window, Purpose.DOMAIN, "Open a drafted domain folder", open_chosen, folder=True)

    action = menu.addAction("Draft this domain…", draft_current)
    menu.addAction("Open drafted folder…", open_folder)
    window.authoring_action = action
    window.authoring_menu = menu   # Domain tests joins it (gui/main/domain_tests.py)
    return action
