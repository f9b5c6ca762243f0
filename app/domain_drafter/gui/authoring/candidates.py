"""The authoring window's Draft N and Draft until proven: the shared controller
(gui/panels/candidates_controller.py) with this window's part, a Candidates tab.

A reference action is judged against the reference; a new action (no reference) gets the checks
against the working copy's vocabulary, whether the problems stay solvable, and agreement
(drafting/candidates.py). The picked candidate becomes an attempt of the action, recorded here on
the GUI thread, and its text goes into the editor (Accept keeps it).
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTabWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.drafting.candidates import Candidate
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.new_action import provisional_bundle
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.editor.code_editor import CodeEditor
from domain_drafter.gui.panels.candidates_controller import (
    CandidatesController,
    CandidatesHost,
    CandidatesOutcome,
    DraftTarget,
)
from domain_drafter.gui.state.workers import JobKind
from domain_drafter.llm.model_library import LeaseSource


class AuthoringWindowParts(CandidatesHost, Protocol):
    """The authoring window's widgets and steps that its part of the controller uses."""

    workspace: WorkingCopy
    tabs: QTabWidget
    draft_n_button: QPushButton
    button_row: QHBoxLayout
    editor: CodeEditor

    def selected(self) -> str | None: ...
    def select(self, name: str) -> None: ...
    def say(self, text: str) -> None: ...
    def after_change(self, name: str) -> None: ...
    def lease_source(self) -> LeaseSource | None: ...
    def bundle_pool(self) -> list[DomainBundle]: ...


class AuthoringCandidates(CandidatesController):
    """Draft N and Until proven beside Draft: the buttons, the Candidates tab, picking into an attempt."""

    kind = JobKind.DRAFT
    picked_result = Signal(object, str)   # the picked candidate's EvaluationResult (None without a reference), action

    def __init__(self, window: AuthoringWindowParts, parent: QObject | None = None):
        super().__init__(window, parent)
        self.window = window
        window.tabs.addTab(self.panel, "Candidates")
        self.panel.hint.setText("Click a candidate to record it as an attempt and put it into the editor "
                                "(Accept keeps it).")
        self.name: str | None = None       # the action the listed candidates are for
        self.model = ""
        self.options = DraftOptions()
        window.draft_n_button.setToolTip("Draft N candidates of the selected action in one batch, judged and "
                                         "ranked (N: Settings); pick one to record it as an attempt")
        window.draft_n_button.clicked.connect(self.draft)

        def entry_selected() -> bool:
            name = window.selected()
            return name is not None and name in window.workspace.entries

        self.enable(window.draft_n_button, entry_selected)
        # Draft until proven, beside Draft N in the same row of buttons
        self.search_button = QPushButton("Until proven")
        self.search_button.setObjectName("draftUntilProven")
        self.search_button.setToolTip("Draft until proven: re-prompt with each answer's feedback until one is proven "
                                      "Equivalent (or, with no reference, passes the checks, the problems and the "
                                      "domain's tests), at most the Settings' search budget of model calls")
        row = window.button_row
        row.insertWidget(row.indexOf(window.draft_n_button) + 1, self.search_button)
        self.search_button.clicked.connect(self.search)
        self.enable(self.search_button, entry_selected)

    def draft_target(self) -> DraftTarget | None:
        """The selected action in the bundle to draft it in: the reference, or for a new action the vocabulary with
        its placeholder (base descriptions, no reference)."""
        window = self.window
        name, lease = window.selected(), window.lease_source()
        if name is None or lease is None or window.runner.busy:
            return None
        options = window.state.draft_options()
        new = window.workspace.entry(name).new is not None
        if new:
            bundle = provisional_bundle(window.workspace)
            options = dataclasses.replace(options, description_class=DescriptionClass.BASE)
        else:
            bundle = window.workspace.reference_bundle()
        self.options, self.name = options, name
        return DraftTarget(name, bundle, lease, options, window.bundle_pool(), reference=not new, what=name)

    def reveal(self, note: str) -> None:
        self.window.tabs.setCurrentWidget(self.panel)

    def finished(self, outcome: CandidatesOutcome, title: str) -> None:
        self.model = outcome.model
        self.window.say(f"{title}. Pick one to record it as an attempt.")

    def pick(self, candidate: Candidate) -> None:
        """Record the candidate as an attempt of its action (GUI thread) and put it into the editor."""
        window, name = self.window, self.name
        if window.runner.busy or name is None or name not in window.workspace.entries:
            window.say("Wait for the candidates to be ranked." if window.runner.busy else "No candidates to pick.")
            return
        subclass = candidate.subclass
        options = {"class": self.options.description_class.value, "seed": candidate.seed,
                   "grammar": self.options.grammar, "candidate": candidate.index + 1, "sampled": candidate.sampled}
        attempt = window.workspace.add_attempt(name, candidate.answer, source="model", model=self.model or None,
                                               options=options, subclass=subclass.value if subclass else None,
                                               message=candidate.message)
        if window.selected() != name:
            window.select(name)
        window.after_change(name)
        window.editor.setPlainText(candidate.answer)
        self.picked_result.emit(candidate.evaluation, name)
        window.say(f"{name}: candidate #{candidate.rank} recorded as attempt {attempt.number} ({candidate.verdict}).")
