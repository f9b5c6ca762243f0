"""Domain bundles: a domain.pddl, its problems, and (optionally) its NL descriptions.

A bundle comes from one of the nine bundled folders, a user's folder laid out the same
way, or a bare domain.pddl (then it has no problems or descriptions, and says so when asked).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from domain_drafter.core.bundle_cache import cached
from domain_drafter.core.cache_data import DataCodec
from domain_drafter.core.descriptions import (
    DescriptionClass,
    Descriptions,
    PredicateText,
    consistency_problems,
    load_descriptions,
)
from domain_drafter.core.errors import DomainError, DrafterError, SourceLocation, UsageError
from domain_drafter.core.model import ActionSchema, Atom, Domain, Literal, PredicateSignature, Problem, TypedName
from domain_drafter.core.types import TypeHierarchy

DOMAIN_FILE = "domain.pddl"
PROBLEMS_DIR = "problems"
DESCRIPTIONS_FILE = "descriptions.toml"
TESTS_FILE = "tests.toml"   # read on demand by core.tests_reader.load_tests, never by the loader


@dataclass(frozen=True)
class ProblemFile:
    """A problem with the text and path it was read from."""

    name: str
    path: Path
    text: str
    problem: Problem


@dataclass(frozen=True)
class DomainBundle:
    """Everything Domain Drafter knows about one domain."""

    name: str
    path: Path
    domain: Domain
    domain_text: str
    problems: tuple[ProblemFile, ...]
    descriptions: Descriptions | None

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def tests_file(self) -> Path | None:
        """The tests file beside the domain file, if there is one."""
        path = self.folder / TESTS_FILE
        return path if path.is_file() else None

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.domain.actions)

    def require_action(self, name: str) -> str:
        """The action's canonical name; UsageError listing the valid names if there is none."""
        if name.lower() in self.domain.action_map:
            return name.lower()
        raise UsageError(f"domain '{self.name}' has no action '{name}'",
                         hint="valid actions: " + ", ".join(self.action_names))

    def require_descriptions(self) -> Descriptions:
        """The descriptions, complete for every predicate and action; DomainError saying what is missing."""
        if self.descriptions is None:
            raise DomainError(
                f"no {DESCRIPTIONS_FILE} beside {self.path.name}: prompts need an NL template per predicate "
                "and a summary per action",
                where=self.folder,
                hint=f"write {self.folder / DESCRIPTIONS_FILE} like the bundled domains/blocksworld/{DESCRIPTIONS_FILE}")
        problems = consistency_problems(self.descriptions, self.domain)
        if problems:
            line = re.match(r"[^:]*:(\d+):", problems[0])
            path = self.descriptions.path
            where = SourceLocation(path, int(line.group(1)), 1) if line and path else path
            raise DomainError("the descriptions do not fit the domain:\n  " + "\n  ".join(problems), where=where)
        return self.descriptions

    def require_problems(self) -> tuple[ProblemFile, ...]:
        if not self.problems:
            raise DomainError(f"no problems in {self.folder / PROBLEMS_DIR}: plan-based checks need at least one",
                              where=self.folder,
                              hint=f"add small solvable problems as {PROBLEMS_DIR}/p01.pddl, p02.pddl")
        return self.problems


def bundled_root() -> Path:
    """The folder holding the bundled domains (inside the installed package, or the checkout)."""
    return Path(str(resources.files("domain_drafter.domains")))


def bundled_names() -> list[str]:
    root = bundled_root()
    return sorted(p.name for p in root.iterdir() if (p / DOMAIN_FILE).is_file())


@functools.cache
def _load_bundled(name: str) -> DomainBundle:
    return load_bundle_path(bundled_root() / name)


def load_bundled() -> list[DomainBundle]:
    """All bundled domains, loaded once per process."""
    return [_load_bundled(n) for n in bundled_names()]


def load_bundle(spec: str | Path) -> DomainBundle:
    """A bundled domain by name, or a folder / domain.pddl path."""
    text = str(spec)
    if isinstance(spec, str) and "/" not in text and "\\" not in text and not text.endswith(".pddl"):
        if text.lower() in bundled_names():
            return _load_bundled(text.lower())
        if not Path(text).exists():
            raise UsageError(f"unknown domain '{text}'",
                             hint="bundled domains: " + ", ".join(bundled_names())
                             + "; or give a folder holding domain.pddl")
    return load_bundle_path(Path(spec))


def load_bundle_path(path: Path) -> DomainBundle:
    """Load a bundle folder, or a bare domain file (then without problems and descriptions)."""
    path = path.expanduser()
    if path.is_dir():
        domain_path = path / DOMAIN_FILE
        if not domain_path.is_file():
            raise DomainError(f"no {DOMAIN_FILE} in this folder", where=path,
                              hint=f"a bundle folder holds {DOMAIN_FILE}, {PROBLEMS_DIR}/*.pddl and {DESCRIPTIONS_FILE}")
        folder = path
    elif path.is_file():
        domain_path, folder = path, None
    else:
        raise UsageError(f"no such file or folder: {path}",
                         hint="bundled domains: " + ", ".join(bundled_names()))
    problem_paths = sorted((folder / PROBLEMS_DIR).glob("*.pddl")) if folder is not None else []
    descriptions_path = folder / DESCRIPTIONS_FILE if folder is not None else None
    if descriptions_path is not None and not descriptions_path.is_file():
        descriptions_path = None
    files = {p: _read_bytes(p) for p in (domain_path, *problem_paths, *([descriptions_path] if descriptions_path else []))}

    def parse() -> DomainBundle:
        return _parse_bundle(folder, domain_path, problem_paths, descriptions_path, files)

    return cached(files, parse, DomainBundle, _bundle_codec())


@functools.cache
def _bundle_codec() -> DataCodec:
    """The classes a cached bundle is built of: reading an entry builds these and nothing else."""
    return DataCodec(
        (DomainBundle, ProblemFile, Domain, Problem, ActionSchema, Literal, Atom, TypedName, PredicateSignature,
         Descriptions, PredicateText, DescriptionClass),
        special={TypeHierarchy: (lambda h: [[c, h.parent(c)] for c in h.declared],
                                 lambda pairs: TypeHierarchy([(c, p) for c, p in pairs]))})


def read_back(folder: Path | None, domain_path: Path, staged: dict[Path, Path]) -> DomainBundle:
    """The bundle the loader will read once the `staged` files ({final path: written temp file}) are renamed
    into place, read from the temp files (messages name the final paths): a save calls this before the
    rename, so a folder the app wrote always reopens. `folder` None: a bare domain file."""
    def source(path: Path) -> Path:
        return staged.get(path, path)

    problems_dir = folder / PROBLEMS_DIR if folder is not None else None
    problem_paths = [] if problems_dir is None else sorted(
        {*problems_dir.glob("*.pddl"), *(p for p in staged if p.parent == problems_dir and p.suffix == ".pddl")})
    descriptions_path = folder / DESCRIPTIONS_FILE if folder is not None else None
    if descriptions_path is not None and not source(descriptions_path).is_file():
        descriptions_path = None
    files = {p: _read_bytes(source(p)) for p in (domain_path, *problem_paths)}
    bundle = _parse_bundle(folder, domain_path, problem_paths, None, files)
    if descriptions_path is None:
        return bundle
    return dataclasses.replace(bundle, descriptions=load_descriptions(source(descriptions_path)))


def save_domain_file(path: Path, text: str) -> Path:
    """Write a domain file (an export) atomically, once the temp file reads back as a domain the loader takes."""
    from domain_drafter.core.paths import atomic_write_bytes

    def check(tmp: Path) -> None:
        with refusing_save(path.name):
            read_back(None, path, {path: tmp})

    atomic_write_bytes(path, text.encode("utf-8"), read_back=check)
    return path


@contextlib.contextmanager
def refusing_save(what: str) -> Iterator[None]:
    """Around a save's read-back: a file the app would not read back is a DomainError saying so and why."""
    try:
        yield
    except DrafterError as err:
        raise DomainError(f"not saved, the old files were kept: {what} as written would not open again: {err.what}",
                          where=err.where, hint=err.hint) from None


def _parse_bundle(folder: Path | None, domain_path: Path, problem_paths: list[Path], descriptions_path: Path | None,
                  files: dict[Path, bytes]) -> DomainBundle:
    from domain_drafter.core.reader import read_domain, read_problem  # the parser: only on a cache miss

    text = _decode(domain_path, files[domain_path])
    domain, parsed = read_domain(text, domain_path)
    _check_reference_actions(domain, parsed, text, domain_path)
    problems: list[ProblemFile] = []
    for problem_path in problem_paths:
        ptext = _decode(problem_path, files[problem_path])
        problem = read_problem(ptext, problem_path)
        check_problem(domain, problem, problem_path)
        problems.append(ProblemFile(problem_path.stem, problem_path, ptext, problem))
    descriptions = load_descriptions(descriptions_path) if descriptions_path is not None else None
    name = folder.name if folder is not None else domain.name
    return DomainBundle(name, domain_path, domain, text, tuple(problems), descriptions)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DomainError(f"cannot read: {exc.strerror}", where=path) from None


def _decode(path: Path, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DomainError(f"not UTF-8 text (byte {exc.start})", where=path) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as reading in text mode does


def _check_reference_actions(domain: Domain, parsed, text: str, path: Path) -> None:
    """Each action of the file must pass our own syntax and semantic checks; else file:line:col."""
    names = [a.name for a in parsed]
    for action in parsed:
        if names.count(action.name) > 1:
            raise DomainError(f"action '{action.name}' is defined twice",
                              where=SourceLocation.from_offset(text, action.name_span[0], path))
        from domain_drafter.core.answers import check_parsed_action  # the checks: only on a cache miss

        findings = check_parsed_action(action, domain)  # parsed with the file: no second parse
        if findings:
            loc = SourceLocation.from_offset(text, findings[0].span[0], path)
            raise DomainError(f"in action '{action.name}': {findings[0].message}", where=loc)
    for cycle in domain.types.cycles:
        raise DomainError(f"the types form a cycle: {' - '.join(cycle)}", where=path)


def check_problem(domain: Domain, problem: Problem, path: Path) -> None:
    """Refuse a problem that does not fit `domain` (its domain name, types, predicates, arities, objects), located
    at `path`."""
    def fail(what: str) -> None:
        raise DomainError(what, where=path)

    if problem.domain_name and problem.domain_name != domain.name:
        fail(f"problem is for domain '{problem.domain_name}', but {DOMAIN_FILE} defines '{domain.name}'")
    objects = {**domain.constant_map, **problem.object_map}
    for obj in problem.objects:
        if obj.type != "object" and obj.type not in domain.types:
            fail(f"object '{obj.name}' has type '{obj.type}', which the domain does not declare")
    for atom in sorted(problem.init) + [l.atom for l in problem.goal]:
        signature = domain.predicate_map.get(atom.predicate)
        if signature is None:
            fail(f"{atom} uses the predicate '{atom.predicate}', which the domain does not declare")
        elif len(atom.args) != signature.arity:
            fail(f"{atom} has {len(atom.args)} arguments, but '{atom.predicate}' takes {signature.arity}")
        for arg, param in zip(atom.args, signature.parameters):
            obj = objects.get(arg)
            if obj is None:
                fail(f"{atom} names '{arg}', which is no object or constant")
            elif not domain.types.is_subtype(obj.type, param.type):
                fail(f"in {atom}, '{arg}' is a {obj.type}, but '{atom.predicate}' expects a {param.type}")
