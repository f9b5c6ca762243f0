"""Fetch a catalogue model from the Hugging Face hub into the user's models folder.

`pull_model(model)` asks the hub about the file (HEAD /{repo}/resolve/{revision}/{file}: its
commit, ETag and size), then downloads it with huggingface_hub's own transfer function into
<models>/.downloads/<file>.part, reporting progress with speed and ETA to a TaskState whose cancel
stops it. Both kinds of interruption resume: huggingface_hub retries a dropped connection itself
with an HTTP Range request, and a stopped (or crashed) pull leaves the .part file and its ETag
behind, so the next pull of the same file asks only for the rest. The finished file must pass the
GGUF header check (llm/gguf_check.py) and the sha256 check (the catalogue's, else the hub's own:
for large files the ETag is the file's sha256) before it is moved into the models folder; a
failed check deletes it. `HF_ENDPOINT` (read at each call) points at another hub or a mirror.

Why not `hf_hub_download`: since huggingface_hub 1.x it downloads into a temporary file that is
deleted on failure, so a stopped download starts again from byte 0.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from domain_drafter import __version__
from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.catalogue import HUB_ENDPOINT, CatalogueModel
from domain_drafter.llm.gguf_check import inspect_gguf
from domain_drafter.llm.models import default_model_path, user_models_dir

STAGING = ".downloads"
PROGRESS_CHUNK = 1 << 20   # bytes between progress reports (and cancel checks)
_SHA256 = re.compile(r"[0-9a-f]{64}")
_MIB = float(1 << 20)


@dataclass(frozen=True)
class PullResult:
    """What a pull did. verified says which sha256 the file matched (or that none was known)."""

    model: str
    path: Path
    size: int
    downloaded: int        # bytes transferred by this call
    resumed_from: int      # bytes already on disk from an earlier, stopped pull
    sha256: str
    verified: str          # "catalogue sha256", "hub sha256 (ETag)" or "no sha256 known"
    seconds: float
    already_installed: bool = False


def staging_dir(dest: Path | None = None) -> Path:
    return (dest or user_models_dir()) / STAGING


def hub_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or HUB_ENDPOINT).rstrip("/")


def format_size(n: int) -> str:
    """Bytes as the hub shows them: 986 MB, 4.92 GB (decimal units)."""
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n:,} bytes"


def format_duration(seconds: float) -> str:
    """12 s, 4 min 05 s, 1 h 05 min; "unknown" for an infinite or undefined time."""
    if seconds != seconds or seconds == float("inf"):
        return "unknown"
    if seconds < 10:
        return f"{max(0.0, seconds):.1f} s"
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds} s"


def pull_model(model: CatalogueModel, *, dest: Path | None = None, endpoint: str | None = None,
               task: TaskState | None = None, token: str | bool | None = None) -> PullResult:
    """Download `model` into `dest` (default: the user's models folder) and check it; see the module doc."""
    t0 = time.monotonic()
    if model.embedded:
        path = default_model_path(task=task)
        return PullResult(model.name, path, path.stat().st_size, 0, 0, model.sha256 or "", "catalogue sha256",
                          time.monotonic() - t0, already_installed=True)
    dest = Path(dest) if dest is not None else user_models_dir()
    target = dest / model.file_name
    url = model.url(endpoint or hub_endpoint())
    if target.is_file():
        inspect_gguf(target)
        return PullResult(model.name, target, target.stat().st_size, 0, 0, model.sha256 or "", "already installed",
                          time.monotonic() - t0, already_installed=True)
    hub = _hub()
    try:
        meta = hub.get_hf_file_metadata(url, token=token, library_name="domain-drafter", library_version=__version__)
    except Exception as err:
        mapped = _hub_error(err, model, url, dest)
        if mapped is err:
            raise
        raise mapped from err
    etag, size = (meta.etag or "").strip('"'), meta.size
    if not size:
        raise ModelError("the hub did not say how large the file is", where=url,
                         hint=_manual_hint(url, dest))
    part = _prepare_part(staging_dir(dest), model.file_name, url, etag, size)
    resumed_from = part.stat().st_size
    _check_disk_space(part.parent, size - resumed_from, url)
    headers = hub.utils.build_hf_headers(token=token, library_name="domain-drafter", library_version=__version__)
    location = meta.location or url
    if urlsplit(location).netloc != urlsplit(url).netloc:
        headers.pop("authorization", None)   # a signed CDN link: the token is not for that host
    _set_chunk_size(hub)
    task = task or TaskState()
    with part.open("r+b") as raw:
        raw.seek(0, os.SEEK_END)
        out = _ProgressFile(raw, task, size, f"downloading {model.file_name}")
        try:
            with hub.utils.disable_progress_bars("huggingface_hub.http_get"):
                hub.file_download.http_get(location, out, resume_size=resumed_from, headers=headers,
                                           expected_size=size, displayed_filename=model.file_name)
        except Exception as err:
            raw.flush()
            if type(err) is OSError and err.errno is None:   # http_get's size check, not a disk error
                raise ModelError(f"the server sent a different number of bytes than it announced ({err})",
                                 where=url, hint="pull again; " + _manual_hint(url, dest)) from err
            mapped = _hub_error(err, model, url, dest, part=part)
            if mapped is err:
                raise
            raise mapped from err
    downloaded = size - resumed_from
    digest = _verify(part, model, etag, url, dest, task)
    part.replace(target)
    _info_path(part).unlink(missing_ok=True)
    verified = ("catalogue sha256" if model.sha256 else
                "hub sha256 (ETag)" if _SHA256.fullmatch(etag) else "no sha256 known")
    return PullResult(model.name, target, size, downloaded, resumed_from, digest, verified, time.monotonic() - t0)


# --- the partial file ---------------------------------------------------------------------------
def _info_path(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def _prepare_part(folder: Path, name: str, url: str, etag: str, size: int) -> Path:
    """The .part file to continue: kept if it belongs to the same URL, ETag and size, else emptied."""
    part, info_path = folder / f"{name}.part", folder / f"{name}.part.json"
    want = {"url": url, "etag": etag, "size": size}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            info = json.loads(info_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = None
        if info != want or not part.is_file() or part.stat().st_size > size:
            part.write_bytes(b"")
            info_path.write_text(json.dumps(want) + "\n", encoding="utf-8")
    except OSError as err:
        raise ModelError(f"cannot write into the models folder: {err.strerror or err}", where=folder,
                         hint="check the folder's permissions, or set DOMAIN_DRAFTER_DATA to a writable folder") from err
    return part


def _discard(part: Path) -> None:
    part.unlink(missing_ok=True)
    _info_path(part).unlink(missing_ok=True)


def _check_disk_space(folder: Path, needed: int, url: str) -> None:
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise ModelError(f"not enough disk space: the download needs {needed / _MIB:,.0f} MiB more, "
                         f"{free / _MIB:,.0f} MiB are free", where=folder,
                         hint=f"free some space, or set DOMAIN_DRAFTER_DATA to a roomier folder ({url})")


class _ProgressFile:
    """The file http_get writes into: reports progress (with rate and ETA) and checks cancel per chunk."""

    def __init__(self, raw: BinaryIO, task: TaskState, total: int, label: str):
        self._raw, self._task, self._total, self._label = raw, task, total, label
        self._t0, self._start = time.monotonic(), raw.tell()
        task.report(self._start, total, f"{label}: connecting")

    def write(self, data: bytes) -> int:
        n = self._raw.write(data)
        done = self._raw.tell()
        elapsed = time.monotonic() - self._t0
        rate = (done - self._start) / elapsed if elapsed > 0 else 0.0
        eta = f", {format_duration((self._total - done) / rate)} left" if rate > 0 else ""
        self._task.report(done, self._total, f"{self._label}: {done / _MIB:,.0f} of {self._total / _MIB:,.0f} MiB, "
                                             f"{rate / _MIB:.1f} MiB/s{eta}")
        self._task.check_cancelled()   # after the write: what arrived is kept for the resume
        return n

    def __getattr__(self, name: str) -> Any:   # tell, seek, truncate, flush: the real file's
        return getattr(self._raw, name)


def _verify(part: Path, model: CatalogueModel, etag: str, url: str, dest: Path, task: TaskState) -> str:
    try:
        inspect_gguf(part)
    except ModelError as err:
        _discard(part)
        raise ModelError(f"the downloaded file is not a usable GGUF model: {err.what}", where=url,
                         hint="it was deleted; pull again, or " + _manual_hint(url, dest)) from None
    expected = model.sha256 or (etag if _SHA256.fullmatch(etag) else None)
    digest, total, done = hashlib.sha256(), part.stat().st_size, 0
    with part.open("rb") as f:
        while block := f.read(1 << 22):
            digest.update(block)
            done += len(block)
            task.report(done, total, f"checking the sha256 of {model.file_name}")
            task.check_cancelled()
    actual = digest.hexdigest()
    if expected is not None and actual != expected:
        _discard(part)
        whose = "the catalogue" if model.sha256 else "the hub's ETag"
        raise ModelError(f"the downloaded file's sha256 is {actual}, but {whose} says {expected}", where=url,
                         hint="the file is damaged or not the one the catalogue means; it was deleted. "
                         "Pull again; if it fails the same way, the catalogue entry may be outdated")
    return actual


# --- huggingface_hub ----------------------------------------------------------------------------
def _hub() -> Any:
    try:
        import huggingface_hub
        import huggingface_hub.file_download
    except ImportError as err:
        raise ModelError(f"huggingface_hub is not installed ({err})",
                         hint="pip install huggingface_hub, or download the model file by hand") from err
    return huggingface_hub


def _set_chunk_size(hub: Any) -> None:
    # http_get reads the response in DOWNLOAD_CHUNK_SIZE pieces (10 MiB): progress, Stop and a
    # resume point come once a piece. 1 MiB makes Stop take effect within a second at 1 MB/s.
    constants = hub.constants
    if getattr(constants, "DOWNLOAD_CHUNK_SIZE", 0) > PROGRESS_CHUNK:
        constants.DOWNLOAD_CHUNK_SIZE = PROGRESS_CHUNK


def _manual_hint(url: str, dest: Path) -> str:
    return (f"download it yourself from {url} (a browser will do) and put the .gguf file in {dest}: "
            "Domain Drafter lists every .gguf file there")


def _hub_error(err: Exception, model: CatalogueModel, url: str, dest: Path, part: Path | None = None) -> Exception:
    """A ModelError saying what the hub or the network did; `err` itself if it is none of those."""
    import httpx2
    from huggingface_hub import errors

    kept = ""
    if part is not None and part.is_file() and part.stat().st_size:
        kept = f"; the {part.stat().st_size / _MIB:,.0f} MiB already received are kept, and the next pull resumes there"
    manual = _manual_hint(url, dest)
    if isinstance(err, errors.OfflineModeIsEnabled):
        return ModelError("downloads are switched off (HF_HUB_OFFLINE is set)", where=url,
                          hint="unset HF_HUB_OFFLINE, or " + manual)
    if isinstance(err, errors.GatedRepoError):
        return ModelError(f"the hub refused the download: {model.repo} is gated", where=url,
                          hint=f"accept its licence on {model.page_url()} and log in (`hf auth login`), or {manual}")
    if isinstance(err, (errors.RepositoryNotFoundError, errors.RevisionNotFoundError, errors.RemoteEntryNotFoundError)):
        return ModelError(f"the hub has no such file ({type(err).__name__})", where=url,
                          hint=f"the catalogue entry may be outdated (see {model.page_url()}); or {manual}")
    if isinstance(err, errors.HfHubHTTPError):
        status = getattr(getattr(err, "response", None), "status_code", "?")
        return ModelError(f"the hub refused the download (HTTP {status})" + kept, where=url, hint=manual)
    if isinstance(err, errors.FileMetadataError):
        return ModelError(f"the server does not answer like a Hugging Face hub: {err}", where=url, hint=manual)
    if isinstance(err, httpx2.HTTPError):
        return ModelError(f"cannot reach the hub ({type(err).__name__}: {err})" + kept, where=url,
                          hint="check the network connection, or " + manual)
    if isinstance(err, OSError):
        return ModelError(f"cannot write the download: {err.strerror or err}" + kept, where=part or dest,
                          hint="check the disk and the folder's permissions")
    return err
