"""Draft N candidates and Draft until proven, for either window: the jobs, their outcome, and the controller.

Each window says what to draft (`DraftTarget`: the action, the bundle to draft in, the model's
lease, the options, the pool of context examples), where the list shows (a dock, a tab) and what
picking does (into the editor and the result panel; an attempt of the working copy). The rest is
here, once: the enabling rows, the job (run by the window's runner, so Stop cancels it), the answers
filling the list as they are judged (drafting/candidates.py, drafting/search.py), and the ranked
list with its title at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.candidates import (
    Candidate,
    CandidateOptions,
    draft_candidates,
    node_candidate,
    ranked_nodes,
)
from domain_drafter.drafting.options import DraftOptions, SearchOptions
from domain_drafter.drafting.records import Stopped
from domain_drafter.drafting.search import search_action
from domain_drafter.gui.panels.candidates_panel import CandidatesPanel, candidate_badge, ranked_title
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.enabling import EnablingTable
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.llm.model_library import LeaseSource
from domain_drafter.planning.evaluate import Evaluator


@dataclass(frozen=True)
class DraftTarget:
    """What one job drafts, taken on the GUI thread (plain data for the worker)."""

    action: str
    bundle: DomainBundle
    lease: LeaseSource
    options: DraftOptions
    pool: Sequence[DomainBundle]
    reference: bool | None = None     # None: judged against the bundle's action where it has one
    what: str = ""                    # how the titles name it ("gripper / drop")


@dataclass(frozen=True)
class CandidatesOutcome:
    """What a job hands back: every answer best first, the model's name, and for a search why it stopped."""

    ranked: list[Candidate]
    model: str
    stopped: Stopped | None = None    # None: Draft N (no search)
    calls: int = 0
    equivalent_at: int | None = None
    error: str | None = None

    def title(self, what: str) -> str:
        if self.stopped is None:
            return ranked_title(self.ranked, what)
        if self.equivalent_at is not None:
            return f"Proven Equivalent at model call {self.equivalent_at} for {what}"
        why = {Stopped.BUDGET: "the budget is spent", Stopped.CANCELLED: "stopped",
               Stopped.ERROR: f"the model failed: {self.error}", Stopped.TOKENS: "the token budget is spent",
               Stopped.TIME: "the time budget is spent",
               Stopped.EXHAUSTED: "no answer is left to expand"}.get(self.stopped, str(self.stopped))
        best = candidate_badge(self.ranked[0])[0] if self.ranked else "no answer"
        return f"Not proven after {self.calls} model calls for {what} ({why}); best so far: {best}"


def candidates_job(target: DraftTarget, evaluator: Evaluator, candidates: CandidateOptions,
                   template: PromptTemplate | None, *, task: TaskState,
                   on_yield: Callable[[Candidate], None]) -> CandidatesOutcome:
    """Draft N (no Qt: runs in a worker): the model leased, N answers drafted and judged (each yielded as it is),
    ranked best first."""
    with target.lease(task) as held:
        ranked = draft_candidates(target.bundle, target.action, held.backend, evaluator, target.pool, target.options,
                                  candidates.n, sampled=candidates.sampled, temperature=candidates.temperature,
                                  reference=target.reference, template=template, on_candidate=on_yield, task=task)
        return CandidatesOutcome(ranked, held.backend.name)


def search_job(target: DraftTarget, evaluator: Evaluator, search: SearchOptions, template: PromptTemplate | None,
               *, task: TaskState, on_yield: Callable[[Candidate], None]) -> CandidatesOutcome:
    """Draft until proven (no Qt: runs in a worker): the search, each answer yielded as a Candidate as it is judged."""
    with target.lease(task) as held:
        result = search_action(target.bundle, target.action, held.backend, evaluator, target.pool, target.options,
                               search, template=template, reference=target.reference,
                               on_node=lambda node: on_yield(node_candidate(node)), task=task)
        return CandidatesOutcome(ranked_nodes(result), held.backend.name, result.stopped, result.calls,
                                 result.equivalent_at, result.error)


class CandidatesHost(Protocol):
    """What the controller uses of its window (named here so that it never imports a window): the state, the
    one job runner, the enabling table, and starting a job (falsy when it cannot start)."""

    state: AppState
    runner: TaskRunner
    enabling: EnablingTable

    def start_job(self, worker: TaskWorker, on_finished: Callable[[object], None]) -> object: ...


class CandidatesController(QObject):
    """Draft N and Draft until proven in one window; the window's part is `draft_target`, `reveal`, `finished`
    and `pick` (a subclass per window)."""

    kind = JobKind.GENERATE

    def __init__(self, host: CandidatesHost, parent: QObject | None = None):
        super().__init__(parent)
        self.host = host
        self.panel = CandidatesPanel()
        self.drafted: DraftTarget | None = None     # what the listed answers were drafted for
        self.panel.picked.connect(self.pick)

    def enable(self, control: QAction | QAbstractButton, can: Callable[[], bool] = lambda: True) -> None:
        """`control` is usable when no job runs, a model is chosen and `can()`."""
        host = self.host
        self.host.enabling.add(control, lambda: not host.runner.busy and host.state.model is not None and can())

    def draft(self) -> TaskWorker | None:
        """Draft N with the Settings' N and mode for the window's target; None if it cannot start now."""
        target = self.draft_target()
        if target is None:
            return None
        counts = self.host.state.settings.candidate_options()
        how = "sampled from one prompt" if counts.sampled else "one per prompt seed"
        return self._start(candidates_job, target, counts, f"Drafting {counts.n} candidates for {target.what} ({how})…",
                           f"Drafting {counts.n} candidates with {{model}}…")

    def search(self) -> TaskWorker | None:
        """Draft until proven with the Settings' search; its answers fill the list as they are judged."""
        target = self.draft_target()
        if target is None:
            return None
        search = self.host.state.settings.search_options()
        return self._start(search_job, target, search,
                           f"Drafting {target.what} until an answer is proven Equivalent (at most {search.budget} "
                           f"model calls, feedback: {search.feedback.value})…",
                           "Searching with {model}: each answer is judged, and the best is expanded with its "
                           "feedback…")

    def _start(self, job: Callable, target: DraftTarget, options: object, title: str,
               note: str) -> TaskWorker | None:
        state = self.host.state
        if self.host.runner.busy or state.model is None:
            return None
        worker = TaskWorker(job, target, state.evaluator, options, state.prompt_template(), kind=self.kind,
                            yields=True)
        worker.signals.yielded.connect(self.panel.add)    # each answer as it is judged, in the GUI thread
        self.drafted = target
        self.panel.start(title)
        self.reveal(note.format(model=state.model.name))
        if not self.host.start_job(worker, self._on_finished):
            return None
        return worker

    def _on_finished(self, outcome: CandidatesOutcome) -> None:
        what = self.drafted.what if self.drafted is not None else "the action"
        title = outcome.title(what)
        self.panel.set_ranked(outcome.ranked, title)
        self.finished(outcome, title)

    # --- the window's part ------------------------------------------------------------------
    def draft_target(self) -> DraftTarget | None:
        """What to draft now (None: nothing can be drafted now)."""
        raise NotImplementedError

    def reveal(self, note: str) -> None:
        """Show the list (and `note`, what the job does) as the job starts."""
        raise NotImplementedError

    def finished(self, outcome: CandidatesOutcome, title: str) -> None:
        """The list is ranked under `title`."""
        raise NotImplementedError

    def pick(self, candidate: Candidate) -> None:
        """The user picked `candidate` in the list."""
        raise NotImplementedError
