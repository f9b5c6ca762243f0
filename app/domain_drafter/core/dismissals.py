"""Invariant findings the author dismissed, per action, saved with the domain (issue 37).

A new action may rightly change what held before; the author then dismisses that finding for that
action, by its key ("breaks (at ?0 *) (carry ?0 *)", "never-applies", "changes-nothing", "changes in-city"). The
dismissals live in `dismissed.toml` beside domain.pddl, a file of their own rather than a table in
tests.toml: they are not test cases, so the tests reader, the Tests panel's editor and an imported
.ptest.json never need to know them, and rewriting a tests file cannot lose them. For a bundled
domain (read-only to the app) the file is in the user's copy in the data folder, as new test cases are.

    [dismissed]
    pick = ["breaks (at ?0 *) (carry ?0 *)"]
"""

from __future__ import annotations

import json
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.paths import atomic_write_bytes
from domain_drafter.core.toml_source import TomlSource
from domain_drafter.core.user_domains import ensure_user_copy, file_read_from, is_bundled

DISMISSED_FILE = "dismissed.toml"


def dismissals_file(bundle: DomainBundle) -> Path:
    """Where the domain's dismissals are read from: the user's copy's file for a bundled domain once it has one."""
    return file_read_from(bundle, DISMISSED_FILE)


def read_dismissals(bundle: DomainBundle) -> dict[str, frozenset[str]]:
    """Action -> the finding keys dismissed for it ({} when there is no file); DomainError at file:line if bad."""
    path = dismissals_file(bundle)
    if not path.is_file():
        return {}
    source = TomlSource.read(path, DISMISSED_FILE)     # a syntax error is a DomainError at file:line:col
    table = source.data.get("dismissed", {})
    if not isinstance(table, dict):
        raise source.fail(f"{DISMISSED_FILE}: [dismissed] must be a table", "dismissed",
                          hint='for example: [dismissed] then pick = ["never-applies"]')
    for action, keys in table.items():
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise source.fail(f"{DISMISSED_FILE}: [dismissed] {action} must be a list of finding keys",
                              "dismissed", action, hint='for example: pick = ["never-applies"]')
    return {action.lower(): frozenset(keys) for action, keys in table.items()}


def dismissed_for(bundle: DomainBundle, action: str) -> frozenset[str]:
    return read_dismissals(bundle).get(action.lower(), frozenset())


def save_dismissal(bundle: DomainBundle, action: str, key: str, *, dismiss: bool = True) -> Path:
    """Dismiss (or, with `dismiss` False, restore) the finding `key` for `action`; returns the file written."""
    table = {a: set(keys) for a, keys in read_dismissals(bundle).items()}
    keys = table.setdefault(action.lower(), set())
    (keys.add if dismiss else keys.discard)(key)
    folder = ensure_user_copy(bundle) if is_bundled(bundle.folder) else bundle.folder
    path = folder / DISMISSED_FILE
    lines = ["# Invariant findings dismissed per action (Domain Drafter reads this file; edit it freely)",
             "[dismissed]"]
    for name in sorted(table):
        if table[name]:
            # a JSON string is a TOML basic string for these keys (printable text, quotes and backslashes escaped)
            lines.append(f"{json.dumps(name)} = [{', '.join(json.dumps(k) for k in sorted(table[name]))}]")
    atomic_write_bytes(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return path
