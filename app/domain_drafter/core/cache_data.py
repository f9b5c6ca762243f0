"""Cache entries as plain data: JSON that names only classes from a fixed list, so reading runs no code.

A pickle names any importable callable and calls it while loading, so whoever can write a cache
file can run code as whoever reads it. These entries are JSON instead. Every JSON object in an
entry is a tagged value `{"~": tag, "v": ...}`; the tag is one of the few built here (tuple,
frozenset, dict, path) or a class registered by the caller. Reading builds those values through
their constructors and nothing else; an unknown tag, a wrong shape or broken bytes raise
`CacheEntryRefused`, which every reader turns into a miss.

Each entry starts with a header naming what it holds and the key it was written for, so a file
copied under another entry's name (or another kind's) is refused too.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any

from domain_drafter.core.paths import atomic_write_bytes, private_dir

TAG = "~"
_WARNED: set[str] = set()   # kinds of entry already said on stderr in this process
_BUILTINS: dict[str, Callable[[Any], Any]] = {
    "tuple": tuple, "frozenset": frozenset, "path": Path,
    "dict": lambda pairs: {k: v for k, v in pairs},
}


class CacheEntryRefused(Exception):
    """A cache entry that is not one this version wrote for this key; the reason is the message."""


class DataCodec:
    """Encode values built from JSON scalars, lists, tuples, frozensets, dicts, paths and the given classes.

    `classes` are frozen dataclasses or enums rebuilt from their fields; `special` maps a class
    to (encode, decode) for classes that are neither (each encode returns plain data).
    """

    def __init__(self, classes: tuple[type, ...] = (),
                 special: Mapping[type, tuple[Callable[[Any], Any], Callable[[Any], Any]]] | None = None):
        self._by_type: dict[type, tuple[str, Callable[[Any], Any]]] = {}
        self._decoders: dict[str, Callable[[Any], Any]] = dict(_BUILTINS)
        for cls in classes:
            if isinstance(cls, type) and issubclass(cls, enum.Enum):
                self._register(cls, lambda e: e.value, cls)
            elif dataclasses.is_dataclass(cls):
                names = tuple(f.name for f in dataclasses.fields(cls) if f.init)
                self._register(cls, _fields_of(names), _build(cls))
            else:
                raise TypeError(f"{cls!r} is neither a dataclass nor an enum: give it in special")
        for cls, (encode, decode) in (special or {}).items():
            self._register(cls, encode, decode)

    def _register(self, cls: type, encode: Callable[[Any], Any], decode: Callable[[Any], Any]) -> None:
        self._by_type[cls] = (cls.__qualname__, encode)
        self._decoders[cls.__qualname__] = decode

    def encode(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [self.encode(v) for v in value]
        if isinstance(value, tuple):
            return {TAG: "tuple", "v": [self.encode(v) for v in value]}
        if isinstance(value, frozenset):
            return {TAG: "frozenset", "v": [self.encode(v) for v in value]}
        if isinstance(value, Mapping):
            return {TAG: "dict", "v": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if isinstance(value, PurePath):
            return {TAG: "path", "v": str(value)}
        known = self._by_type.get(type(value))
        if known is None:
            raise TypeError(f"a cache entry cannot hold a {type(value).__qualname__}")
        tag, encode = known
        return {TAG: tag, "v": self.encode(encode(value))}

    def _hook(self, obj: dict) -> Any:
        if len(obj) != 2 or TAG not in obj or "v" not in obj:
            raise CacheEntryRefused("an object that is not a tagged value")
        decode = self._decoders.get(obj[TAG]) if isinstance(obj[TAG], str) else None
        if decode is None:
            raise CacheEntryRefused(f"an unknown tag {str(obj[TAG])[:40]!r}")
        try:
            return decode(obj["v"])
        except CacheEntryRefused:
            raise
        except Exception as exc:   # a wrong shape: any constructor's complaint is a refusal
            raise CacheEntryRefused(f"a malformed {obj[TAG]}: {type(exc).__name__}") from None

    def dumps(self, kind: str, key: str, value: Any) -> bytes:
        header = {TAG: "dict", "v": [["kind", kind], ["key", key]]}
        return json.dumps([header, self.encode(value)], separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def loads(self, kind: str, key: str, data: bytes) -> Any:
        """The value in `data`, written for exactly this kind and key; CacheEntryRefused otherwise."""
        try:
            header, value = json.loads(data.decode("utf-8"), object_hook=self._hook)
        except CacheEntryRefused:
            raise
        except (ValueError, TypeError, RecursionError) as exc:   # not JSON, not UTF-8, not a pair, too deep
            raise CacheEntryRefused(f"not a cache entry ({type(exc).__name__})") from None
        if header != {"kind": kind, "key": key}:
            raise CacheEntryRefused("written for another entry")
        return value


def _fields_of(names: tuple[str, ...]) -> Callable[[Any], list]:
    return lambda obj: [getattr(obj, n) for n in names]


def _build(cls: type) -> Callable[[Any], Any]:
    def build(values: Any) -> Any:
        if not isinstance(values, list):
            raise CacheEntryRefused(f"a malformed {cls.__qualname__}")
        return cls(*values)
    return build


class CacheFolder:
    """One kind of entry in one sub-folder of the cache: read (a miss on any doubt) and write (best effort)."""

    def __init__(self, folder: Path, kind: str, codec: DataCodec, what: str):
        self.folder, self.kind, self.codec, self.what = folder, kind, codec, what

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def read(self, key: str, expected: type) -> Any | None:
        """The entry's value, or None: missing, damaged, foreign or of the wrong type (said once on stderr)."""
        entry = self.path(key)
        try:
            data = entry.read_bytes()
        except OSError:
            return None   # no entry yet: an ordinary miss
        try:
            value = self.codec.loads(self.kind, key, data)
            if not isinstance(value, expected):
                raise CacheEntryRefused(f"it holds a {type(value).__name__}, not a {expected.__name__}")
        except CacheEntryRefused as refused:
            self.refused(key, str(refused))
            return None
        return value

    def refused(self, key: str, why: str) -> None:
        """Say on stderr, the first time in this process for this kind, that an entry was ignored and why."""
        if self.kind in _WARNED:
            return
        _WARNED.add(self.kind)
        print(f"domain-drafter: ignored the cached {self.what} {self.path(key)} ({why}); built it again",
              file=sys.stderr)

    def write(self, key: str, value: Any) -> None:
        try:
            data = self.codec.dumps(self.kind, key, value)
            private_dir(self.folder)
            atomic_write_bytes(self.path(key), data)
        except (OSError, TypeError, ValueError, RecursionError):
            pass   # a cache that cannot be written only costs time
