"""The main window's Draft N candidates and Draft until proven (kept out of window.py): the shared
controller (gui/panels/candidates_controller.py) with the main window's part.

The answers appear in a dock as they are judged and are ranked at the end; picking one puts its
answer into the editor and its verdict into the result panel, without judging it again. A search
that proves an answer puts it into the editor at once.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow

from domain_drafter.drafting.candidates import Candidate
from domain_drafter.gui.main.draft_controller import DraftController
from domain_drafter.gui.main.model_status import ModelStatus
from domain_drafter.gui.panels.answer_panel import AnswerPanel
from domain_drafter.gui.panels.candidates_controller import (
    CandidatesController,
    CandidatesHost,
    CandidatesOutcome,
    DraftTarget,
)
from domain_drafter.gui.panels.candidates_panel import candidate_badge
from domain_drafter.gui.panels.result_panel import ResultPanel
from domain_drafter.gui.state.app_state import Target


class MainWindowParts(CandidatesHost, Protocol):
    """The main window's panels and steps that its part of the controller uses."""

    answer_panel: AnswerPanel
    result_panel: ResultPanel
    drafts: DraftController
    model_status: ModelStatus
    closing: bool

    def show_status(self, text: str) -> None: ...


class MainCandidates(CandidatesController):
    """Draft N and Draft until proven in the main window: the toolbar's actions, the dock, picking. `dock_area` is
    the main window that holds the dock (the same window, seen as a QMainWindow)."""

    def __init__(self, window: MainWindowParts, action: QAction, dock_area: QMainWindow,
                 search: QAction | None = None):
        super().__init__(window, dock_area)
        self.window = window
        self.action = action
        self.search_action = search
        self.dock = QDockWidget("Candidates", dock_area)
        self.dock.setObjectName("candidatesDock")
        self.dock.setWidget(self.panel)
        dock_area.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.target: tuple[str, str] | None = None   # the Target.key the listed candidates are for
        self.action.triggered.connect(self.draft)
        window.state.target_changed.connect(self._on_target_changed)   # a slot of this object: ends with it
        state = window.state

        def can_draft() -> bool:
            return state.has_target and not state.generate_blocker()

        self.enable(self.action, can_draft)
        if search is not None:
            search.triggered.connect(self.search)
            self.enable(search, can_draft)
        window.enabling.refresh()

    def draft_target(self) -> DraftTarget | None:
        state = self.window.state
        entry = state.model
        if not state.has_target or entry is None or self.window.runner.busy:
            return None
        assert state.bundle is not None
        models = state.models
        self.target = state.target.key
        return DraftTarget(state.action, state.bundle, lambda task: models.acquire(entry, task), state.draft_options(),
                           list(state.bundles), what=f"{state.bundle.name} / {state.action}")

    def reveal(self, note: str) -> None:
        self.dock.show()
        self.window.result_panel.show_working(note)

    def finished(self, outcome: CandidatesOutcome, title: str) -> None:
        window = self.window
        if window.closing:
            return
        if outcome.stopped is not None and outcome.ranked:
            self.pick(outcome.ranked[0], ended=True)   # the best answer into the editor at once, with its verdict
        else:
            window.result_panel.clear("Pick an answer in the list to put it into the editor." if outcome.stopped is not None
                                      else "Pick a candidate in the list to put it into the editor.")
        window.show_status(title)
        if window.state.model is not None:
            window.model_status.model_used(window.state.model.name)

    def pick(self, candidate: Candidate, *, ended: bool = False) -> None:
        """The candidate's answer into the editor and its verdict into the result panel (already judged).
        `ended`: from the job's own end, when the window's runner still counts it."""
        window = self.window
        state = window.state
        if (window.runner.busy and not ended) or state.bundle is None or self.target != state.target.key:
            window.show_status("Wait for the candidates to be ranked" if window.runner.busy
                               else "These candidates were drafted for another action")
            return
        window.answer_panel.set_text(candidate.answer)
        window.answer_panel.clear_findings()
        if candidate.evaluation is not None:
            window.drafts.show_result(candidate.evaluation)
        else:
            window.result_panel.show_unjudged(candidate_badge(candidate), f"{candidate.verdict}: {candidate.message}")
            window.answer_panel.show_findings(candidate.check.findings, candidate.answer)
        window.show_status(f"Candidate #{candidate.rank} in the editor: {candidate.verdict}")

    def _on_target_changed(self, target: Target) -> None:
        if self.target is not None and self.target != target.key:
            self.panel.start("Candidates (Draft N candidates drafts them for the selected action)")
            self.target = None
