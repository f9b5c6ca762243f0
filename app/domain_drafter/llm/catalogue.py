"""The model catalogue: GGUF models worth fetching for writing PDDL, with what each one costs.

The catalogue ships as resources/models.toml; a models.toml in the user's config folder is read
after it and may add models or change keys of listed ones (key by key, so `sha256 = "..."` alone
completes an entry). Every problem is a ModelError located at file:line (the line of the key, or
of the model's table when a key is missing). Nothing here downloads, loads or imports Qt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from domain_drafter.core.errors import DomainError, ModelError, SourceLocation, UsageError
from domain_drafter.core.paths import config_dir
from domain_drafter.core.toml_source import TomlSource, describe_value
from domain_drafter.llm.backend import PROMPT_FORMATS

HUB_ENDPOINT = "https://huggingface.co"
CATALOGUE_FILE = "models.toml"

# key -> accepted Python types (bool is checked apart: it is an int subclass)
_KEYS: dict[str, tuple[type, ...]] = {
    "title": (str,), "repo": (str,), "file": (str,), "revision": (str,), "quant": (str,),
    "size": (int,), "ram": (int,), "licence": (str,), "prompt_format": (str,), "sha256": (str,),
    "params_b": (int, float), "embedded": (bool,), "notes": (str,), "ram_measured": (bool,),
}
_REQUIRED = ("file", "quant", "size", "ram", "licence", "prompt_format")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
# What the RAM column means, said once for the CLI's table and the Get a model dialog; how each figure was
# found (measured or estimated, and how) is said at the top of resources/models.toml.
RAM_NOTE = ("RAM: memory the model takes when it runs with a 4,096-token context; ~ marks an estimate from "
            "the model's shape, the others were measured (how: the top of resources/models.toml)")


def gb_text(n: int) -> str:
    """Bytes as GB with one decimal, halves rounded up (1_650_000_000 is 1.7 GB, as a reader rounds it)."""
    tenths = (n + 50_000_000) // 100_000_000
    return f"{tenths // 10}.{tenths % 10} GB"


@dataclass(frozen=True)
class CatalogueModel:
    """One downloadable (or embedded) model. size and ram are bytes (ram measured or estimated, see
    ram_measured); sha256 is None when unknown."""

    name: str
    title: str
    repo: str | None
    file: str
    revision: str
    quant: str
    size: int
    ram: int
    licence: str
    prompt_format: str
    sha256: str | None = None
    params_b: float | None = None
    embedded: bool = False
    notes: str = ""
    ram_measured: bool = False
    where: SourceLocation | None = field(default=None, compare=False, repr=False)

    @property
    def file_name(self) -> str:
        """The name the file gets in the models folder (the repository path's last part)."""
        return self.file.rsplit("/", 1)[-1]

    @property
    def pinned(self) -> bool:
        """True when the revision is a commit id, so the file behind the URL can never change."""
        return bool(_COMMIT.fullmatch(self.revision))

    def url(self, endpoint: str | None = None) -> str:
        """The hub's download URL: {endpoint}/{repo}/resolve/{revision}/{file}."""
        if self.repo is None:
            return ""
        base = (endpoint or HUB_ENDPOINT).rstrip("/")
        return f"{base}/{self.repo}/resolve/{quote(self.revision, safe='')}/{quote(self.file)}"

    @property
    def ram_text(self) -> str:
        """The RAM column's cell: "0.4 GB" measured, "~1.7 GB" estimated (RAM_NOTE says what it counts)."""
        return gb_text(self.ram) if self.ram_measured else f"~{gb_text(self.ram)}"

    def page_url(self) -> str:
        return f"{HUB_ENDPOINT}/{self.repo}" if self.repo else ""


@dataclass(frozen=True)
class Catalogue:
    """The models of one or more catalogue files, in the order they were first listed."""

    models: tuple[CatalogueModel, ...]
    sources: tuple[Path, ...] = ()

    def __iter__(self) -> Iterator[CatalogueModel]:
        return iter(self.models)

    def __len__(self) -> int:
        return len(self.models)

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]

    def find(self, name: str) -> CatalogueModel | None:
        """The model called `name` (case-insensitive), or whose file is `name`; None if none is."""
        key = name.strip().lower()
        for model in self.models:
            if key in (model.name.lower(), model.file_name.lower(), Path(model.file_name).stem.lower()):
                return model
        return None

    def get(self, name: str) -> CatalogueModel:
        """Like find(), but a UsageError that lists the catalogue when there is no such model."""
        model = self.find(name)
        if model is None:
            raise UsageError(
                f"no model called '{name}' in the catalogue",
                hint=f"the catalogue has: {', '.join(self.names)} "
                f"(from {', '.join(str(p) for p in self.sources)}); add your own in {user_catalogue_path()}",
            )
        return model


def bundled_catalogue_path() -> Path:
    return Path(str(resources.files("domain_drafter.resources") / CATALOGUE_FILE))


def user_catalogue_path() -> Path:
    return config_dir() / CATALOGUE_FILE


def load_catalogue(paths: Sequence[Path] | None = None) -> Catalogue:
    """Read the catalogue: `paths` in order, or the bundled file then the user's (if it exists)."""
    if paths is None:
        paths = [bundled_catalogue_path()]
        if user_catalogue_path().is_file():
            paths.append(user_catalogue_path())
    tables: dict[str, dict[str, tuple[Any, TomlSource]]] = {}
    headers: dict[str, TomlSource] = {}
    for path in paths:
        source = _read(Path(path))
        for key in source.data:
            if key != "models":
                raise _fail(source, f"unknown top-level key '{key}' (a catalogue holds only [models.\"NAME\"] tables)",
                            key)
        models = source.data.get("models", {})
        if not isinstance(models, dict):
            raise _fail(source, f"'models' must be tables ([models.\"NAME\"]), not {describe_value(models)}", "models")
        for name, table in models.items():
            if not isinstance(table, dict):
                raise _fail(source, f"models.{name} must be a table, not {describe_value(table)}", "models", name)
            if not _NAME.fullmatch(name):
                raise _fail(source, f"'{name}' is not a usable model name (letters, digits, '.', '_', '-')",
                            "models", name)
            merged = tables.setdefault(name, {})
            headers[name] = source
            for key, value in table.items():
                merged[key] = (value, source)
    models_out = tuple(_model(name, table, headers[name]) for name, table in tables.items())
    return Catalogue(models_out, tuple(Path(p) for p in paths))


class InstalledModel(Protocol):
    """What installed_path reads of an installed model: llm.models.ModelEntry, which imports this module
    (to resolve catalogue names), so the catalogue names only the two fields it needs."""

    @property
    def path(self) -> Path: ...
    @property
    def source(self) -> str: ...


def installed_path(model: CatalogueModel, entries: Iterable[InstalledModel]) -> Path | None:
    """Where `model` already is among `entries` (llm.models.list_models()), or None."""
    for entry in entries:
        if model.embedded and entry.source == "default":
            return entry.path
        if entry.path.name == model.file_name and entry.source != "default":
            return entry.path
    return None


# --- validation ---------------------------------------------------------------------------------
def _read(path: Path) -> TomlSource:
    if not path.is_file():
        raise ModelError("no such model catalogue file", where=path,
                         hint=f"the bundled catalogue is {bundled_catalogue_path()}")
    try:
        return TomlSource.read(path, "model catalogue")
    except DomainError as err:
        raise ModelError(err.what, where=err.where, hint=err.hint) from None


def _fail(source: TomlSource, what: str, *keys: str, hint: str | None = None) -> ModelError:
    return ModelError(what, where=source.where(*keys), hint=hint)


def _model(name: str, table: dict[str, tuple[Any, TomlSource]], header: TomlSource) -> CatalogueModel:
    def fail(what: str, key: str | None = None, hint: str | None = None) -> ModelError:
        source = table[key][1] if key in table else header
        return _fail(source, f"models.{name}: {what}", *(("models", name, key) if key else ("models", name)),
                     hint=hint)

    values: dict[str, Any] = {}
    for key, (value, _) in table.items():
        kinds = _KEYS.get(key)
        if kinds is None:
            raise fail(f"unknown key '{key}'", key, hint="valid keys: " + ", ".join(sorted(_KEYS)))
        if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
            wanted = " or ".join({str: "a string", int: "an integer", float: "a number", bool: "true or false"}[k]
                                 for k in kinds)
            raise fail(f"'{key}' must be {wanted}, not {describe_value(value)}", key)
        values[key] = value
    embedded = values.get("embedded", False)
    for key in _REQUIRED + (() if embedded else ("repo",)):
        if key not in values:
            raise fail(f"'{key}' is missing", hint="see the keys described at the top of the bundled models.toml")
    if "repo" in values and not _REPO.fullmatch(values["repo"]):
        raise fail(f"repo '{values['repo']}' is not of the form owner/name", "repo")
    file = values["file"]
    if not file.endswith(".gguf") or file.startswith("/") or ".." in file.split("/") or "\\" in file:
        raise fail(f"file '{file}' must be a .gguf path inside the repository", "file")
    for key in ("size", "ram"):
        if values[key] <= 0:
            raise fail(f"'{key}' must be a positive number of bytes", key)
    if values["prompt_format"] not in PROMPT_FORMATS:
        raise fail(f"prompt_format '{values['prompt_format']}' is not one of {', '.join(PROMPT_FORMATS)}",
                   "prompt_format")
    revision = values.get("revision", "main").strip()
    if not revision or any(c.isspace() for c in revision):
        raise fail(f"revision '{revision}' is not a branch, tag or commit id", "revision")
    sha256 = values.get("sha256")
    if sha256 is not None:
        sha256 = sha256.strip().lower()
        if not _SHA256.fullmatch(sha256):
            raise fail("sha256 must be 64 hexadecimal digits", "sha256")
        if not embedded and not _COMMIT.fullmatch(revision):
            raise fail("a sha256 needs a pinned revision (a 40-digit commit id): the file behind "
                       f"'{revision}' may change", "sha256",
                       hint="set revision to the commit the sha256 belongs to, or remove the sha256")
    if values.get("params_b") is not None and values["params_b"] <= 0:
        raise fail("'params_b' must be positive", "params_b")
    return CatalogueModel(
        name=name, title=values.get("title", name), repo=values.get("repo"), file=file, revision=revision,
        quant=values["quant"], size=values["size"], ram=values["ram"], licence=values["licence"],
        prompt_format=values["prompt_format"], sha256=sha256,
        params_b=float(values["params_b"]) if "params_b" in values else None, embedded=embedded,
        notes=values.get("notes", ""), ram_measured=values.get("ram_measured", False),
        where=header.where("models", name),
    )
