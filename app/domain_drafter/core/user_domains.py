"""The user's copies of bundled domains: the bundled domains are read-only to the app.

A bundled domain lives in the installed package (or the checkout) and is shared by every later run
and benchmark, so what the app writes beside a domain (a counterexample saved as a problem) goes
into a copy of it in the user's data folder instead: the same layout (domain.pddl, problems/,
descriptions.toml), read like any domain folder (File > Open domain folder, `--domain PATH`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle, bundled_root
from domain_drafter.core.paths import data_dir

USER_DOMAINS_DIR = "domains"


def is_bundled(path: Path) -> bool:
    """Whether `path` is inside the bundled domains' folder."""
    try:
        path.resolve().relative_to(bundled_root().resolve())
    except ValueError:
        return False
    return True


def user_copy_folder(bundle: DomainBundle) -> Path:
    """Where the user's copy of a bundled domain lives (whether or not it exists yet)."""
    return data_dir() / USER_DOMAINS_DIR / bundle.folder.name


def file_read_from(bundle: DomainBundle, name: str) -> Path:
    """Where the domain's file `name` (its tests, its dismissals) is read from: the user's copy's, for a bundled
    domain whose copy has one; else the domain's own folder."""
    if is_bundled(bundle.folder):
        mine = user_copy_folder(bundle) / name
        if mine.is_file():
            return mine
    return bundle.folder / name


def ensure_user_copy(bundle: DomainBundle) -> Path:
    """The user's copy of `bundle`'s folder, copied from it now if there is none yet (an existing copy,
    with the problems saved into it, is kept as it is)."""
    target = user_copy_folder(bundle)
    if not (target / bundle.path.name).is_file():
        shutil.copytree(bundle.folder, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return target
