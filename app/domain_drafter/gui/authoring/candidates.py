"""The authoring window's Draft N: N candidates for the selected action, judged and ranked, in a Candidates tab.

A reference action is judged against the reference; a new action (no reference) gets the checks
against the working copy's vocabulary, whether the problems stay solvable, and agreement
(drafting/candidates.py). The job runs through the window's own runner (Stop cancels the batch);
the picked candidate becomes an attempt of the action, recorded here on the GUI thread, and its
text goes into the editor (Accept keeps it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTabWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.candidates import Candidate, CandidateOptions, draft_candidates
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.new_action import provisional_bundle
from domain_drafter.drafting.options import SearchOptions
from domain_drafter.drafting.search import node_candidate, ranked_nodes, search_action
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.jobs import LeaseSource
from domain_drafter.gui.editor.code_editor import CodeEditor
from domain_drafter.gui.panels.candidates_panel import CandidatesPanel, ranked_title
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.enabling import EnablingTable
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.planning.evaluate import Evaluator


class CandidatesHost(Protocol):
    """What the Candidates tab uses of its authoring window, named here so that it never imports the window
    that builds it (gui/authoring/window.py): the window's state, widgets and job, and four of its steps."""

    state: AppState
    workspace: WorkingCopy
    runner: TaskRunner
    enabling: EnablingTable
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
    def start_job(self, worker: TaskWorker, on_finished: Callable[[object], None]) -> TaskWorker | None: ...


def authoring_candidates_job(lease: LeaseSource, bundle: DomainBundle, name: str, reference: bool,
                             evaluator: Evaluator, pool: Sequence[DomainBundle], options: DraftOptions,
                             candidates: CandidateOptions, template: PromptTemplate | None, *,
                             task: TaskState, on_yield: Callable[[Candidate], None]) -> tuple[list[Candidate], str]:
    """The ranked candidates and the model's name (plain data; the bundle was taken on the GUI thread); each
    candidate is yielded as it is judged."""
    with lease(task) as held:
        ranked = draft_candidates(bundle, name, held.backend, evaluator, pool, options, candidates.n,
                                  sampled=candidates.sampled, temperature=candidates.temperature,
                                  reference=reference, template=template, on_candidate=on_yield, task=task)
        return ranked, held.backend.name


def authoring_search_job(lease: LeaseSource, bundle: DomainBundle, name: str, reference: bool, evaluator: Evaluator,
                         pool: Sequence[DomainBundle], options: DraftOptions, search: SearchOptions,
                         template: PromptTemplate | None, *, task: TaskState,
                         on_yield: Callable[[Candidate], None]) -> tuple[list[Candidate], str]:
    """Draft until proven: every answer of the search, best first, and the model's name (plain data)."""
    with lease(task) as held:
        result = search_action(bundle, name, held.backend, evaluator, pool, options, search, template=template,
                               reference=reference, on_node=lambda node: on_yield(node_candidate(node)),
                               task=task)
        return ranked_nodes(result), held.backend.name


class AuthoringCandidates(QObject):
    """Draft N beside Draft: the button's job, the Candidates tab, picking into an attempt."""

    picked_result = Signal(object, str)   # the picked candidate's EvaluationResult (None without a reference), action

    def __init__(self, window: CandidatesHost, parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        self.panel = CandidatesPanel()
        window.tabs.addTab(self.panel, "Candidates")
        self.panel.hint.setText("Click a candidate to record it as an attempt and put it into the editor "
                                "(Accept keeps it).")
        self.name: str | None = None       # the action the listed candidates are for
        self.model = ""
        self.options = DraftOptions()
        self.panel.picked.connect(self.pick)
        window.draft_n_button.setToolTip("Draft N candidates of the selected action in one batch, judged and "
                                         "ranked (N: Settings); pick one to record it as an attempt")
        window.draft_n_button.clicked.connect(self.draft)

        def entry_selected() -> bool:
            name = window.selected()
            return name is not None and name in window.workspace.entries

        def can_draft() -> bool:
            return not window.runner.busy and window.state.model is not None and entry_selected()

        window.enabling.add(window.draft_n_button, can_draft)
        # Draft until proven, beside Draft N in the same row of buttons
        self.search_button = QPushButton("Until proven")
        self.search_button.setObjectName("draftUntilProven")
        self.search_button.setToolTip("Draft until proven: re-prompt with each answer's feedback until one is proven "
                                      "Equivalent (or, with no reference, passes the checks, the problems and the "
                                      "domain's tests), at most the Settings' search budget of model calls")
        row = window.button_row
        row.insertWidget(row.indexOf(window.draft_n_button) + 1, self.search_button)
        self.search_button.clicked.connect(self.search)
        window.enabling.add(self.search_button, can_draft)

    def _prepared(self) -> tuple[str, LeaseSource, DomainBundle, bool, DraftOptions] | None:
        """The selected action, the model's lease, the bundle to draft in, whether it has a reference, the options."""
        window = self.window
        name, lease = window.selected(), window.lease_source()
        if name is None or lease is None or window.runner.busy:
            return None
        options = window.state.draft_options()
        new = window.workspace.entry(name).new is not None
        if new:   # no reference: the vocabulary with the new action's placeholder, base descriptions
            bundle = provisional_bundle(window.workspace)
            options = dataclasses.replace(options, description_class=DescriptionClass.BASE)
        else:
            bundle = window.workspace.reference_bundle()
        self.options = options
        return name, lease, bundle, not new, options

    def search(self) -> TaskWorker | None:
        """Draft until proven for the selected action; its answers fill the Candidates tab as they are judged."""
        prepared = self._prepared()
        if prepared is None:
            return None
        window, (name, lease, bundle, reference, options) = self.window, prepared
        state = window.state
        search = state.settings.search_options()
        worker = TaskWorker(authoring_search_job, lease, bundle, name, reference, state.evaluator, window.bundle_pool(),
                            options, search, state.prompt_template(), kind=JobKind.DRAFT, yields=True)
        worker.signals.yielded.connect(self.panel.add)
        self.name = name
        self.panel.start(f"Drafting {name} until proven (at most {search.budget} model calls)…")
        window.tabs.setCurrentWidget(self.panel)
        return window.start_job(worker, self._on_ranked)

    def draft(self) -> TaskWorker | None:
        prepared = self._prepared()
        if prepared is None:
            return None
        window, (name, lease, bundle, reference, options) = self.window, prepared
        new = not reference
        state = window.state
        counts = state.settings.candidate_options()
        worker = TaskWorker(authoring_candidates_job, lease, bundle, name, not new, state.evaluator,
                            window.bundle_pool(), options, counts, state.prompt_template(), kind=JobKind.DRAFT,
                            yields=True)
        worker.signals.yielded.connect(self.panel.add)
        self.name = name
        self.panel.start(f"Drafting {counts.n} candidates for {name}…")
        window.tabs.setCurrentWidget(self.panel)
        return window.start_job(worker, self._on_ranked)

    def _on_ranked(self, result: tuple[list[Candidate], str]) -> None:
        ranked, self.model = result
        title = ranked_title(ranked, self.name or "the action")
        self.panel.set_ranked(ranked, title)
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
