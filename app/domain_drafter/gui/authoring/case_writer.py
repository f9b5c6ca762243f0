"""New cases of a domain's tests file, from the New case form or from what a window shows, saved in a worker.

Shared by the authoring window's Tests tab and the main window's verdict (Keep as test, Must never happen…).
A case is a `[cases.NAME]` table; `save_case` appends it in a worker of the owner's runner
(tests_jobs.save_case_job: the whole file checked against the owner's domain by the real reader, then
written atomically into the writable tests file, for a bundled domain the user's copy's). The status line
says where it went; a mistake is shown as the reader reports it (file:line), with the form kept open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import CaseKind, DomainTests
from domain_drafter.core.model import Domain
from domain_drafter.core.user_domains import is_bundled
from domain_drafter.gui.authoring.case_form import NewCaseDialog
from domain_drafter.gui.authoring.tests_jobs import save_case_job
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker


class CaseHost(Protocol):
    """What the writer asks of its owner: the domain the cases are for, its tests as last read, the status line."""

    def tests_target(self) -> tuple[DomainBundle, Domain] | None: ...   # whose tests file, checked against what
    def known_tests(self) -> DomainTests | None: ...                    # names taken, inline problems to offer
    def say(self, text: str) -> None: ...


def saved_text(path: Path, bundle: DomainBundle) -> str:
    """`Case saved to PATH.`, and for a bundled domain that PATH is the user's copy of it (the path last, so that
    a status line too narrow for it all keeps its start and its file name)."""
    if is_bundled(bundle.folder):
        return (f"Case saved to your copy of {bundle.name} (the bundled domain stays as shipped; its tests are "
                f"read from the copy from now on): {path}")
    return f"Case saved to {path}."


class CaseWriter(QObject):
    """Asks for, names and saves new cases of one owner's domain; `saved` once a case is in the file."""

    saved = Signal(object)   # the Path written

    def __init__(self, host: CaseHost, runner: TaskRunner, dialog_parent: QWidget, parent: QObject | None = None,
                 *, state: AppState | None = None):
        super().__init__(parent)
        self.host = host
        self.state = state   # told of every case saved, so that every window reads the same tests file
        self.runner = runner
        self.dialog_parent = dialog_parent
        self.dialog: NewCaseDialog | None = None
        self._closed = False

    @property
    def case_names(self) -> tuple[str, ...]:
        """The names of the domain's cases as last read (a new case takes another)."""
        known = self.host.known_tests()
        return known.names if known is not None else ()

    def ask_new_case(self, kind: CaseKind | None = None, name: str = "", problem: str = "",
                     fields: dict[str, object] | None = None) -> NewCaseDialog | None:
        """The New case form, filled in with what is given (the author edits it before it is saved)."""
        target = self.host.tests_target()
        if target is None or self._closed:
            return None
        problems = [p.name for p in target[0].problems]
        if (known := self.host.known_tests()) is not None:
            problems = list(dict.fromkeys([*known.inline_problems, *problems]))
        self.dialog = dialog = NewCaseDialog(problems, self.dialog_parent)
        dialog.name.setText(name)
        if kind is not None:
            dialog.set_kind(kind)
        if problem:
            dialog.problem.setCurrentText(problem)
        for key, value in (fields or {}).items():
            dialog.set_field(key, value)
        dialog.fit_texts()
        dialog.accepted.connect(self._on_form)
        dialog.open()
        return dialog

    def _on_form(self) -> None:
        dialog = self.dialog
        if dialog is None:
            return
        if not dialog.name.text().strip():
            dialog.error.setText("A case needs a name.")
            dialog.open()
            return
        self.save_case(dialog.table(), dialog)

    def save_case(self, table: str, dialog: NewCaseDialog | None = None) -> TaskWorker | None:
        """Append `table` to the writable tests file (checked first), in a worker of the owner's runner."""
        target = self.host.tests_target()
        if target is None or self._closed:
            return None
        bundle, domain = target
        worker = TaskWorker(save_case_job, bundle, domain, table, kind=JobKind.SAVE_CASE)
        worker.signals.finished.connect(lambda path: self._on_saved(path, bundle))
        worker.signals.failed.connect(lambda err: self._not_saved(err, dialog))
        return self.runner.start(worker)

    def _on_saved(self, path: Path, bundle: DomainBundle) -> None:
        if self._closed:
            return
        self.host.say(saved_text(path, bundle))
        self.saved.emit(path)
        if self.state is not None:
            self.state.tests_saved(bundle, path)

    def _not_saved(self, error: BaseException, dialog: NewCaseDialog | None) -> None:
        if self._closed:
            return
        text = f"Not saved: {describe_error(error).text}"
        self.host.say(text)
        if dialog is not None:
            dialog.error.setText(text)
            dialog.open()

    def close(self) -> None:
        """No more forms or saves (the owner shuts its runner down)."""
        self._closed = True
