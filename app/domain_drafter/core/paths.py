"""Where Domain Drafter keeps files on the user's machine: the platform's own folders, overridable.

platformdirs gives each platform its place (Linux: the XDG folders, honouring XDG_*_HOME;
macOS: ~/Library/...; Windows: %LOCALAPPDATA%). DOMAIN_DRAFTER_CACHE and DOMAIN_DRAFTER_DATA
override the cache and data folders (tests and portable set-ups use them).
"""

from __future__ import annotations

import os
import tempfile
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


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temp file and a rename, so readers never see half a file.

    The file is flushed to the disk before the rename and the folder after it, so once this
    returns a crash or a power cut keeps the new content (not an empty or missing file).
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


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
