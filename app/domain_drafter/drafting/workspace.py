"""The working copy of a domain being drafted: per action its reference, its attempts, the accepted one.

It saves as a bundle folder the loader reads back (`domain.pddl`, `problems/`,
`descriptions.toml`) plus `history.json` beside them, which holds the reference domain, every
attempt and what was accepted. Every file is written atomically, and a working copy that has
a folder saves after each change (accept, revert, new attempt, edit), so a crash loses at
most the change being made. `history.json` is written first: it is the source of truth.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from domain_drafter.core.answers import CheckReport, check_answer
from domain_drafter.core.bundle import (
    DESCRIPTIONS_FILE,
    DOMAIN_FILE,
    PROBLEMS_DIR,
    DomainBundle,
    ProblemFile,
    load_bundle_path,
    refusing_save,
)
from domain_drafter.core.bundle import read_back as read_bundle_back
from domain_drafter.core.descriptions import Descriptions, PredicateText, placeholders
from domain_drafter.core.domain_tests import TESTS_FILE
from domain_drafter.core.errors import DomainError, SourceLocation, UsageError
from domain_drafter.core.model import ActionSchema, Domain
from domain_drafter.core.paths import atomic_write_bytes, atomic_write_files
from domain_drafter.core.reader import read_domain
from domain_drafter.core.scaffold import descriptions_toml, scaffold
from domain_drafter.core.tests_files import tests_file_of
from domain_drafter.drafting.history import (
    FORMAT,
    HISTORY_FILE,
    ActionEntry,
    Attempt,
    NewActionSpec,
    now_iso,
    read_history,
)

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class WorkingCopy:
    """A domain being drafted. Build with `from_bundle` or `open`; save with `save`."""

    def __init__(self, bundle: DomainBundle, reference_text: str, entries: list[ActionEntry],
                 folder: Path | None = None, origin: str = ""):
        self.bundle = bundle
        self.reference_text = reference_text
        self.reference, self._parsed = read_domain(reference_text, None)
        self.entries: dict[str, ActionEntry] = {e.name: e for e in entries}
        self.descriptions: Descriptions | None = bundle.descriptions
        self._descriptions_edited = False
        self.folder = folder
        self.origin = origin or str(bundle.folder)
        self.dirty = False
        self.on_change: Callable[[], None] | None = None   # instead of saving at once after a change
        path = bundle.descriptions.path if bundle.descriptions is not None else None
        self._descriptions_source = path.read_text(encoding="utf-8") if path is not None and path.is_file() else None

    @property
    def folder(self) -> Path | None:
        """The folder the working copy saves into, or None before its first save."""
        return self._folder

    @folder.setter
    def folder(self, folder: Path | None) -> None:
        # bound to a folder, the bundle is that folder's: its tests file is the one read and written there
        self._folder = Path(folder) if folder is not None else None
        if self._folder is not None and self.bundle.folder != self._folder:
            self.bundle = rebased(self.bundle, self._folder)

    # ------------------------------------------------------------ building

    @classmethod
    def from_bundle(cls, bundle: DomainBundle) -> WorkingCopy:
        """A fresh working copy of `bundle` (not yet bound to a folder: `save(folder)` binds it)."""
        entries = [ActionEntry(a.name, a) for a in bundle.domain.actions]
        return cls(bundle, bundle.domain_text, entries, None, bundle.name)

    @classmethod
    def open(cls, folder: Path) -> WorkingCopy:
        """Reopen a saved working copy; without history.json, the folder's domain is the reference."""
        folder = Path(folder)
        bundle = load_bundle_path(folder)
        path = folder / HISTORY_FILE
        if not path.is_file():
            copy = cls.from_bundle(bundle)
            copy.folder = folder
            return copy
        data = read_history(path)
        try:
            reference_text = data["reference_domain"]
            entries = []
            reference, _ = read_domain(reference_text, path)
            for item in data["actions"]:
                name = item["name"]
                new = NewActionSpec.from_dict(item["new"]) if item.get("new") else None
                entries.append(ActionEntry(name, reference.action_map.get(name),
                                           [Attempt.from_dict(a) for a in item.get("attempts", [])],
                                           item.get("accepted"), item.get("accepted_from"), new,
                                           item.get("scratch")))
        except (KeyError, TypeError, ValueError) as exc:
            raise DomainError(f"not a working-copy history: missing or wrong {exc}", where=path,
                              hint=f"move {HISTORY_FILE} away to open the folder as a plain bundle") from None
        copy = cls(bundle, reference_text, entries, folder, str(data.get("origin", "")))
        copy.bundle = dataclasses.replace(bundle, domain=reference, domain_text=reference_text)
        return copy

    # ------------------------------------------------------------ reading

    @property
    def name(self) -> str:
        return self.bundle.name

    @property
    def problems(self) -> tuple[ProblemFile, ...]:
        return self.bundle.problems

    def entry(self, name: str) -> ActionEntry:
        entry = self.entries.get(name.lower())
        if entry is None:
            raise UsageError(f"the working copy has no action '{name}'", hint="actions: " + ", ".join(self.entries))
        return entry

    def accepted_action(self, name: str) -> ActionSchema | None:
        entry = self.entry(name)
        if entry.accepted is None:
            return None
        report = check_answer(entry.accepted, self.vocabulary(), entry.name)
        return report.action

    def vocabulary(self) -> Domain:
        """The reference's predicates, types and constants, with a placeholder for every new action."""
        extra = tuple(e.new.placeholder for e in self.entries.values() if e.new is not None)
        return dataclasses.replace(self.reference, actions=self.reference.actions + extra)

    def working_domain(self) -> Domain:
        """Accepted actions, the reference's where nothing was accepted; new actions once accepted."""
        actions = []
        for entry in self.entries.values():
            accepted = self.accepted_action(entry.name)
            if accepted is not None:
                actions.append(accepted)
            elif entry.reference is not None:
                actions.append(entry.reference)
        return dataclasses.replace(self.reference, actions=tuple(actions))

    def reference_bundle(self) -> DomainBundle:
        """The reference with the working copy's problems and (possibly edited) descriptions."""
        return dataclasses.replace(self.bundle, domain=self.reference, domain_text=self.reference_text,
                                   descriptions=self.descriptions)

    def domain_text(self) -> str:
        """domain.pddl of the working domain; untouched parts keep the reference's text, comments and layout."""
        text = self.reference_text
        spans = {p.name: p.span for p in self._parsed}
        replaced: list[tuple[tuple[int, int], str]] = []
        added: list[str] = []
        for entry in self.entries.values():
            if entry.accepted is None:
                continue
            candidate = check_answer(entry.accepted, self.vocabulary(), entry.name).candidate or entry.accepted
            if entry.name in spans:
                replaced.append((spans[entry.name], candidate))
            else:
                added.append(candidate)
        for (start, end), new in sorted(replaced, reverse=True):
            text = text[:start] + new + text[end:]
        if added:
            close = text.rstrip().rfind(")")
            text = text[:close] + "".join(f"  {a}\n" for a in added) + text[close:]
        try:  # keep the layout only if it reads back as exactly the working domain
            if read_domain(text, None)[0] == self.working_domain():
                return text
        except DomainError:
            pass
        return self.working_domain().to_pddl()

    # ------------------------------------------------------------ changing

    def add_attempt(self, name: str, text: str, *, source: str = "hand", model: str | None = None,
                    options: dict | None = None, subclass: str | None = None, message: str = "") -> Attempt:
        """Record an answer (a model's, or a hand edit) with its verdict."""
        entry = self.entry(name)
        attempt = Attempt(len(entry.attempts) + 1, text, source, now_iso(), subclass, message, model,
                          dict(options or {}))
        entry.attempts.append(attempt)
        self._changed()
        return attempt

    def check(self, name: str, text: str) -> CheckReport:
        """The syntax and semantic checks of `text` as action `name`, in the domain it would be saved into:
        the working domain, the other accepted actions in place (issue 43: a predicate another accepted
        action changes is a fluent there)."""
        entry = self.entry(name)
        pending = tuple(e.new.placeholder for e in self.entries.values() if e.new is not None and e.accepted is None)
        working = self.working_domain()
        return check_answer(text, dataclasses.replace(working, actions=working.actions + pending), entry.name)

    def accept(self, name: str, text: str | None = None, *, attempt: int | None = None) -> ActionSchema:
        """Keep `text` (or attempt number `attempt`) as the action; it must pass the checks."""
        entry = self.entry(name)
        if text is None:
            if attempt is None or not 1 <= attempt <= len(entry.attempts):
                raise UsageError(f"action '{entry.name}' has no attempt {attempt}",
                                 hint=f"attempts: 1..{len(entry.attempts)}")
            text = entry.attempts[attempt - 1].text
        report = self.check(entry.name, text)
        if not report.passed:
            finding = report.findings[0]
            raise DomainError(f"cannot accept this '{entry.name}': {finding.subclass.value}: {finding.message}",
                              where=SourceLocation.from_offset(text, finding.span[0]))
        candidate, action = report.candidate or text, report.action
        assert action is not None
        if entry.reference is not None and len(action.parameters) == len(entry.reference.parameters) \
                and action.parameter_names != entry.reference.parameter_names:
            # the summary's placeholders are the reference's parameter names: rename by position
            renamed = rename_variables(candidate, dict(zip(action.parameter_names, entry.reference.parameter_names)))
            again = self.check(entry.name, renamed)
            if again.passed and again.action is not None:
                candidate, action = again.candidate or renamed, again.action
        entry.accepted = candidate
        entry.accepted_from = attempt
        entry.scratch = None
        self._changed()
        return action

    def set_scratch(self, name: str, text: str | None) -> None:
        """Keep the text being edited for `name` (None: nothing pending), so a crash does not lose it."""
        entry = self.entry(name)
        if entry.scratch != text:
            entry.scratch = text
            self._changed()

    def revert(self, name: str) -> None:
        """Back to the reference action (a new action back to no definition)."""
        entry = self.entry(name)
        entry.accepted, entry.accepted_from, entry.scratch = None, None, None
        self._changed()

    def add_action(self, spec: NewActionSpec) -> ActionEntry:
        """Add an action the reference does not have; its summary goes into the descriptions."""
        name = spec.name.lower()
        if not _NAME.match(name):
            raise UsageError(f"'{spec.name}' is not a PDDL name", hint="letters, digits, '-' and '_', "
                                                                       "starting with a letter")
        if name in self.entries:
            raise UsageError(f"the domain already has an action '{name}'")
        seen = set()
        for p in spec.parameters:
            if not p.name.startswith("?") or p.name in seen:
                raise UsageError(f"parameter '{p.name}' of '{name}' must start with '?' and be unique")
            seen.add(p.name)
            if p.type != "object" and p.type not in self.reference.types:
                raise UsageError(f"parameter {p.name} has type '{p.type}', which the domain does not declare",
                                 hint="types: " + ", ".join(sorted(self.reference.types.declared)))
        spec = dataclasses.replace(spec, name=name)
        summary = " ".join(s.strip() for s in (spec.summary, spec.conditions, spec.effects) if s.strip())
        self._check_placeholders(f"[actions.{name}] summary", summary, {p.name.lstrip("?") for p in spec.parameters})
        entry = ActionEntry(name, None, new=spec)
        self.entries[name] = entry
        descriptions = self.descriptions or scaffold(self.reference, self.reference_text)
        self.descriptions = dataclasses.replace(descriptions, actions={**descriptions.actions, name: summary})
        self._descriptions_edited = True
        self._changed()
        return entry

    def set_predicate_text(self, name: str, text: str, negated: str | None = None) -> None:
        """Edit a predicate's sentence; its placeholders must be the predicate's variables."""
        signature = self.reference.predicate_map.get(name.lower())
        if signature is None:
            raise UsageError(f"the domain has no predicate '{name}'")
        variables = {p.name.lstrip("?") for p in signature.parameters}
        negated = negated if negated is not None else f"it is not the case that {text}"
        for label, template in (("text", text), ("negated", negated)):
            self._check_placeholders(f"[predicates.{signature.name}] {label}", template, variables)
        descriptions = self.descriptions or scaffold(self.reference, self.reference_text)
        self.descriptions = dataclasses.replace(
            descriptions, predicates={**descriptions.predicates, signature.name: PredicateText(text, negated)})
        self._descriptions_edited = True
        self._changed()

    def set_action_summary(self, name: str, summary: str) -> None:
        """Edit an action's one-line summary; its placeholders must be the action's parameters."""
        entry = self.entry(name)
        action = entry.reference or (entry.new.placeholder if entry.new else None)
        assert action is not None
        self._check_placeholders(f"[actions.{entry.name}] summary", summary,
                                 {p.lstrip("?") for p in action.parameter_names})
        descriptions = self.descriptions or scaffold(self.reference, self.reference_text)
        self.descriptions = dataclasses.replace(descriptions, actions={**descriptions.actions, entry.name: summary})
        self._descriptions_edited = True
        self._changed()

    @staticmethod
    def _check_placeholders(label: str, template: str, variables: set[str]) -> None:
        unknown = placeholders(template) - variables
        if unknown:
            raise UsageError(f"{label} uses {', '.join('{' + u + '}' for u in sorted(unknown))}, which is no variable",
                             hint="variables: " + (", ".join("{" + v + "}" for v in sorted(variables)) or "none"))

    def _changed(self) -> None:
        self.dirty = True
        if self.on_change is not None:
            self.on_change()      # the GUI saves from a worker, off its own thread
        elif self.folder is not None:
            self.save()

    # ------------------------------------------------------------ saving

    def history(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "domain": self.name, "origin": self.origin, "saved_at": now_iso(),
            "reference_domain": self.reference_text,
            "actions": [{"name": e.name, "new": e.new.to_dict() if e.new else None, "accepted": e.accepted,
                         "accepted_from": e.accepted_from, "scratch": e.scratch,
                         "attempts": [a.to_dict() for a in e.attempts]}
                        for e in self.entries.values()],
        }

    def snapshot(self) -> list[tuple[str, bytes]]:
        """Every file of the bundle folder as (path in the folder, bytes), history first."""
        files = [(HISTORY_FILE, json.dumps(self.history(), indent=1).encode("utf-8")),
                 (DOMAIN_FILE, self.domain_text().encode("utf-8"))]
        files += [(f"{PROBLEMS_DIR}/{p.path.name}", p.text.encode("utf-8")) for p in self.problems]
        if self.descriptions is not None:
            files.append((DESCRIPTIONS_FILE, self._descriptions_text().encode("utf-8")))
        return files

    @staticmethod
    def write(folder: Path, files: list[tuple[str, bytes]]) -> None:
        """Put a snapshot on disk; unchanged files are left alone. Every file is written beside its place
        and the folder is read back as `open` reads it before any file is renamed into place: a folder
        that would not reopen is a DomainError saying why, and the old files stay (issue 43)."""
        (folder / PROBLEMS_DIR).mkdir(parents=True, exist_ok=True)
        changed = [(folder / name, data) for name, data in files
                   if name in (HISTORY_FILE, DOMAIN_FILE) or not (folder / name).is_file()
                   or (folder / name).read_bytes() != data]

        def read_back(staged: dict[Path, Path]) -> None:
            with refusing_save(f"the folder {folder}"):
                read_bundle_back(folder, folder / DOMAIN_FILE, staged)
                if folder / HISTORY_FILE in staged:
                    read_history(staged[folder / HISTORY_FILE])

        atomic_write_files(changed, read_back)

    def save(self, folder: Path | None = None) -> Path:
        """Write the bundle folder (and bind the working copy to it); history first, then the domain."""
        folder = Path(folder) if folder is not None else self.folder
        if folder is None:
            raise UsageError("this working copy has no folder yet", hint="save it into a folder first")
        self.write(folder, self.snapshot())
        carry_tests(self.bundle, folder)
        self.folder = folder
        self.dirty = False
        return folder

    def _descriptions_text(self) -> str:
        assert self.descriptions is not None
        if not self._descriptions_edited and self._descriptions_source is not None:
            return self._descriptions_source  # unchanged: keep the author's comments
        return descriptions_toml(self.descriptions, self.working_domain())


def rebased(bundle: DomainBundle, folder: Path) -> DomainBundle:
    """`bundle` as saved into `folder` (where `snapshot` puts its files)."""
    problems = tuple(dataclasses.replace(p, path=folder / PROBLEMS_DIR / p.path.name) for p in bundle.problems)
    return dataclasses.replace(bundle, path=folder / DOMAIN_FILE, problems=problems)


def carry_tests(bundle: DomainBundle, folder: Path) -> None:
    """Copy the domain's tests file into `folder` when it has none yet; never over the one there (the Tests
    panel writes that file itself, so an older copy of it must not overwrite a case just saved)."""
    source, target = tests_file_of(bundle), folder / TESTS_FILE
    if source.is_file() and not target.exists():   # (so never the same file as the source)
        atomic_write_bytes(target, source.read_bytes())


def rename_variables(text: str, mapping: dict[str, str]) -> str:
    """Rename `?variables` in PDDL text in one pass (so swaps work), keeping everything else as written."""
    lowered = {k.lower(): v for k, v in mapping.items()}
    return re.sub(r"\?[A-Za-z][\w-]*", lambda m: lowered.get(m.group(0).lower(), m.group(0)), text)
