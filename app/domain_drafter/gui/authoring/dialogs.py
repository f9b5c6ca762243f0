"""The authoring window's dialogs: New action (name, typed parameters, a one-line summary, conditions and
effects in words) and the folder to save a domain into (an existing one, or a new name typed in)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QLineEdit, QMessageBox, QWidget

from domain_drafter.drafting.workspace import NewActionSpec
from domain_drafter.gui.authoring.jobs import parse_parameters


class NewActionDialog(QDialog):
    """Name, typed parameters, a one-line summary and (optionally) conditions and effects in words."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New action")
        form = QFormLayout(self)
        self.name = QLineEdit()
        self.parameters = QLineEdit()
        self.parameters.setPlaceholderText("?obj - ball ?to - room")
        self.summary = QLineEdit()
        self.summary.setPlaceholderText("The robot ... {obj} ... {to}.")
        self.conditions = QLineEdit()
        self.effects = QLineEdit()
        for label, widget in (("Name", self.name), ("Parameters", self.parameters), ("Summary", self.summary),
                              ("Conditions (words)", self.conditions), ("Effects (words)", self.effects)):
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def spec(self) -> NewActionSpec:
        return NewActionSpec(self.name.text().strip(), parse_parameters(self.parameters.text()),
                             self.summary.text().strip(), self.conditions.text().strip(), self.effects.text().strip())


def folder_dialog(parent: QWidget | None, title: str, suggested: str = "") -> QFileDialog:
    """A Save dialog for a folder: pick an existing folder or type the name of a new one."""
    dialog = QFileDialog(parent, title)
    dialog.setObjectName("folderDialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)     # Directory mode refuses a name that does not exist yet
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.setOption(QFileDialog.Option.DontConfirmOverwrite, True)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setLabelText(QFileDialog.DialogLabel.Accept, "Save here")
    dialog.setLabelText(QFileDialog.DialogLabel.FileName, "Folder")
    if suggested:
        dialog.selectFile(suggested)
    return dialog


def chosen_folder(dialog: QFileDialog) -> Path | None:
    """The folder an accepted folder_dialog names, created if new; None (after saying why) if unusable."""
    files = dialog.selectedFiles()
    if not files:
        return None
    folder = Path(files[0])
    if folder.exists() and not folder.is_dir():
        QMessageBox.warning(dialog.parentWidget(), "Not a folder", f"{folder} is a file: choose or name a folder.")
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        QMessageBox.warning(dialog.parentWidget(), "Cannot create the folder", f"{folder}: {err.strerror or err}")
        return None
    return folder


def ask_folder(parent: QWidget | None, title: str, suggested: str = "") -> Path | None:
    dialog = folder_dialog(parent, title, suggested)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return chosen_folder(dialog)
