"""The values of a tests file, checked against its domain: the base of the tests file reader.

`ValueReader` knows where a value is (`fail` gives a `TestsFileError` at file:line, down to the line
inside a multi-line string or list) and reads the values cases and problems hold: strings, atoms,
formulas and plan steps, checking predicates, arities, objects and types against the domain and
the problem. The tables themselves (problems, cases, kinds and keys) are read by
`tests_reader._Reader`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from domain_drafter.core.domain_tests import Step, show_step
from domain_drafter.core.errors import PddlSyntaxError, SourceLocation, TestsFileError
from domain_drafter.core.formulas import Formula, FormulaSyntax, read_atoms, read_formula, read_step
from domain_drafter.core.model import Atom, Domain, Problem
from domain_drafter.core.plan_text import read_plan
from domain_drafter.core.toml_source import TomlSource, describe_value


class ValueReader:
    """Errors at file:line, and the values of one tests file read against `domain` and its problem `files`."""

    def __init__(self, source: TomlSource, domain: Domain, files: Mapping):
        self.source = source
        self.domain = domain
        self.files = files
        self.folder = source.path.parent

    # ------------------------------------------------------------ errors

    def fail(self, what: str, *keys: str, line: int | None = None, hint: str | None = None) -> TestsFileError:
        where = self.source.where(*keys)
        if line is not None:
            where = SourceLocation(where.path, line, 1)
        return TestsFileError(what, where=where, hint=hint)

    def value_line(self, keys: tuple[str, ...], value: str, offset: int) -> int:
        """The line of `offset` inside the string value of `keys` (triple-quoted strings span lines)."""
        line = self.source.where(*keys).line
        lines = self.source.text.splitlines()
        head = lines[line - 1] if 0 < line <= len(lines) else ""
        if re.search(r"=\s*(\"\"\"|''')\s*$", head):
            line += 1
        elif re.search(r"=\s*\[\s*$", head) or "[" in head.split("=", 1)[-1]:
            # a list: find the line holding the item (lists in a tests file hold plan steps)
            needle = value.strip()
            for number in range(line, min(len(lines), line + 200) + 1):
                if needle and needle in lines[number - 1]:
                    return number
        return line + value[:offset].count("\n")

    def syntax(self, keys: tuple[str, ...], value: str, err: FormulaSyntax, what: str) -> TestsFileError:
        return self.fail(f"{what}: {err.what}", *keys, line=self.value_line(keys, value, err.offset))

    # ------------------------------------------------------------ values

    def objects_of(self, problem: Problem) -> dict[str, str]:
        return {**{c.name: c.type for c in self.domain.constants}, **{o.name: o.type for o in problem.objects}}

    def string(self, table: Mapping, key: str, keys: tuple[str, ...]) -> str:
        value = table[key]
        if not isinstance(value, str):
            raise self.fail(f"'{key}' must be a string, not {describe_value(value)}", *keys, key)
        return value

    def check_atom(self, atom: Atom, problem: Problem, keys: tuple[str, ...], text: str, variables: bool) -> None:
        def fail(what: str) -> TestsFileError:
            offset = text.lower().find(atom.predicate)
            return self.fail(what, *keys, line=self.value_line(keys, text, max(offset, 0)))

        if atom.predicate == "=":
            if len(atom.args) != 2:
                raise fail(f"{atom}: '=' takes 2 arguments")
            signature = None
        else:
            signature = self.domain.predicate_map.get(atom.predicate)
            if signature is None:
                raise fail(f"{atom} uses the predicate '{atom.predicate}', which the domain does not declare")
            if len(atom.args) != signature.arity:
                raise fail(f"{atom} has {len(atom.args)} argument{'s' if len(atom.args) != 1 else ''}, "
                           f"but '{atom.predicate}' takes {signature.arity}")
        objects = self.objects_of(problem)
        for i, arg in enumerate(atom.args):
            if arg.startswith("?"):
                if not variables:
                    raise fail(f"{atom} has the variable '{arg}': only a never, reachable or unreachable "
                               "formula may use variables")
                continue
            if arg not in objects:
                raise fail(f"{atom} names '{arg}', which is no object of problem '{problem.name}' or constant")
            if signature is not None:
                want = signature.parameters[i].type
                if not self.domain.types.is_subtype(objects[arg], want):
                    raise fail(f"in {atom}, '{arg}' is a {objects[arg]}, but '{atom.predicate}' expects a {want}")

    def atoms(self, keys: tuple[str, ...], value: object, problem: Problem, what: str) -> tuple[Atom, ...]:
        text = " ".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else value
        if not isinstance(text, str):
            raise self.fail(f"'{keys[-1]}' must be a string of atoms, not {describe_value(value)}", *keys)
        try:
            atoms = read_atoms(text)
        except FormulaSyntax as err:
            raise self.syntax(keys, text, err, what) from None
        for atom in atoms:
            self.check_atom(atom, problem, keys, text, False)
        return atoms

    def formula(self, keys: tuple[str, ...], text: object, problem: Problem, what: str, *,
                variables: bool) -> Formula:
        if not isinstance(text, str):
            raise self.fail(f"'{keys[-1]}' must be a string, not {describe_value(text)}", *keys)
        try:
            formula = read_formula(text)
        except FormulaSyntax as err:
            raise self.syntax(keys, text, err, what) from None
        for lit in formula.literals:
            self.check_atom(lit.atom, problem, keys, text, variables)
        return formula

    def step(self, keys: tuple[str, ...], text: str, problem: Problem, line: int | None = None) -> Step:
        try:
            step = read_step(text)
        except FormulaSyntax as err:
            raise self.fail(f"the plan step {text.strip()!r} does not parse: {err.what}", *keys,
                            line=line or self.value_line(keys, text, err.offset),
                            hint="write a step as (action object ...)") from None
        self.check_step(step, problem, keys, line or self.value_line(keys, text, 0))
        return step

    def check_step(self, step: Step, problem: Problem, keys: tuple[str, ...], line: int) -> None:
        shown = show_step(step)
        action = self.domain.action_map.get(step[0])
        if action is None:
            raise self.fail(f"the step {shown} names no action of the domain", *keys, line=line,
                            hint="actions: " + ", ".join(a.name for a in self.domain.actions))
        args = step[1:]
        if len(args) != len(action.parameters):
            raise self.fail(f"the step {shown}: '{action.name}' takes {len(action.parameters)} arguments, "
                            f"got {len(args)}", *keys, line=line)
        objects = self.objects_of(problem)
        for arg, param in zip(args, action.parameters):
            if arg not in objects:
                raise self.fail(f"the step {shown} names '{arg}', which is no object of problem "
                                f"'{problem.name}'", *keys, line=line)
            if not self.domain.types.is_subtype(objects[arg], param.type):
                raise self.fail(f"the step {shown}: '{arg}' is a {objects[arg]}, not a {param.type}",
                                *keys, line=line)

    def plan(self, table: Mapping, keys: tuple[str, ...], key: str, problem: Problem) -> tuple[Step, ...]:
        value = table[key]
        if isinstance(value, list):
            steps = []
            for item in value:
                if not isinstance(item, str):
                    raise self.fail(f"'{key}' holds steps as strings, not {describe_value(item)}", *keys, key)
                steps.append(self.step((*keys, key), item, problem))
            return tuple(steps)
        if not isinstance(value, str):
            raise self.fail(f"'{key}' must be a list of steps or a string, not {describe_value(value)}", *keys, key)
        steps = []
        for number, line in enumerate(value.split("\n")):
            body = line.split(";", 1)[0].strip()
            if not body:
                continue
            at = self.value_line((*keys, key), value, sum(len(x) + 1 for x in value.split("\n")[:number]))
            for piece in re.findall(r"\([^()]*\)|[^\s()]+|[()]", body):
                steps.append(self.step((*keys, key), piece, problem, line=at))
        return tuple(steps)

    def plan_file(self, table: Mapping, keys: tuple[str, ...], problem: Problem) -> tuple[Step, ...]:
        name = self.string(table, "plan_file", keys)
        path = (self.folder / name)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise self.fail(f"cannot read the plan file '{name}': {exc.strerror}", *keys, "plan_file") from None
        try:
            steps = read_plan(text, path)
        except PddlSyntaxError as err:
            raise TestsFileError(err.what, where=err.where) from None
        line = self.source.where(*keys, "plan_file").line
        for step in steps:
            self.check_step(step, problem, (*keys, "plan_file"), line)
        return steps
