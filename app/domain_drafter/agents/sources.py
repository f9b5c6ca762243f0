"""A tool's domain arguments as a bundle: a bundled name, a folder (or domain.pddl), or inline texts.

Inline texts are written once into the server's own scratch folder (a temporary directory, never the
installed package), one sub-folder per distinct content, so the engine's caches see the same paths and
bytes on every call and the parser's file:line:col is the one the CLI gives for the same file.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from domain_drafter.agents.errors import check_size
from domain_drafter.core.bundle import (
    DOMAIN_FILE,
    PROBLEMS_DIR,
    DomainBundle,
    bundled_names,
    load_bundle,
    load_bundle_path,
)
from domain_drafter.core.errors import UsageError

INLINE = "<inline>"
_PROBLEM_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")


class Sources:
    """Turns domain arguments into bundles; owns the scratch folder of inline texts."""

    def __init__(self) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="domain-drafter-mcp-"))
        self.rename: dict[Path, str] = {}     # scratch sub-folder -> what the caller calls it
        # The bundled domains, by name: part of the installed package, read only and loaded once per process
        # (core.bundle), so a call naming one skips the listing of the package's folder that load_bundle does.
        self._bundled = {name: None for name in bundled_names()}

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def bundle(self, domain: str | None = None, domain_text: str | None = None,
               problems: Mapping[str, str] | None = None, descriptions_text: str | None = None) -> DomainBundle:
        """The bundle the arguments name: `domain` (a bundled name or a path) or `domain_text` (+ problems)."""
        if domain_text is None:
            if not domain:
                raise UsageError("no domain given", hint="pass 'domain' (a bundled name such as 'blocksworld', or a "
                                                         "folder holding domain.pddl) or 'domain_text'")
            check_size("domain", domain)
            if problems or descriptions_text:
                raise UsageError("'problems' and 'descriptions_text' go with 'domain_text', not with 'domain'",
                                 hint="a folder's problems are read from its problems/ folder")
            return self._bundled.get(domain.lower()) or self._load(domain)
        if domain:
            raise UsageError("both 'domain' and 'domain_text' given", hint="pass one of them")
        return load_bundle_path(self.inline_folder(domain_text, problems or {}, descriptions_text))

    def _load(self, domain: str) -> DomainBundle:
        """A bundled domain (kept for the next call) or a folder (read on every call: an agent edits it)."""
        b = load_bundle(domain)
        if domain.lower() in self._bundled:
            self._bundled[domain.lower()] = b
        return b

    def inline_folder(self, domain_text: str, problems: Mapping[str, str], descriptions_text: str | None) -> Path:
        check_size("domain_text", domain_text)
        check_size("descriptions_text", descriptions_text)
        digest = hashlib.sha256(domain_text.encode("utf-8", "surrogatepass"))
        for name, text in sorted(problems.items()):
            if not _PROBLEM_NAME.fullmatch(name):
                raise UsageError(f"problem name '{name[:80]}' is not a plain file name", where="problems",
                                 hint="name problems like 'p01' (letters, digits, '_', '-', '.')")
            check_size(f"problems.{name}", text)
            digest.update(b"\0" + name.encode() + b"\0" + text.encode("utf-8", "surrogatepass"))
        if descriptions_text is not None:
            digest.update(b"\0descriptions\0" + descriptions_text.encode("utf-8", "surrogatepass"))
        folder = self.scratch / digest.hexdigest()[:24]
        if not folder.is_dir():
            part = folder.with_suffix(".part")
            shutil.rmtree(part, ignore_errors=True)
            (part / PROBLEMS_DIR).mkdir(parents=True)
            (part / DOMAIN_FILE).write_text(domain_text, encoding="utf-8", newline="\n")
            for name, text in problems.items():
                stem = name.removesuffix(".pddl")
                (part / PROBLEMS_DIR / f"{stem}.pddl").write_text(text, encoding="utf-8", newline="\n")
            if descriptions_text is not None:
                (part / "descriptions.toml").write_text(descriptions_text, encoding="utf-8", newline="\n")
            part.rename(folder)
            self.rename[folder] = INLINE
        return folder


def problem_of(bundle: DomainBundle, problem: str | None):
    """A bundle's problem by name (the first when None)."""
    problems = bundle.require_problems()
    if problem is None:
        return problems[0]
    for p in problems:
        if p.name == problem or p.name == problem.removesuffix(".pddl") or p.problem.name == problem.lower():
            return p
    raise UsageError(f"domain '{bundle.name}' has no problem '{problem[:80]}'",
                     hint="problems: " + ", ".join(p.name for p in problems) + "; or pass 'problem_text'")
