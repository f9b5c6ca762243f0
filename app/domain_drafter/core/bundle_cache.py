"""Parsed bundles kept on disk, so commands that only need a bundle skip the parser entirely.

A bundle is stored as data (core.cache_data: JSON naming only the bundle's own classes, so
reading an entry runs no code) under a key made of its files' paths and bytes, the Domain
Drafter version and the source of the modules whose classes it holds; any change to a file or
to that code is a miss. A damaged, foreign or refused entry is a miss too, said once on stderr,
and is replaced.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import domain_drafter
from domain_drafter.core.cache_data import CacheFolder, DataCodec
from domain_drafter.core.paths import cache_dir

SCHEMA = "bundle-2"
T = TypeVar("T")

# Modules whose classes a bundle entry holds: their source is part of the key.
_CLASS_MODULES = ("domain_drafter.core.bundle", "domain_drafter.core.model", "domain_drafter.core.types",
                  "domain_drafter.core.descriptions", "domain_drafter.core.cache_data")


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


def entry_key(files: dict[Path, bytes]) -> str:
    h = hashlib.sha256()
    for part in (SCHEMA.encode(), domain_drafter.__version__.encode(), sys.version.encode(), _code_fingerprint()):
        h.update(part + b"\0")
    for path, data in sorted(files.items()):
        h.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def cached(files: dict[Path, bytes], build: Callable[[], T], expected: type, codec: DataCodec) -> T:
    """The cached object for exactly these files, or `build()` (stored for next time).

    `codec` names the classes the object is built of (core.bundle gives its own).
    """
    key = entry_key(files)
    folder = CacheFolder(cache_dir() / "bundles", "bundle", codec, "parsed bundle")
    value = folder.read(key, expected)
    if value is not None:
        return value
    value = build()
    folder.write(key, value)
    return value
