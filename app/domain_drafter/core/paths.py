"""Where Domain Drafter keeps files on the user's machine: the platform's own folders, overridable.

platformdirs gives each platform its place (Linux: the XDG folders, honouring XDG_*_HOME;
macOS: ~/Library/...; Windows: %LOCALAPPDATA%). DOMAIN_DRAFTER_CACHE and DOMAIN_DRAFTER_DATA
override the cache and data folders (tests and portable set-ups use them).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import platformdirs

APP = "domain-drafter"


def cache_dir() -> Path:
    """Plan caches, verdict caches, parser tables, assembled models. `DOMAIN_DRAFTER_CACHE` overrides."""
    override = os.environ.get("DOMAIN_DRAFTER_CACHE")
    if override:
        return Path(override).expanduser()
    return platformdirs.user_cache_path(APP, appauthor=False)


def data_dir() -> Path:
    """User data: results databases, the user's own models. `DOMAIN_DRAFTER_DATA` overrides."""
    override = os.environ.get("DOMAIN_DRAFTER_DATA")
    if override:
        return Path(override).expanduser()
    return platformdirs.user_data_path(APP, appauthor=False)


def config_dir() -> Path:
    """Settings and the user's prompt template."""
    return platformdirs.user_config_path(APP, appauthor=False)


def private_dir(path: Path) -> Path:
    """`path` as a folder, each level this call creates readable and writable by the user alone (0700).

    Folders that exist already keep their mode: a cache folder someone set up to share stays shared
    (nothing in a cache can run code when read, so sharing one is safe).
    """
    missing = []
    level = path
    while not level.is_dir():
        missing.append(level)
        if level.parent == level:
            break
        level = level.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if not folder.is_dir():
                raise
    return path


def atomic_write_bytes(path: Path, data: bytes, read_back: Callable[[Path], object] | None = None) -> None:
    """Write `data` to `path` through a temp file and a rename, so readers never see half a file.

    The file is flushed to the disk before the rename and the folder after it, so once this
    returns a crash or a power cut keeps the new content (not an empty or missing file).
    `read_back(temp)`, if given, reads the written temp file as the app will read `path`; if it
    raises, the old file is kept and its error goes to the caller (`atomic_write_files`).
    """
    atomic_write_files([(path, data)], None if read_back is None else lambda staged: read_back(staged[path]))


def atomic_write_files(files: list[tuple[Path, bytes]],
                       read_back: Callable[[dict[Path, Path]], object] | None = None) -> None:
    """Write several files, replacing none of them unless every one reads back.

    Each is written to a temp file beside it and flushed; the temp files are read back (the bytes
    must be the ones written, a full disk or a broken mount shows here) and `read_back` gets
    {final path: temp path} to read them as the app will; only then is each renamed into place, in
    order. On any failure the temp files are removed, the old files are kept, and the error
    (SaveError for a read-back that differs; whatever `read_back` raised) goes to the caller.
    """
    staged: dict[Path, Path] = {}
    try:
        for path, data in files:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            staged[path] = Path(tmp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)  # mkstemp makes 0600 files
            if Path(tmp).read_bytes() != data:
                raise SaveError(f"{path.name} did not read back as written (is the disk full?); the old file was kept")
        if read_back is not None:
            read_back(dict(staged))
        for path, tmp in staged.items():
            os.replace(tmp, path)
    except BaseException:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
        raise
    for folder in dict.fromkeys(path.parent for path, _ in files):
        _fsync_folder(folder)


class SaveError(OSError):
    """A file that did not read back as it was written; nothing was replaced."""


def _fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX); a no-op where folders cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass   # some file systems refuse fsync on a folder; the file itself is already on disk
    finally:
        os.close(fd)
