"""The main window's settings and help: the Settings dialog and what applying it changes, the
model-failure box that leads to the setting to change, Help > About and Help > Result classes.

A mixin of MainWindow (kept apart so the window module stays about layout and jobs).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from domain_drafter.core.classes import ResultClass
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.gui.help_dialogs import AboutDialog, ResultClassesDialog
from domain_drafter.gui.settings import AppSettings, save_settings
from domain_drafter.gui.settings_dialog import SettingsDialog
from domain_drafter.planning.evaluate import Evaluator


class WindowSettingsMixin:
    """Needs the MainWindow's app_settings, drafts, model_status, panels, runner and report_error."""

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
        self.classes_dialog.show_class(cls)

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
        """Use and save `new`: a new evaluator for K or the time limit, a reload for the model or threads."""
        old, self.app_settings = self.app_settings, new
        try:
            save_settings(new)
        except OSError as err:
            self.report_error("Cannot save the settings", str(err))
        if (old.k, old.planner_time_limit_s) != (new.k, new.planner_time_limit_s):
            self.drafts.set_evaluator(Evaluator(new.evaluation_options()))
        self.drafts.models.n_threads = new.threads
        self._apply_settings_to_widgets()
        if new.model and new.model != old.model:
            self.add_model_file(new.model)
        elif not new.model and old.model:
            self.model_selector.select_default()
        if new.preload_model and new.threads != old.threads and new.model == old.model:
            self.model_status.preload(self.current_model(), self.current_prompt_text())   # reload with them
        # (another model file: selecting it in the toolbar above starts its load)
        self.show_status("Settings saved")

    def _apply_settings_to_widgets(self) -> None:
        s = self.app_settings
        self.grammar_check.blockSignals(True)
        self.grammar_check.setChecked(s.grammar)
        self.grammar_check.blockSignals(False)
        self.description_panel.set_description_class(DescriptionClass(s.default_class))
        self.description_panel.seed_spin.setValue(s.seed)

    def _on_grammar_toggled(self, checked: bool) -> None:
        if checked != self.app_settings.grammar:
            self.app_settings = replace(self.app_settings, grammar=checked)
            try:
                save_settings(self.app_settings)
            except OSError:
                pass   # the toolbar still applies it to this session

    def _on_model_failed(self, message: str, setting: str, advice: str) -> None:
        """The model did not load: why, and which setting to change; everything else stays usable."""
        if self._closing:
            return
        self.last_error = message
        self.show_status("The model did not load: " + (message.splitlines()[0] if message else ""))
        box = QMessageBox(QMessageBox.Icon.Warning, "Cannot load the model", f"{message}\n\n{advice}",
                          QMessageBox.StandardButton.Close, self)
        box.setObjectName("modelErrorBox")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        settings_button = box.addButton("Open Settings…", QMessageBox.ButtonRole.ActionRole)
        settings_button.clicked.connect(lambda: self.show_settings(setting))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.error_reported.emit(message)
