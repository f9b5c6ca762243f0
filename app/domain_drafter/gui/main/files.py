"""The main window's prompt, domain and model files: Show prompt, Open domain folder (dialog, recent
list, drag and drop) and Open model file.

A mixin of MainWindow (kept apart so the window module stays about layout and jobs).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QDragEnterEvent, QDropEvent

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.errors import DrafterError, ModelError
from domain_drafter.gui.dialogs.prompt_dialog import PromptDialog
from domain_drafter.gui.main.drops import dropped_domain
from domain_drafter.gui.state.folders import GGUF_FILTER, Purpose, file_dialog
from domain_drafter.gui.state.jobs import open_bundle
from domain_drafter.gui.state.workers import JobKind, TaskWorker
from domain_drafter.llm.gguf_check import inspect_gguf
from domain_drafter.llm.models import ModelEntry


class WindowFilesMixin:
    """Needs the MainWindow's state, panels, runner, window_state, model_status, _started, _warm_timer, start_job,
    current_prompt_text and report_exception."""

    prompt_dialog: PromptDialog | None = None

    def show_prompt(self) -> None:
        """The exact prompt Generate sends now (class, seed, examples and template as set)."""
        if not self.state.has_target:
            return
        try:
            prompt = self.state.prompt()
        except DrafterError as err:
            self.report_exception("Cannot build the prompt", err)
            return
        if self.prompt_dialog is None:
            self.prompt_dialog = PromptDialog(self)
        self.prompt_dialog.show_prompt(prompt)
        self.prompt_dialog.show()
        self.prompt_dialog.raise_()

    def open_domain_dialog(self) -> None:
        file_dialog(self, Purpose.DOMAIN, "Open domain folder", self.open_domain_folder, folder=True)

    def open_domain_folder(self, path: str | Path) -> None:
        """Load a domain folder (or domain.pddl) in a worker; errors are reported with file:line:col."""
        self.show_status(f"Opening {path}…")
        self.start_job(TaskWorker(open_bundle, str(path), kind=JobKind.OPEN), self._on_bundle_opened)

    def _on_bundle_opened(self, bundle: DomainBundle) -> None:
        if not self.closing:
            self.state.add_domain(bundle)   # the domain list follows the state; the opened domain is selected
            self.state.set_target(bundle, next(iter(bundle.action_names), ""))
            self.window_state.add_recent_domain(bundle.folder)
            opened = f"Opened {bundle.name} from {bundle.folder}"
            blocker = self.state.generate_blocker()   # said when the domain opens, not at the first Generate
            self.show_status(f"{opened}. {blocker}" if blocker else opened)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.window_state.recent_domains()
        for path in recent:
            self.recent_menu.addAction(path, lambda p=path: self.open_domain_folder(p))
        if recent:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear the list", self.window_state.clear_recent_domains)
        else:
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # --- drag and drop: a domain folder or a domain.pddl -----------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_domain(event.mimeData()) is not None and not self.runner.busy:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_domain(event.mimeData())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.open_domain_folder(path)

    # --- models ----------------------------------------------------------------------------
    def open_model_dialog(self) -> None:
        file_dialog(self, Purpose.MODEL, "Open model file", self.add_model_file, filters=GGUF_FILTER)

    def add_model_file(self, path: str | Path) -> ModelEntry | None:
        """Offer a GGUF file (the model selector shows it) and choose it (new jobs use it). A file whose header
        is not a GGUF model's is refused with what is wrong: not offered, not chosen, not saved in the settings."""
        try:
            inspect_gguf(Path(path).expanduser())
        except ModelError as err:
            self.report_exception("Not a model file", err)
            return None
        entry = self.state.model_for_file(path)
        self.choose_model(entry)
        return entry

    def choose_model(self, entry: ModelEntry | None) -> None:
        """The user's choice of model (toolbar, Open model file, Settings), written to the state: new jobs use it;
        after the start-up it is saved as the Model file setting and loaded in the background."""
        if entry == self.state.model:
            return
        self.state.set_model(entry)
        if self._started:
            self.state.remember_model(entry)
        if self._started and self.app_settings.preload_model and not self.closing:
            self._warm_timer.stop()
            self.model_status.preload(entry, self.current_prompt_text())
