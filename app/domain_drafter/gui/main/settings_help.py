"""The main window's settings, errors and help: the Settings dialog and what applying it changes, the
error boxes (the model-failure one leads to the setting to change), Help > About and Help > Result classes.

A mixin of MainWindow (kept apart so the window module stays about layout and jobs).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from domain_drafter.core.classes import ResultClass
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.gui.dialogs.help_dialogs import AboutDialog, ResultClassesDialog
from domain_drafter.gui.dialogs.settings_dialog import SettingsDialog
from domain_drafter.gui.state.errors import describe_error, error_box
from domain_drafter.gui.state.settings import AppSettings


class WindowSettingsMixin:
    """Needs the MainWindow's state, model_status, panels, runner and report_exception."""

    settings_dialog: SettingsDialog | None = None
    classes_dialog: ResultClassesDialog | None = None

    def _about(self) -> None:
        dialog = AboutDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def show_result_classes(self, cls: ResultClass | None = None) -> None:
        """Help ▸ Result classes, scrolled to `cls` (the badge links here)."""
        if self.classes_dialog is None:
            self.classes_dialog = ResultClassesDialog(self)
        self.classes_dialog.show_class(cls, self.app_settings.evaluation_options().equivalence)

    # --- errors ------------------------------------------------------------------------------
    def report_exception(self, title: str, error: BaseException) -> None:
        """Tell the user in a window-modal box that does not block the event loop; emit error_reported(error)."""
        message = describe_error(error).text
        self.last_error = message
        self.show_status(message.splitlines()[0] if message else title)
        error_box(self, title, message)
        self.error_reported.emit(error)

    def _on_settings_save_failed(self, error: BaseException) -> None:
        self.report_exception("Cannot save the settings", error)

    # --- settings ----------------------------------------------------------------------------
    def show_settings(self, focus: str = "") -> None:
        """The settings dialog (window-modal, so the event loop keeps running); applied on OK."""
        if self.runner.busy:
            self.show_status("Busy: stop the running job first")
            return
        dialog = self.settings_dialog = SettingsDialog(self.app_settings, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.values()))
        dialog.destroyed.connect(lambda: setattr(self, "settings_dialog", None))
        dialog.open()
        if focus:
            dialog.focus_setting(focus)

    def apply_settings(self, new: AppSettings) -> None:
        """Use and save `new` (new jobs get it); a failed save is reported by the AppState's signal."""
        old = self.app_settings
        saved = self.state.update_settings(new)
        self._apply_settings_to_widgets()
        if new.model and new.model != old.model and self.add_model_file(new.model) is None:
            saved = self.state.update_settings(replace(new, model=old.model))   # a file that is no model is not kept
        elif not new.model and old.model and (default := self.state.default_model()) is not None:
            self.choose_model(default)
        if new.preload_model and new.threads != old.threads and new.model == old.model:
            self.model_status.preload(self.current_model(), self.current_prompt_text())   # reload with them
        # (another model file: selecting it in the toolbar above starts its load)
        if saved:
            self.show_status("Settings saved")

    def _apply_settings_to_widgets(self) -> None:
        s = self.app_settings
        self.state.set_description(DescriptionClass(s.default_class), s.seed)   # the panel follows the state
        target = self.state.target   # shown at once, also when it did not change (the first time)
        self.description_panel.show_target(target.bundle, target.action, target.description_class, target.seed)

    def _on_model_failed(self, error: BaseException) -> None:
        """The model did not load: why, and which setting to change; everything else stays usable."""
        if self.closing:
            return
        described = describe_error(error)
        self.last_error = described.message
        self.show_status("The model did not load: " + described.message.splitlines()[0])
        box = QMessageBox(QMessageBox.Icon.Warning, "Cannot load the model", described.text,
                          QMessageBox.StandardButton.Close, self)
        box.setObjectName("modelErrorBox")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        settings_button = box.addButton("Open Settings…", QMessageBox.ButtonRole.ActionRole)
        settings_button.clicked.connect(lambda: self.show_settings(described.setting or "model"))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.error_reported.emit(error)
