"""Reading a tests file (the format is described in `core/domain_tests.py`), checked against its domain.

Every mistake is a `TestsFileError` at file:line: TOML syntax, unknown tables, kinds and keys,
problems that do not exist, predicates the domain does not declare, wrong arities, objects a
problem lacks, plan steps that do not parse or name no action. Nothing is evaluated. Here: the
entry points (`load_tests`, `parse_tests`) and the tables (problems and cases, their kinds and
keys); the values inside them (atoms, formulas, plan steps) are read by `tests_values.ValueReader`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from domain_drafter.core.domain_tests import (
    COMMON_KEYS,
    KIND_KEYS,
    PROBLEM_KEYS,
    TESTS_FILE,
    Case,
    CaseKind,
    DomainTests,
    TestProblem,
    tests_path,
)
from domain_drafter.core.errors import DomainError, PddlSyntaxError, TestsFileError
from domain_drafter.core.formulas import Formula, FormulaSyntax, read_typed_objects
from domain_drafter.core.model import Domain, Problem, TypedName
from domain_drafter.core.tests_values import ValueReader
from domain_drafter.core.toml_source import TomlSource, describe_value


def read_source(path: Path, text: str | None, domain: Domain, files: Mapping) -> DomainTests:
    """The tests file at `path` (or `text` meant for it) read against `domain` and its problem files."""
    source = _toml(lambda: TomlSource.read(path, "tests file") if text is None
                   else TomlSource.parse(text, path, "tests file"))
    return _read(source, domain, files)


def _toml(read) -> TomlSource:
    try:
        return read()
    except DomainError as err:   # unreadable, not UTF-8, not TOML: still the tests file's fault
        raise TestsFileError(err.what, where=err.where, hint=err.hint) from None


class _Reader(ValueReader):
    """A tests file's tables: its [problems.NAME] and [cases.NAME], each checked for its kind's keys."""

    # ------------------------------------------------------------ problems

    def inline_problem(self, name: str, table: Mapping, keys: tuple[str, ...], base: Problem | None) -> TestProblem:
        text = {k: self.string(table, k, keys) for k in PROBLEM_KEYS if k in table}
        objects: tuple[TypedName, ...] = base.objects if base is not None else ()
        if "objects" in text:
            try:
                objects = read_typed_objects(text["objects"])
            except FormulaSyntax as err:
                raise self.syntax((*keys, "objects"), text["objects"], err, "objects") from None
            for obj in objects:
                if obj.type != "object" and obj.type not in self.domain.types:
                    raise self.fail(f"object '{obj.name}' has type '{obj.type}', which the domain does not declare",
                                    *keys, "objects")
        problem = Problem(name, self.domain.name, objects, base.init if base else frozenset(),
                          base.goal if base else ())
        if "init" in text:
            problem = replace(problem, init=frozenset(self.atoms((*keys, "init"), text["init"], problem, "init")))
        if "goal" in text:
            formula = self.formula((*keys, "goal"), text["goal"], problem, "goal", variables=False)
            problem = replace(problem, goal=formula.literals)
        for atom in sorted(problem.init):
            self.check_atom(atom, problem, (*keys, "init"), text.get("init", ""), False)
        return TestProblem(name, problem, problem.to_pddl(), None, True)

    def problem_of(self, name: str, table: Mapping, keys: tuple[str, ...],
                   inline: dict[str, TestProblem], problems: dict[str, TestProblem]) -> str:
        has_inline = any(k in table for k in ("objects", "init"))
        named = table.get("problem")
        if named is not None and not isinstance(named, str):
            raise self.fail(f"'problem' must be a string, not {describe_value(named)}", *keys, "problem")
        base_name = None
        if named is not None:
            base_name = self.resolve_problem(named, keys, inline, problems)
        if not has_inline:
            if base_name is None:
                raise self.fail(f"case '{name}' needs a problem: problem = \"<a file of problems/ or a "
                                "[problems.NAME] table>\", or objects and init inline", *keys,
                                hint="problems here: " + (", ".join([*inline, *self.files]) or "none"))
            return base_name
        base = problems[base_name].problem if base_name else None
        own = self.inline_problem(f"{name}", {k: v for k, v in table.items() if k in ("objects", "init")},
                                  keys, base)
        key = f"case:{name}"
        problems[key] = own
        return key

    def resolve_problem(self, named: str, keys: tuple[str, ...], inline: dict[str, TestProblem],
                        problems: dict[str, TestProblem]) -> str:
        if named in inline:
            return named
        stem = named[:-5] if named.endswith(".pddl") else named
        stem = stem.split("/")[-1] if stem.startswith("problems/") else stem
        if stem in self.files:
            pf = self.files[stem]
            problems.setdefault(stem, TestProblem(stem, pf.problem, pf.text, pf.path, False))
            return stem
        path = self.folder / named
        if named.endswith(".pddl") and path.is_file():
            return self.problem_file(path, named, keys, problems)
        raise self.fail(f"unknown problem '{named}'", *keys, "problem",
                        hint="problems here: " + (", ".join([*inline, *self.files]) or "none")
                        + " (a file of problems/ by name, or a [problems.NAME] table)")

    def problem_file(self, path: Path, named: str, keys: tuple[str, ...], problems: dict[str, TestProblem]) -> str:
        """A problem file outside problems/, named by its path relative to the tests file."""
        if named in problems:
            return named
        from domain_drafter.core.reader import read_problem  # the parser: only for such a file

        try:
            text = path.read_text(encoding="utf-8")
            problem = read_problem(text, path)
        except OSError as exc:
            raise self.fail(f"cannot read the problem file '{named}': {exc.strerror}", *keys, "problem") from None
        except PddlSyntaxError as err:
            raise TestsFileError(err.what, where=err.where) from None
        for atom in sorted(problem.init) + [lit.atom for lit in problem.goal]:
            self.check_atom(atom, problem, (*keys, "problem"), "", False)
        problems[named] = TestProblem(named, problem, text, path, False)
        return named

    # ------------------------------------------------------------ cases

    def kind_of(self, table: Mapping) -> CaseKind | None:
        try:
            return CaseKind(table.get("kind"))
        except ValueError:
            return None

    def case(self, name: str, table: object, inline: dict[str, TestProblem],
             problems: dict[str, TestProblem]) -> Case:
        keys = ("cases", name)
        if not isinstance(table, dict):
            raise self.fail(f"[cases.{name}] must be a table, not {describe_value(table)}", *keys)
        if "kind" not in table:
            raise self.fail(f"case '{name}' needs a kind", *keys,
                            hint="kinds: " + ", ".join(k.value for k in CaseKind))
        kind = self.kind_of(table)
        if kind is None:
            raise self.fail(f"case '{name}' has the unknown kind {table['kind']!r}", *keys, "kind",
                            hint="kinds: " + ", ".join(k.value for k in CaseKind))
        allowed = COMMON_KEYS | KIND_KEYS[kind]
        for key in table:
            if key not in allowed:
                raise self.fail(f"case '{name}' ({kind}) has the unknown key '{key}'", *keys, key,
                                hint=f"a {kind} case may hold: {', '.join(sorted(allowed))}")
        description = self.string(table, "description", keys) if "description" in table else ""
        problem_key = self.problem_of(name, table, keys, inline, problems)
        problem = problems[problem_key].problem
        line = self.source.where(*keys).line
        fields: dict = {"description": description, "line": line}
        if kind in (CaseKind.PLAN, CaseKind.PLAN_FAILS):
            if ("plan" in table) == ("plan_file" in table):
                raise self.fail(f"case '{name}' needs exactly one of 'plan' and 'plan_file'", *keys)
            if "plan" in table:
                fields["plan"] = self.plan(table, keys, "plan", problem)
            else:
                fields["plan"] = self.plan_file(table, keys, problem)
                fields["plan_file"] = table["plan_file"]
        if "goal" in table:
            if kind in (CaseKind.REACHABLE, CaseKind.UNREACHABLE):
                fields["formula"] = self.formula((*keys, "goal"), table["goal"], problem, "goal", variables=True)
            elif kind is CaseKind.PLAN:
                fields["formula"] = self.formula((*keys, "goal"), table["goal"], problem, "goal", variables=False)
            elif not any(k in table for k in ("objects", "init")):
                raise self.fail(f"'goal' does not apply to a {kind} case on a named problem (write the problem "
                                "inline, with objects and init, to give it a goal)", *keys, "goal")
            else:
                formula = self.formula((*keys, "goal"), table["goal"], problem, "goal", variables=False)
                problems[problem_key] = _with_goal(problems[problem_key], formula)
        if kind in (CaseKind.REACHABLE, CaseKind.UNREACHABLE) and "formula" not in fields:
            if not problem.goal:
                raise self.fail(f"case '{name}' needs a goal (its problem has none)", *keys)
            fields["formula"] = Formula(problem.goal)
        if kind is CaseKind.PLAN and "reaches_goal" in table:
            if not isinstance(table["reaches_goal"], bool):
                raise self.fail("'reaches_goal' must be true or false", *keys, "reaches_goal")
            fields["reaches_goal"] = table["reaches_goal"]
        if kind is CaseKind.PLAN_FAILS:
            self.plan_fails(table, keys, problem, fields)
        if kind is CaseKind.NEVER:
            if "state" not in table:
                raise self.fail(f"case '{name}' needs a state formula, e.g. state = \"(and (p ?x) (q ?x))\"", *keys)
            fields["formula"] = self.formula((*keys, "state"), table["state"], problem, "state", variables=True)
        if kind in (CaseKind.APPLICABLE, CaseKind.NOT_APPLICABLE, CaseKind.EFFECT):
            if "action" not in table:
                raise self.fail(f"case '{name}' needs a ground action, e.g. action = \"(stack a b)\"", *keys)
            fields["action"] = self.step((*keys, "action"), self.string(table, "action", keys), problem)
            fields["plan"] = self.plan(table, keys, "after", problem) if "after" in table else ()
        if kind is CaseKind.EFFECT:
            if "holds" not in table and "not_holds" not in table:
                raise self.fail(f"case '{name}' needs holds or not_holds (the atoms true, and false, after "
                                "the action)", *keys)
            for key in ("holds", "not_holds"):
                if key in table:
                    fields[key] = self.atoms((*keys, key), table[key], problem, key)
        return Case(name, kind, problem_key, **fields)

    def plan_fails(self, table: Mapping, keys: tuple[str, ...], problem: Problem, fields: dict) -> None:
        if "at_step" in table:
            at = table["at_step"]
            if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= len(fields["plan"]):
                raise self.fail(f"'at_step' must be a step number from 1 to {len(fields['plan'])}, "
                                f"not {at!r}", *keys, "at_step")
            fields["at_step"] = at
        if "precondition" in table:
            text = self.string(table, "precondition", keys)
            formula = self.formula((*keys, "precondition"), text, problem, "precondition", variables=False)
            if len(formula.literals) != 1:
                raise self.fail("'precondition' is one literal, e.g. \"(clear b)\" or \"(not (on a b))\"",
                                *keys, "precondition")
            fields["precondition"] = formula.literals[0]

    def read(self) -> DomainTests:
        data = self.source.data
        for key in data:
            if key not in ("problems", "cases"):
                raise self.fail(f"unknown table '{key}'; a tests file holds [problems.NAME] and [cases.NAME]", key)
            if not isinstance(data[key], dict):
                raise self.fail(f"'{key}' must be a table ([{key}.NAME] ...), not {describe_value(data[key])}", key)
        inline: dict[str, TestProblem] = {}
        for name, table in data.get("problems", {}).items():
            keys = ("problems", name)
            if not isinstance(table, dict):
                raise self.fail(f"[problems.{name}] must be a table, not {describe_value(table)}", *keys)
            for key in table:
                if key not in PROBLEM_KEYS:
                    raise self.fail(f"[problems.{name}] has the unknown key '{key}' (it may hold objects, init "
                                    "and goal)", *keys, key)
            if name in self.files:
                raise self.fail(f"[problems.{name}] has the name of a file of problems/", *keys)
            inline[name] = self.inline_problem(name, table, keys, None)
        problems: dict[str, TestProblem] = dict(inline)
        cases = tuple(self.case(name, table, inline, problems) for name, table in data.get("cases", {}).items())
        if not cases:
            raise self.fail("the tests file has no cases ([cases.NAME] tables)")
        return DomainTests(self.source.path, problems, cases, tuple(inline))


def _with_goal(problem: TestProblem, formula: Formula) -> TestProblem:
    p = replace(problem.problem, goal=formula.literals)
    return replace(problem, problem=p, text=p.to_pddl())


def _read(source: TomlSource, domain: Domain, files: Mapping) -> DomainTests:
    return _Reader(source, domain, files).read()


def load_tests(bundle, path: Path | None = None) -> DomainTests:
    """The tests file of a bundle (`bundle.folder / tests.toml`, or `path`); TestsFileError at file:line."""
    path = path or tests_path(bundle.folder)
    if not path.is_file():
        raise TestsFileError(f"no {TESTS_FILE} beside {bundle.path.name}", where=bundle.folder,
                             hint=f"write cases in {path}, or start from the domain's own: domain-drafter test "
                                  f"{path.parent} --starters (see the README's 'Domain tests' section)")
    return read_source(path, None, bundle.domain, {p.name: p for p in bundle.problems})


def parse_tests(text: str, domain: Domain, problem_files: Sequence = (), path: Path | None = None) -> DomainTests:
    """A tests file's text (e.g. the editor's, unsaved) checked against `domain` and its problem files."""
    return read_source(path or Path(TESTS_FILE), text, domain, {p.name: p for p in problem_files})
