"""Where Domain Drafter keeps files on the user's machine (XDG conventions, overridable)."""

from __future__ import annotations

import os
from pathlib import Path

APP = "domain-drafter"


def cache_dir() -> Path:
    """Plan caches, verdict caches, assembled models. `DOMAIN_DRAFTER_CACHE` overrides (tests use it)."""
    override = os.environ.get("DOMAIN_DRAFTER_CACHE")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / APP


def data_dir() -> Path:
    """User data: results databases, the user's own models."""
    override = os.environ.get("DOMAIN_DRAFTER_DATA")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / APP


def config_dir() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / APP
