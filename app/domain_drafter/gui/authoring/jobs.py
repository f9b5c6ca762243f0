"""What the authoring window's workers run: plain functions (no Qt), each taking the worker's `task`.

They get plain data taken on the GUI thread (bundles, domains, a detached copy of the working copy)
and return data; they never change the window's working copy, which only the GUI thread does.

Also the parser for typed parameters as a person types them in the New action dialog.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle, save_domain_file
from domain_drafter.core.errors import UsageError
from domain_drafter.core.model import Domain, TypedName
from domain_drafter.core.prompt import Prompt, PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.judges import checks_judge
from domain_drafter.drafting.loop import DraftOptions, draft_action
from domain_drafter.drafting.new_action import NewActionAnswer, TryReport, try_action, write_new_action
from domain_drafter.drafting.whole_domain import ActionOutcome, DomainDraft, draft_domain
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.llm.model_library import LeaseSource
from domain_drafter.planning.domain_compare import DomainComparison
from domain_drafter.planning.evaluate import Evaluator
from domain_drafter.planning.kstar import KStarPlanner


def parse_parameters(text: str) -> tuple[TypedName, ...]:
    """`?obj - ball ?from ?to - room` -> typed parameters (untyped ones are `object`)."""
    out: list[TypedName] = []
    pending: list[str] = []
    words = text.replace("(", " ").replace(")", " ").split()
    i = 0
    while i < len(words):
        word = words[i].lower()
        if word == "-":
            if i + 1 >= len(words) or not pending:
                raise UsageError(f"a '-' needs variables before it and a type after it: {text!r}")
            out.extend(TypedName(p, words[i + 1].lower()) for p in pending)
            pending, i = [], i + 2
            continue
        if not re.fullmatch(r"\?[a-z][\w-]*", word):
            raise UsageError(f"'{words[i]}' is no parameter; write them as ?name - type")
        pending.append(word)
        i += 1
    out.extend(TypedName(p) for p in pending)
    return tuple(out)


def detached_copy(workspace: WorkingCopy) -> WorkingCopy:
    """A copy a worker may read while the GUI thread goes on changing the original (which it never touches).

    Cheap: the parsed reference, the bundle and the descriptions are immutable and shared; only the
    per-action entries (the mutable part) are copied. The copy never saves by itself.
    """
    clone = copy.copy(workspace)
    clone.entries = {name: dataclasses.replace(entry, attempts=list(entry.attempts))
                     for name, entry in workspace.entries.items()}
    clone.on_change = None
    clone.folder = None
    return clone


def draft_all_job(lease: LeaseSource, bundle: DomainBundle, evaluator: Evaluator, pool: Sequence[DomainBundle],
                  options: DraftOptions, template: PromptTemplate | None, *, task: TaskState,
                  on_yield: Callable[[tuple[ActionOutcome, str]], None]) -> DomainDraft:
    """Draft every action of `bundle`; each outcome is yielded with the model's name (the GUI thread records it)."""
    with lease(task) as held:
        backend = held.backend
        return draft_domain(bundle, backend, evaluator, pool, options, template=template,
                            on_action=lambda outcome: on_yield((outcome, backend.name)), task=task)


def draft_one_job(lease: LeaseSource, bundle: DomainBundle, name: str, evaluator: Evaluator,
                  pool: Sequence[DomainBundle], options: DraftOptions, template: PromptTemplate | None, *,
                  task: TaskState) -> tuple[ActionOutcome, str]:
    """One reference action's draft (every round), with the model's name; recorded by the GUI thread."""
    with lease(task) as held:
        draft = draft_action(bundle, name, held.backend, evaluator, pool, options, template=template, task=task)
        return ActionOutcome(name, draft), held.backend.name


def new_action_job(lease: LeaseSource, prompt: Prompt, bundle: DomainBundle, name: str, options: DraftOptions,
                   evaluator: Evaluator, template: PromptTemplate | None, *, task: TaskState) -> NewActionAnswer:
    """Ask the model for a new action and judge it on the problems and the domain's tests, re-asking with the
    failing cases while some fail (prompt and the provisional bundle, whose domain is the vocabulary, taken on
    the GUI thread); never touches the copy. The GUI thread records every round
    (drafting.new_action.record_new_action)."""
    judge = checks_judge(bundle, name, evaluator, task)
    with lease(task) as held:
        return write_new_action(prompt, bundle, name, held.backend, options, judge=judge, template=template,
                                task=task)


def try_job(workspace: WorkingCopy, name: str, planner: KStarPlanner, text: str, *, task: TaskState) -> TryReport:
    """Try it on a detached copy of the working copy."""
    return try_action(workspace, name, planner, text=text, task=task)


def autosave_job(workspace: WorkingCopy, folder: Path, *, task: TaskState) -> Path:
    """Write a detached copy as a bundle folder (and the tests file it had, into a folder without one): its
    texts are computed here, off the GUI thread. The copy is bound there; the GUI binds the original on `done`."""
    return workspace.save(folder)


def export_job(path: Path, workspace: WorkingCopy, *, task: TaskState) -> Path:
    return save_domain_file(path, workspace.domain_text())   # read back before the rename (issue 43)


def judge_job(bundle: DomainBundle, working: Domain, evaluator: Evaluator, *, task: TaskState) -> DomainComparison:
    """The working copy as it stood (accepted actions, the reference's elsewhere) against the reference, with the
    Settings' options (the Evaluator's: equivalence mode, state budget, proof time limit)."""
    return evaluator.compare(bundle, working, task=task)
