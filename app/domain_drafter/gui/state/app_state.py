"""The desktop app's one state: what is loaded, selected, set and running, with typed change signals.

Its data is plain Python (the domains on offer, the current `Target`: domain / action / class / seed,
the AppSettings, the models on offer and the one in use, which jobs run); windows and dialogs
receive the `AppState` (and through it the shared model library and evaluator) explicitly, read it,
and write to it through its setters. It is the one source of truth: each change signal carries the
new value, views subscribe to it (the domain list, the model selector, the panels), and a widget
that writes to it shows the value back under a QSignalBlocker, so the echo never loops. Every
engine option is built here from the one settings object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.errors import DrafterError, UsageError
from domain_drafter.core.prompt import Prompt, PromptTemplate, build_prompt, default_template_path, load_template
from domain_drafter.core.tests_files import tests_file_of
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.gui.state.settings import AppSettings, save_settings
from domain_drafter.gui.state.workers import JobKind, TaskRunner
from domain_drafter.llm.model_library import ModelLibrary
from domain_drafter.llm.models import ModelEntry
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator


@dataclass(frozen=True, eq=False)
class Target:
    """What is being drafted: the domain and action, and the description class and seed of its prompt."""

    bundle: DomainBundle | None
    action: str
    description_class: DescriptionClass
    seed: int

    @property
    def key(self) -> tuple[str, str] | None:
        """(the domain's path, the action), or None when no action is selected."""
        return (str(self.bundle.path), self.action) if self.bundle is not None and self.action else None


class AppState(QObject):
    settings_changed = Signal(object)       # the new AppSettings
    settings_save_failed = Signal(object)   # the OSError of a save that did not reach the disk
    bundles_changed = Signal(object)        # the new tuple of bundled DomainBundles (the prompts' example pool)
    domains_changed = Signal(object)        # the new tuple of DomainBundles on offer (the domain list)
    target_changed = Signal(object)         # the new Target (domain, action, class or seed changed)
    model_changed = Signal(object)          # the ModelEntry chosen for new jobs (or None)
    model_entries_changed = Signal(object)  # the new tuple of ModelEntries on offer (the model selector)
    running_changed = Signal(bool)          # whether any tracked job runs now
    tests_changed = Signal(object, object)  # a domain's folder and its tests file now: a case was saved into it
    dismissals_changed = Signal(object, str, object)   # a domain's folder, an action, its dismissed finding keys now

    def __init__(self, settings: AppSettings | None = None, *, models: ModelLibrary | None = None,
                 evaluator: Evaluator | None = None, settings_file: Path | None = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.settings = settings or AppSettings()
        self.settings_file = settings_file          # None: the user's config folder
        self.models = models or ModelLibrary(n_threads=self.settings.threads,
                                             prompt_format=self.settings.prompt_format)
        self.bundles: tuple[DomainBundle, ...] = ()   # the bundled domains: the prompts' example pool
        self.opened: tuple[DomainBundle, ...] = ()    # domains opened from a folder (not drawn as examples)
        self.target = Target(None, "", DescriptionClass(self.settings.default_class), self.settings.seed)
        self.model: ModelEntry | None = None
        self.model_entries: tuple[ModelEntry, ...] = ()   # the models on offer (the toolbar's list)
        self._evaluator = evaluator or Evaluator(self.settings.evaluation_options())
        self._retired: list[Evaluator] = []         # still possibly used by a running job: closed at the end
        self._runners: dict[TaskRunner, str] = {}
        self._template: tuple[tuple[Path, int], PromptTemplate] | None = None
        self._described: tuple[DomainBundle, str | None] | None = None   # the last bundle checked, and why not

    # --- settings ----------------------------------------------------------------------------
    def update_settings(self, new: AppSettings, *, save: bool = True) -> bool:
        """Use `new` from now on (new jobs) and save it; False (and settings_save_failed) if the save failed."""
        old, self.settings = self.settings, new
        self.models.n_threads = new.threads
        self.models.prompt_format = new.prompt_format
        if old.evaluation_options() != new.evaluation_options():
            self._retired.append(self._evaluator)
            self._evaluator = Evaluator(new.evaluation_options())
        self.settings_changed.emit(new)
        if not save:
            return True
        try:
            save_settings(new, self.settings_file)
        except OSError as err:
            self.settings_save_failed.emit(err)
            return False
        return True

    def set_grammar(self, grammar: bool) -> bool:
        if grammar == self.settings.grammar:
            return True
        return self.update_settings(replace(self.settings, grammar=grammar))

    # --- what the engine gets ----------------------------------------------------------------
    def draft_options(self) -> DraftOptions:
        """The settings, with the description class and seed chosen now."""
        return self.settings.draft_options(self.description_class, self.seed)

    def evaluation_options(self) -> EvaluationOptions:
        return self.settings.evaluation_options()

    def prompt_template(self) -> PromptTemplate:
        """The prompt template, read again only when its file changed (warm-ups ask for it often)."""
        path = default_template_path()
        try:
            stamp = (path, path.stat().st_mtime_ns)
        except OSError:
            stamp = (path, 0)
        if self._template is None or self._template[0] != stamp:
            self._template = (stamp, load_template(path))
        return self._template[1]

    def prompt(self) -> Prompt:
        """The prompt Generate sends for the current target (raises DrafterError if there is none)."""
        options = self.draft_options()
        if self.bundle is None or not self.action:
            raise UsageError("no action is selected", hint="pick a domain and an action")
        return build_prompt(self.bundle, self.action, self.bundles, options.description_class, options.seed,
                            options.examples, self.prompt_template())

    @property
    def evaluator(self) -> Evaluator:
        """The evaluator for the current settings (thread-safe; shared by every window)."""
        return self._evaluator

    # --- selection ---------------------------------------------------------------------------
    def set_bundles(self, bundles: Sequence[DomainBundle]) -> None:
        self.bundles = tuple(bundles)
        self.bundles_changed.emit(self.bundles)
        self.domains_changed.emit(self.domains)

    @property
    def domains(self) -> tuple[DomainBundle, ...]:
        """The domains on offer: the bundled ones (one opened again from the same file in its place), then
        the opened ones."""
        opened = {b.path: b for b in self.opened}
        bundled = tuple(opened.pop(b.path, b) for b in self.bundles)
        return bundled + tuple(opened.values())

    def add_domain(self, bundle: DomainBundle) -> None:
        """A domain opened from a folder joins the ones on offer, in place of one read from the same file."""
        if any(b.path == bundle.path for b in self.opened):
            self.opened = tuple(bundle if b.path == bundle.path else b for b in self.opened)
        else:
            self.opened += (bundle,)
        self.domains_changed.emit(self.domains)

    @property
    def bundle(self) -> DomainBundle | None:
        return self.target.bundle

    @property
    def action(self) -> str:
        return self.target.action

    @property
    def description_class(self) -> DescriptionClass:
        return self.target.description_class

    @property
    def seed(self) -> int:
        return self.target.seed

    def set_target(self, bundle: DomainBundle | None, action: str) -> None:
        if (bundle, action) != (self.bundle, self.action):
            self.target = replace(self.target, bundle=bundle, action=action)
            self.target_changed.emit(self.target)

    def generate_blocker(self) -> str | None:
        """Why no prompt can be built for the current domain (it has no descriptions, or they do not fit it), with
        what to do; None when it can (or nothing is selected). Checked once per domain."""
        bundle = self.bundle
        if bundle is None:
            return None
        if self._described is None or self._described[0] is not bundle:
            try:
                bundle.require_descriptions()
                self._described = (bundle, None)
            except DrafterError as err:
                folder = bundle.folder
                self._described = (bundle, f"{bundle.name} cannot be prompted yet: {err.what}. Describe it first: "
                                           "Authoring > Draft this domain… (Descriptions tab, then save), or "
                                           f"domain-drafter describe {folder} --out {folder / 'descriptions.toml'}")
        return self._described[1]

    def set_description(self, description_class: DescriptionClass, seed: int) -> None:
        if (description_class, seed) != (self.description_class, self.seed):
            self.target = replace(self.target, description_class=description_class, seed=seed)
            self.target_changed.emit(self.target)

    def remember_model(self, entry: ModelEntry | None) -> bool:
        """The model chosen in the toolbar is the Model file setting too ("" for the default model): one
        setting, whichever way it is changed. False if the save failed."""
        path = "" if entry is None or entry.source == "default" else str(entry.path)
        if entry is None or path == self.settings.model:
            return True
        return self.update_settings(replace(self.settings, model=path))

    def set_model_entries(self, entries: Sequence[ModelEntry]) -> None:
        """The models on offer (the one in use stays on offer)."""
        listed = tuple(entries)
        if self.model is not None and all(e.path != self.model.path for e in listed):
            listed += (self.model,)
        self._show_model_entries(listed)

    def add_model_entries(self, entries: Sequence[ModelEntry]) -> None:
        """Models that join the ones on offer (a file already offered stays as it is)."""
        paths = {e.path for e in self.model_entries}
        self._show_model_entries(self.model_entries + tuple(e for e in entries if e.path not in paths))

    def _show_model_entries(self, entries: tuple[ModelEntry, ...]) -> None:
        if entries != self.model_entries:
            self.model_entries = entries
            self.model_entries_changed.emit(entries)

    def model_for_file(self, path: str | Path) -> ModelEntry:
        """The model on offer that is the file at `path`, or a new entry for it (not yet on offer)."""
        path = Path(path).expanduser()
        for entry in self.model_entries:
            if entry.path == path:
                return entry
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        return ModelEntry(name=path.stem, path=path, size=size, source="path")

    def default_model(self) -> ModelEntry | None:
        return next((e for e in self.model_entries if e.source == "default"), None)

    def set_model(self, entry: ModelEntry | None) -> None:
        if entry is not None and all(e.path != entry.path for e in self.model_entries):
            self._show_model_entries((*self.model_entries, entry))
        if entry != self.model:
            self.model = entry
            self.model_changed.emit(entry)

    @property
    def has_target(self) -> bool:
        return self.bundle is not None and bool(self.action)

    # --- domain tests ------------------------------------------------------------------------
    def tests_file(self, bundle: DomainBundle) -> Path:
        """The one tests file of `bundle`'s domain that every window reads (for a bundled domain, the user's
        copy's once a case was kept there)."""
        return tests_file_of(bundle)

    def tests_saved(self, bundle: DomainBundle, path: Path) -> None:
        """A case was saved into `path` for `bundle`'s domain: every window showing its tests reads it now."""
        self.tests_changed.emit(bundle.folder, path)

    def dismissals_saved(self, bundle: DomainBundle, action: str, keys: frozenset[str]) -> None:
        """The author dismissed (or restored) an invariant finding of `action`: `keys` are its dismissals now."""
        self.dismissals_changed.emit(bundle.folder, action, keys)

    # --- running jobs ------------------------------------------------------------------------
    def track(self, runner: TaskRunner, owner: str) -> None:
        """Count `runner`'s jobs as `owner`'s in `running()`."""
        self._runners[runner] = owner
        runner.busy_changed.connect(lambda _busy: self.running_changed.emit(self.running()))
        runner.destroyed.connect(lambda *_: self._runners.pop(runner, None))

    def running(self, owner: str | None = None, kind: JobKind | None = None) -> bool:
        for runner, who in list(self._runners.items()):
            if owner is not None and who != owner:
                continue
            if any(kind is None or w.kind is kind for w in runner.active):
                return True
        return False

    def close(self) -> None:
        """At the app's end, once its jobs are over: release the models and the caches."""
        self.models.close()
        for evaluator in (*self._retired, self._evaluator):
            evaluator.close()
        self._retired.clear()
