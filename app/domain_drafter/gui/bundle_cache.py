"""The bundled domains for the window's start, parsed once per machine rather than once per start.

Parsing the nine bundled domains and their problems takes about half of the app's start-up CPU
time, for files that never change in an installation. The parsed bundles are kept as a pickle in
the cache folder, keyed by a hash of every bundled file's content and of the engine modules whose
classes the pickle holds, so an edited domain or a new version of the code parses afresh. The file
is ours (written by this module into the user's own cache); anything wrong with it means a reparse.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from pathlib import Path

import domain_drafter.core as core_package
from domain_drafter import __version__
from domain_drafter.core.bundle import DomainBundle, bundled_root, load_bundled
from domain_drafter.core.paths import atomic_write_bytes, cache_dir

log = logging.getLogger(__name__)
CACHE_NAME = "bundled-domains-{digest}.pickle"


def bundled_digest() -> str:
    """Hash of the bundled files' names and contents, the engine's core sources and the version."""
    digest = hashlib.sha256(__version__.encode())
    root = bundled_root()
    core = Path(core_package.__file__).parent
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".pddl", ".toml"))
    files += sorted(core.glob("*.py"))
    for path in files:
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def load_bundled_cached(folder: Path | None = None) -> list[DomainBundle]:
    """load_bundled(), from the cache when it holds this exact content; writes the cache otherwise."""
    folder = folder or cache_dir() / "gui"
    path = folder / CACHE_NAME.format(digest=bundled_digest())
    try:
        bundles = pickle.loads(path.read_bytes())   # noqa: S301 - our own file, see the module docstring
        if isinstance(bundles, list) and all(isinstance(b, DomainBundle) for b in bundles):
            return bundles
    except FileNotFoundError:
        pass
    except Exception as err:  # noqa: BLE001 - a damaged or stale file: parse again
        log.info("ignoring the bundled-domains cache %s: %s", path, err)
    bundles = load_bundled()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(CACHE_NAME.format(digest="*")):
            old.unlink(missing_ok=True)
        atomic_write_bytes(path, pickle.dumps(bundles, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError as err:
        log.info("cannot write the bundled-domains cache %s: %s", path, err)
    return bundles
