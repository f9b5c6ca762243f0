"""Benchmark > Run benchmark… in a main window: the Benchmark dialog, made on first use and kept."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction

from domain_drafter.gui.dialogs.bench_dialog import BenchmarkDialog
from domain_drafter.gui.state.app_state import AppState


def install_benchmark_menu(window, state: AppState) -> QAction:
    """Add Benchmark > Run benchmark… to a main window; the dialog is created on first use."""
    menu = window.menuBar().addMenu("&Benchmark")
    window.benchmark_dialog = None

    def show() -> None:
        dialog = window.benchmark_dialog
        if dialog is None:
            entries = state.model_entries or tuple(_registry_models())
            models = [(e.name, str(e.path) if e.source != "default" else "default") for e in entries]
            domains = [b.name for b in state.bundles] or _bundled_names()
            dialog = window.benchmark_dialog = BenchmarkDialog(models, domains, window, settings=state.settings)
            state.track(dialog.runner, "benchmark")   # the authoring window offers no quick fix while it runs
            QCoreApplication.instance().aboutToQuit.connect(dialog.shutdown)   # a run stops with the app
        elif not dialog.running:
            dialog.set_settings(state.settings)   # Settings changed since: the next run uses them
        dialog.show()
        dialog.raise_()

    action = menu.addAction("Run benchmark…", show)
    window.benchmark_action = action
    return action


def _registry_models() -> list:
    """Before the window listed its models: ask the registry."""
    from domain_drafter.llm.models import list_models

    return list_models()


def _bundled_names() -> list[str]:
    from domain_drafter.core.bundle import bundled_names

    return bundled_names()
