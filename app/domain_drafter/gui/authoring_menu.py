"""The main window's Authoring menu: open the authoring window on the current domain or a saved draft folder.

Installed by one `install_authoring_menu(window)` call, so the main window knows nothing else of it.
The model is the one chosen in the main window, loaded (or reused) by its model holder in the
authoring window's workers.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox

from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring_window import AuthoringWindow
from domain_drafter.gui.workers import TaskRunner, TaskWorker


def _backend_source(window):
    """A loader for the model selected in `window` now, or None if there is none."""
    entry = window.current_model() if hasattr(window, "current_model") else None
    holder = getattr(getattr(window, "drafts", None), "models", None)
    if entry is None or holder is None:
        return None
    return lambda task: holder.get(entry, task)


def _open_folder(folder: Path, *, task: TaskState) -> WorkingCopy:
    return WorkingCopy.open(folder)


def show_authoring(window, workspace: WorkingCopy) -> AuthoringWindow:
    authoring = AuthoringWindow(workspace, _backend_source(window), parent=window)
    window.authoring_windows = [w for w in getattr(window, "authoring_windows", []) if w.isVisible()] + [authoring]
    authoring.show()
    return authoring


def install_authoring_menu(window) -> QAction:
    """Add Authoring > Draft this domain… / Open drafted folder… to a main window."""
    menu = window.menuBar().addMenu("&Authoring")
    runner = TaskRunner(window)

    def draft_current() -> None:
        bundle = window.current_bundle()
        if bundle is None:
            QMessageBox.information(window, "Authoring", "Pick a domain first.")
            return
        show_authoring(window, WorkingCopy.from_bundle(bundle))

    def open_folder() -> None:
        folder = QFileDialog.getExistingDirectory(window, "Open a drafted domain folder")
        if not folder:
            return
        worker = TaskWorker(_open_folder, Path(folder), name="open-draft")
        worker.signals.finished.connect(lambda workspace: show_authoring(window, workspace))
        worker.signals.failed.connect(lambda message: QMessageBox.warning(window, "Cannot open the folder", message))
        runner.start(worker)

    action = menu.addAction("Draft this domain…", draft_current)
    menu.addAction("Open drafted folder…", open_folder)
    window.authoring_action = action
    return action
