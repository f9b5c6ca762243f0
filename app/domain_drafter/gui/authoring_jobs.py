"""What the authoring window's workers run: plain functions (no Qt), each taking the worker's `task`.

Also the parser for typed parameters as a person types them in the New action dialog.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.errors import UsageError
from domain_drafter.core.model import TypedName
from domain_drafter.core.paths import atomic_write_bytes
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.loop import DraftOptions, draft_action
from domain_drafter.drafting.new_action import draft_new_action
from domain_drafter.drafting.whole_domain import ActionOutcome, DomainDraft, draft_domain
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.llm.backend import GenerationBackend
from domain_drafter.planning.domain_compare import DomainComparison, compare_domains
from domain_drafter.planning.evaluate import Evaluator

BackendSource = Callable[[TaskState], GenerationBackend]
"""Loads (or returns the loaded) model, in a worker; the main window passes its model holder's."""


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


def draft_all_job(source: BackendSource, workspace: WorkingCopy, evaluator: Evaluator, options: DraftOptions,
               on_action: Callable[[tuple[ActionOutcome, str]], None], *, task: TaskState) -> DomainDraft:
    backend = source(task)
    return draft_domain(workspace.reference_bundle(), backend, evaluator, load_bundled(), options,
                        on_action=lambda outcome: on_action((outcome, backend.name)), task=task)


def draft_one_job(source: BackendSource, workspace: WorkingCopy, name: str, evaluator: Evaluator, options: DraftOptions,
               *, task: TaskState):
    backend = source(task)
    if workspace.entry(name).new is not None:
        return draft_new_action(workspace, name, backend, load_bundled(), options, task=task)   # records it
    draft = draft_action(workspace.reference_bundle(), name, backend, evaluator, load_bundled(), options, task=task)
    return ActionOutcome(name, draft), backend.name


def write_job(folder: Path, files: list[tuple[str, bytes]], *, task: TaskState) -> Path:
    WorkingCopy.write(folder, files)
    return folder


def export_job(path: Path, data: bytes, *, task: TaskState) -> Path:
    atomic_write_bytes(path, data)
    return path


def judge_job(workspace: WorkingCopy, evaluator: Evaluator, *, task: TaskState) -> DomainComparison:
    """The working copy as it stands (accepted actions, the reference's elsewhere) against the reference."""
    reference = workspace.reference_bundle()
    return compare_domains(reference, workspace.working_domain(), evaluator.planner, evaluator.plan_cache, task=task)
