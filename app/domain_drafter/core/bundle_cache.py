"""Parsed bundles kept on disk, so commands that only need a bundle skip the parser entirely.

A bundle is stored (pickled) under a key made of its files' paths and bytes, the Domain
Drafter version and the source of the modules whose classes it holds; any change to a file
or to that code is a miss. A damaged or foreign entry is a miss too, and is replaced.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import domain_drafter
from domain_drafter.core.paths import atomic_write_bytes, cache_dir

SCHEMA = "bundle-1"
T = TypeVar("T")

# Modules whose classes a pickled bundle holds: their source is part of the key.
_CLASS_MODULES = ("domain_drafter.core.bundle", "domain_drafter.core.model", "domain_drafter.core.types",
                  "domain_drafter.core.descriptions")


def _code_fingerprint() -> bytes:
    h = hashlib.sha256()
    for name in _CLASS_MODULES:
        module = sys.modules.get(name)
        source = Path(getattr(module, "__file__", "") or "")
        try:
            h.update(source.read_bytes())
        except OSError:
            h.update(name.encode())  # a frozen app has no sources: its version is in the key anyway
    return h.digest()


def cached(files: dict[Path, bytes], build: Callable[[], T], expected: type) -> T:
    """The cached object for exactly these files, or `build()` (stored for next time)."""
    h = hashlib.sha256()
    for part in (SCHEMA.encode(), domain_drafter.__version__.encode(), sys.version.encode(), _code_fingerprint()):
        h.update(part + b"\0")
    for path, data in sorted(files.items()):
        h.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        h.update(hashlib.sha256(data).digest())
    entry = cache_dir() / "bundles" / f"{h.hexdigest()}.pickle"
    try:
        value = pickle.loads(entry.read_bytes())
        if isinstance(value, expected):
            return value
    except Exception:
        pass
    value = build()
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(entry, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, pickle.PicklingError):
        pass  # a cache that cannot be written only costs time
    return value
