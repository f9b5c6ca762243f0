"""Where a domain's tests file is, and reading it with the problems of the folder it lies in.

For a bundled domain, the tests file of the user's copy once that copy has one (new cases go there:
the bundled domains are read-only to the app); otherwise the one beside the domain.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle, ProblemFile, load_bundle_path
from domain_drafter.core.domain_tests import TESTS_FILE, DomainTests
from domain_drafter.core.errors import DrafterError, TestsFileError
from domain_drafter.core.model import Domain
from domain_drafter.core.paths import atomic_write_bytes
from domain_drafter.core.tests_reader import parse_tests
from domain_drafter.core.user_domains import ensure_user_copy, file_read_from, is_bundled


def tests_file_of(bundle: DomainBundle) -> Path:
    """The tests file the domain's tests are read from: the user's copy's, for a bundled domain whose copy has one."""
    return file_read_from(bundle, TESTS_FILE)


def writable_tests_file(bundle: DomainBundle) -> Path:
    """Where new cases go: the domain's tests file, or for a bundled domain its user copy's (made now).

    A copy made before the bundled domain had a tests file (or whose file was removed) gets the bundled
    cases first, so that a new case is added to them rather than starting a file that hides them."""
    if is_bundled(bundle.folder):
        mine = ensure_user_copy(bundle) / TESTS_FILE
        shipped = bundle.folder / TESTS_FILE
        if not mine.exists() and shipped.is_file():
            shutil.copyfile(shipped, mine)
        return mine
    return bundle.folder / TESTS_FILE


def _problems(path: Path, bundle: DomainBundle) -> Sequence[ProblemFile]:
    """The problem files a tests file may name: those of the folder it lies in."""
    if path.parent.resolve() == bundle.folder.resolve():
        return bundle.problems
    return load_bundle_path(path.parent).problems


def read_tests_at(path: Path, text: str, bundle: DomainBundle, domain: Domain) -> DomainTests:
    """`text`, meant for the tests file at `path`, checked against `domain` (TestsFileError at file:line)."""
    return parse_tests(text, domain, _problems(path, bundle), path)


def domain_tests_of(bundle: DomainBundle) -> DomainTests | None:
    """The domain's tests file (`tests_file_of`) read against the bundle's domain, or None (none there, or one
    that does not read: a judge then judges without it, a new case's name is free among none)."""
    path = tests_file_of(bundle)
    try:
        return read_tests_at(path, path.read_text(encoding="utf-8"), bundle, bundle.domain)
    except (OSError, UnicodeDecodeError, DrafterError):
        return None


def append_case_table(bundle: DomainBundle, domain: Domain, table: str) -> Path:
    """Append a `[cases.NAME]` table to the writable tests file (for a bundled domain, its user copy's), once
    the whole file reads back against `domain`: TestsFileError at file:line, and nothing written, otherwise."""
    target = writable_tests_file(bundle)
    if is_bundled(target):   # whatever the copy did: the bundled domains stay as shipped
        raise TestsFileError("refusing to write into a bundled domain", where=target)
    old = target.read_text(encoding="utf-8") if target.is_file() else ""
    body = old.rstrip("\n")
    new = f"{body}\n\n{table}" if body else table
    read_tests_at(target, new, bundle, domain)
    atomic_write_bytes(target, new.encode("utf-8"),   # read back before the rename (issue 43)
                       read_back=lambda tmp: read_tests_at(target, tmp.read_text(encoding="utf-8"), bundle, domain))
    return target
