"""The main window's Draft N candidates and File > Get a model… (kept out of window.py).

Draft N candidates runs as one job of the window (its runner, its progress bar, Stop cancels the
whole batch): N answers for the selected action drafted in one batch and judged with the
settings' options (drafting/candidates.py). The candidates appear in a dock as they are judged
and are ranked at the end; picking one puts its answer into the editor and its verdict into the
result panel, without judging it again.

File > Get a model… opens gui/dialogs/get_model_dialog.py; a model it installs joins the state's models on offer
(the model selector shows them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.candidates import Candidate, CandidateOptions, draft_candidates
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.options import SearchOptions
from domain_drafter.drafting.search import Stopped, node_candidate, ranked_nodes, search_action
from domain_drafter.gui.main.draft_controller import DraftController
from domain_drafter.gui.main.model_status import ModelStatus
from domain_drafter.gui.panels.answer_panel import AnswerPanel
from domain_drafter.gui.panels.candidates_panel import CandidatesPanel, candidate_badge, ranked_title
from domain_drafter.gui.panels.result_panel import ResultPanel
from domain_drafter.gui.state.app_state import AppState, Target
from domain_drafter.gui.state.enabling import EnablingTable
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.llm.model_library import ModelLibrary
from domain_drafter.llm.models import ModelEntry, list_models
from domain_drafter.planning.evaluate import Evaluator

if TYPE_CHECKING:
    from domain_drafter.gui.dialogs.get_model_dialog import GetModelDialog


class CandidatesHost(Protocol):
    """What Draft N candidates uses of the main window, named here so that it never imports the window that
    builds it (gui/main/window.py): the state, the job runner, the panels it fills, and two steps."""

    state: AppState
    runner: TaskRunner
    enabling: EnablingTable
    answer_panel: AnswerPanel
    result_panel: ResultPanel
    drafts: DraftController
    model_status: ModelStatus
    closing: bool

    def start_job(self, worker: TaskWorker, on_finished: Callable[[object], None] | None = None) -> bool: ...
    def show_status(self, text: str) -> None: ...


def search_job(models: ModelLibrary, entry: ModelEntry, bundle: DomainBundle, action: str, evaluator: Evaluator,
               pool: Sequence[DomainBundle], options: DraftOptions, search: SearchOptions,
               template: PromptTemplate | None, *, task: TaskState,
               on_yield: Callable[[Candidate], None]) -> SearchOutcome:
    """Draft until proven (no Qt: runs in a worker): the search, each answer yielded as a Candidate as it is judged."""
    with models.acquire(entry, task) as lease:
        result = search_action(bundle, action, lease.backend, evaluator, pool, options, search, template=template,
                               on_node=lambda node: on_yield(node_candidate(node)), task=task)
    return SearchOutcome(ranked_nodes(result), result.stopped, result.calls, result.equivalent_at, result.error)


@dataclass(frozen=True)
class SearchOutcome:
    """What Draft until proven hands back: every answer best first, and why the search stopped."""

    ranked: list[Candidate]
    stopped: Stopped
    calls: int
    equivalent_at: int | None
    error: str | None = None

    def title(self, what: str) -> str:
        if self.equivalent_at is not None:
            return f"Proven Equivalent at model call {self.equivalent_at} for {what}"
        why = {Stopped.BUDGET: "the budget is spent", Stopped.CANCELLED: "stopped",
               Stopped.ERROR: f"the model failed: {self.error}", Stopped.TOKENS: "the token budget is spent",
               Stopped.TIME: "the time budget is spent",
               Stopped.EXHAUSTED: "no answer is left to expand"}.get(self.stopped, str(self.stopped))
        best = candidate_badge(self.ranked[0])[0] if self.ranked else "no answer"
        return f"Not proven after {self.calls} model calls for {what} ({why}); best so far: {best}"


def candidates_job(models: ModelLibrary, entry: ModelEntry, bundle: DomainBundle, action: str, evaluator: Evaluator,
                   pool: Sequence[DomainBundle], options: DraftOptions, candidates: CandidateOptions,
                   template: PromptTemplate | None, *, task: TaskState,
                   on_yield: Callable[[Candidate], None]) -> list[Candidate]:
    """Load the model if needed (kept for this job), draft and judge the candidates (no Qt: runs in a worker);
    each candidate is yielded as it is judged."""
    with models.acquire(entry, task) as lease:
        return draft_candidates(bundle, action, lease.backend, evaluator, pool, options, candidates.n,
                                sampled=candidates.sampled, temperature=candidates.temperature,
                                template=template, on_candidate=on_yield, task=task)


class MainCandidates(QObject):
    """Draft N candidates in `window`: the action's enabling row, the job, the dock, picking. `dock_area` is
    the main window that holds the dock (the same window, seen as a QMainWindow)."""

    def __init__(self, window: CandidatesHost, action: QAction, dock_area: QMainWindow,
                 search: QAction | None = None):
        super().__init__(dock_area)
        self.window = window
        self.action = action
        self.search_action = search
        self.panel = CandidatesPanel()
        self.dock = QDockWidget("Candidates", dock_area)
        self.dock.setObjectName("candidatesDock")
        self.dock.setWidget(self.panel)
        dock_area.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.target: tuple[str, str] | None = None   # the Target.key the listed candidates are for
        self.action.triggered.connect(self.draft)
        self.panel.picked.connect(self.pick)
        window.state.target_changed.connect(self._on_target_changed)   # a slot of this object: ends with it
        state = window.state

        def can_draft() -> bool:
            return (not window.runner.busy and state.has_target and state.model is not None
                    and not state.generate_blocker())

        window.enabling.add(self.action, can_draft)
        if search is not None:
            search.triggered.connect(self.search)
            window.enabling.add(search, can_draft)
        window.enabling.refresh()

    def draft(self) -> TaskWorker | None:
        """Start the batch for the selected action with the settings' N and mode; None if it cannot start now."""
        state = self.window.state
        options = state.settings.candidate_options()
        how = "sampled from one prompt" if options.sampled else "one per prompt seed"
        return self._start(candidates_job, options, self._on_ranked,
                           f"Drafting {options.n} candidates for {{what}} ({how})…",
                           f"Drafting {options.n} candidates with {{model}}…")

    def search(self) -> TaskWorker | None:
        """Draft until proven: the search with the settings' budget; its answers fill the list as they are judged."""
        search = self.window.state.settings.search_options()
        return self._start(search_job, search, self._on_searched,
                           f"Drafting {{what}} until an answer is proven Equivalent (at most {search.budget} model "
                           f"calls, feedback: {search.feedback.value})…",
                           "Searching with {model}: each answer is judged, and the best is expanded with its "
                           "feedback…")

    def _start(self, job: Callable, options: object, on_finished: Callable, title: str, note: str) -> TaskWorker | None:
        """Run `job` (candidates_job or search_job) for the selected action; its answers fill the list as judged."""
        window, state = self.window, self.window.state
        entry = state.model
        if not state.has_target or entry is None or window.runner.busy:
            return None
        assert state.bundle is not None
        worker = TaskWorker(job, state.models, entry, state.bundle, state.action, state.evaluator,
                            list(state.bundles), state.draft_options(), options, state.prompt_template(),
                            kind=JobKind.GENERATE, yields=True)
        worker.signals.yielded.connect(self.panel.add)    # each candidate as it is judged, in the GUI thread
        worker.signals.finished.connect(on_finished)
        self.target = state.target.key
        self.panel.start(title.format(what=f"{state.bundle.name} / {state.action}"))
        self.dock.show()
        window.result_panel.show_working(note.format(model=entry.name))
        if not window.start_job(worker):   # the window's one job mechanism (its runner, progress, Stop)
            return None
        return worker

    def _on_searched(self, outcome: SearchOutcome) -> None:
        window = self.window
        if window.closing:
            return
        state = window.state
        what = f"{state.bundle.name} / {state.action}" if state.bundle is not None else "the action"
        title = outcome.title(what)
        self.panel.set_ranked(outcome.ranked, title)
        if outcome.ranked and outcome.equivalent_at is not None:
            self.pick(outcome.ranked[0])        # proven: the answer goes into the editor at once
        else:
            window.result_panel.clear("Pick an answer in the list to put it into the editor.")
        window.show_status(title)
        if state.model is not None:
            window.model_status.model_used(state.model.name)

    def _on_ranked(self, ranked: list[Candidate]) -> None:
        window = self.window
        if window.closing:
            return
        state = window.state
        what = f"{state.bundle.name} / {state.action}" if state.bundle is not None else "the action"
        title = ranked_title(ranked, what)
        self.panel.set_ranked(ranked, title)
        window.result_panel.clear("Pick a candidate in the list to put it into the editor.")
        window.show_status(title)
        if state.model is not None:
            window.model_status.model_used(state.model.name)

    def pick(self, candidate: Candidate) -> None:
        """The candidate's answer into the editor and its verdict into the result panel (already judged)."""
        window = self.window
        state = window.state
        if window.runner.busy or state.bundle is None or self.target != state.target.key:
            window.show_status("Wait for the candidates to be ranked" if window.runner.busy
                               else "These candidates were drafted for another action")
            return
        window.answer_panel.set_text(candidate.answer)
        window.answer_panel.clear_findings()
        if candidate.evaluation is not None:
            window.drafts.show_result(candidate.evaluation)
        else:
            window.result_panel.clear(f"{candidate.verdict}: {candidate.message}")
            window.answer_panel.show_findings(candidate.check.findings, candidate.answer)
        window.show_status(f"Candidate #{candidate.rank} in the editor: {candidate.verdict}")

    def _on_target_changed(self, target: Target) -> None:
        if self.target is not None and self.target != target.key:
            self.panel.start("Candidates (Draft N candidates drafts them for the selected action)")
            self.target = None


class GetModelMenu(QObject):
    """File > Get a model…: the catalogue dialog (one at a time); a model it installs joins the models on offer.
    Closing the window stops the dialog's download first (its part file stays for a resume)."""

    def __init__(self, window: QMainWindow, file_menu: QMenu, state: AppState,
                 show_status: Callable[[str], None]):
        super().__init__(window)
        self.window = window
        self.state = state
        self.show_status = show_status
        self.dialog: GetModelDialog | None = None
        self.action = file_menu.addAction("Get a model…", self.open)
        self.action.setStatusTip("Download a model from the catalogue, or check how fast one runs here")
        window.installEventFilter(self)

    def open(self) -> GetModelDialog:
        from domain_drafter.gui.dialogs.get_model_dialog import open_get_model_dialog

        if self.dialog is None or not self.dialog.isVisible():
            self.dialog = open_get_model_dialog(self.window)
            self.dialog.model_installed.connect(self._on_installed)
        else:
            self.dialog.raise_()
            self.dialog.activateWindow()
        return self.dialog

    def _on_installed(self, path: object) -> None:
        self.state.add_model_entries(list_models())   # new files join; the selection and opened files stay
        self.show_status(f"Installed {getattr(path, 'name', path)}: choose it in the model selector")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close and self.dialog is not None:
            self.dialog.shutdown()
        return False
