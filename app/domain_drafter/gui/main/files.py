"""The main window's prompt, domain and model files: Show prompt, Open domain folder (dialog, recent
list, drag and drop) and Open model file.

A mixin of MainWindow (kept apart so the window module stays about layout and jobs).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QDragEnterEvent, QDropEvent

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.errors import DrafterError
from domain_drafter.gui.dialogs.prompt_dialog import PromptDialog
from domain_drafter.gui.main.drops import dropped_domain
from domain_drafter.gui.state.folders import GGUF_FILTER, Purpose, file_dialog
from domain_drafter.gui.state.jobs import open_bundle
from domain_drafter.gui.state.workers import JobKind, TaskWorker
from domain_drafter.llm.models import ModelEntry


class WindowFilesMixin:
    """Needs the MainWindow's state, panels, runner, window_state, start_job and report_exception."""

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
            self.domain_panel.add_bundle(bundle)
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

    def add_model_file(self, path: str | Path) -> ModelEntry:
        """Offer a GGUF file in the model selector and select it (new jobs use it)."""
        entry = self.model_selector.add_file(path)
        self.state.set_model(self.model_selector.current_entry())
        return entry
