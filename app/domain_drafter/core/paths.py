"""Where Domain Drafter keeps files on the user's machine (XDG conventions, overridable)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

APP = "domain-drafter"


def cache_dir() -> Path:
    """Plan caches, verdict caches, assembled models. `DOMAIN_DRAFTER_CACHE` overrides (tests use it)."""
    override = os.environ.get("DOMAIN_DRAFTER_CACHE")
    if override:
        return Path(override).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / APP


def data_dir() -> Path:
    """User data: results databases, the user's own models."""
    override = os.environ.get("DOMAIN_DRAFTER_DATA")
    if override:
        return Path(override).expanduser()
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / APP


def config_dir() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / APP


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temp file and a rename, so readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
