"""Where each kind of file dialog opens: the folder last used for that purpose, remembered in gui.conf.

Qt's own file dialogs start in the last folder used for anything, so after saving a counterexample
both Model file > Browse and Save domain as… opened in that problems/ folder. Every dialog names
its `Purpose` instead, and opens where the user last went for that purpose.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QWidget

from domain_drafter.core.paths import config_dir


class Purpose(str, enum.Enum):
    """What a file dialog is for; each remembers its own folder."""

    MODEL = "model"        # GGUF model files
    DOMAIN = "domain"      # domain folders (opened, drafted, saved as) and exported domain.pddl files
    PROBLEM = "problem"    # problems and counterexamples
    RESULTS = "results"    # benchmark results files
    EXPERIMENT = "experiment"   # experiment specs (TOML) for the Benchmark dialog


GGUF_FILTER = "GGUF models (*.gguf);;All files (*)"


def gui_settings() -> QSettings:
    """Window state and remembered folders, in the engine's config folder (gui.conf beside settings.json)."""
    return QSettings(str(config_dir() / "gui.conf"), QSettings.Format.IniFormat)


def last_folder(purpose: Purpose, fallback: Path | None = None) -> Path:
    """The folder last used for `purpose` if it still exists, else `fallback` (if it exists), else the home folder."""
    value = gui_settings().value(f"folders/{purpose.value}", "")
    for folder in (Path(str(value)) if value else None, fallback):
        if folder is not None and folder.is_dir():
            return folder
    return Path.home()


def remember_folder(purpose: Purpose, chosen: Path | str) -> None:
    """Remember the folder that holds what the user chose (a file, or a folder picked inside its parent)."""
    gui_settings().setValue(f"folders/{purpose.value}", str(Path(chosen).parent))


def file_dialog(parent: QWidget, purpose: Purpose, title: str, on_chosen: Callable[[Path], object], *,
                filters: str = "", save: bool = False, folder: bool = False, name: str = "",
                start: Path | None = None, fallback: Path | None = None) -> QFileDialog:
    """A window-modal file dialog (open(), not exec()), deleted on close, named `<purpose>Dialog`.

    It opens in `start` if that folder exists, else where `purpose` was last used (else `fallback`);
    `name` is the file name it proposes. Once the user chose, the folder is remembered and
    `on_chosen(path)` called. `folder`: pick an existing folder; `save`: name a file to write.
    """
    directory = start if start is not None and start.is_dir() else last_folder(purpose, fallback)
    dialog = QFileDialog(parent, title, str(directory), filters)
    dialog.setObjectName(f"{purpose.value}Dialog")
    if folder:
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    elif save:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    else:
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    if name:
        dialog.selectFile(name)

    def chosen(path: str) -> None:
        remember_folder(purpose, path)
        on_chosen(Path(path))

    dialog.fileSelected.connect(chosen)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
