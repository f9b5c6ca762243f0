"""The authoring window's dialogs: New action (name, typed parameters, a one-line summary, conditions and
effects in words) and the folder to save a domain into (an existing one, or a new name typed in)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QLineEdit, QMessageBox, QWidget

from domain_drafter.core.model import Domain
from domain_drafter.drafting.workspace import NewActionSpec
from domain_drafter.gui.authoring.jobs import parse_parameters
from domain_drafter.gui.state.folders import Purpose, file_dialog, last_folder, remember_folder

MIN_WIDTH = 560   # the title and a typical parameter list in full


def placeholders(domain: Domain | None) -> tuple[str, str]:
    """Example parameters and summary in `domain`'s own types ('?x - block ?y - block', 'The ... {x} ... {y}.')."""
    declared = domain.types.declared if domain is not None else ()
    first, second = (declared or ("object",))[0], (declared[1:] or declared or ("object",))[0]
    return f"?x - {first} ?y - {second}", "The ... {x} ... {y}."


class NewActionDialog(QDialog):
    """Name, typed parameters, a one-line summary and (optionally) conditions and effects in words."""

    def __init__(self, parent: QWidget | None = None, domain: Domain | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"New action in {domain.name}" if domain is not None else "New action")
        self.setMinimumWidth(MIN_WIDTH)
        form = QFormLayout(self)
        self.name = QLineEdit()
        self.parameters = QLineEdit()
        self.summary = QLineEdit()
        example_parameters, example_summary = placeholders(domain)
        self.parameters.setPlaceholderText(example_parameters)
        self.summary.setPlaceholderText(example_summary)
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


def folder_dialog(parent: QWidget | None, title: str, suggested: str = "", directory: Path | None = None) -> QFileDialog:
    """A Save dialog for a folder, in `directory`: pick an existing folder or type the name of a new one."""
    dialog = QFileDialog(parent, title, str(directory) if directory is not None else "")
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



def ask_export(parent: QWidget, on_chosen: Callable[[Path], object]) -> QFileDialog:
    """Where to export the domain as one domain.pddl (in the folder last used for domains)."""
    return file_dialog(parent, Purpose.DOMAIN, "Export domain.pddl", on_chosen, filters="PDDL (*.pddl)", save=True,
                       name="domain.pddl")

def ask_folder(parent: QWidget | None, title: str, suggested: str = "") -> Path | None:
    """A new or empty folder for a domain, asked in the folder last used for domains (and remembered)."""
    dialog = folder_dialog(parent, title, suggested, last_folder(Purpose.DOMAIN))
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    folder = chosen_folder(dialog)
    if folder is not None:
        remember_folder(Purpose.DOMAIN, folder)
    return folder
