"""Small PDDL texts a tests file holds: conjunctions of literals, atom lists, typed object lists, plan steps.

`(and (holding ?x) (not (ontable ?x)))` becomes a `Formula` (literals plus the variables they
use, read existentially by whoever asks whether a state satisfies it). Every reader returns a
value or raises `FormulaSyntax` with the 0-based offset of the offending character, which the
tests-file reader turns into file:line. Nothing here evaluates the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain_drafter.core.model import Atom, Literal, TypedName

_TOKEN = re.compile(r"\s*(?:(;[^\n]*)|(\()|(\))|([^\s()]+))")


class FormulaSyntax(ValueError):
    """A formula does not parse: what is wrong and at which offset of its text."""

    def __init__(self, what: str, offset: int):
        super().__init__(what)
        self.what = what
        self.offset = offset


@dataclass(frozen=True)
class Formula:
    """A conjunction of literals; `variables` (with their `?`) are read existentially."""

    literals: tuple[Literal, ...]

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for lit in self.literals for a in lit.atom.args if a.startswith("?")))

    def __str__(self) -> str:
        if len(self.literals) == 1:
            return str(self.literals[0])
        return f"(and {' '.join(map(str, self.literals))})"


def _tokens(text: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
        if m.group(1):
            continue
        for group in (2, 3, 4):
            if m.group(group):
                out.append((m.group(group).lower(), m.start(group)))
    return out


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, int]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("", len(self.text.rstrip()))

    def take(self, expected: str | None = None) -> tuple[str, int]:
        token = self.peek()
        if expected is not None and token[0] != expected:
            found = f"'{token[0]}'" if token[0] else "the end of the text"
            raise FormulaSyntax(f"expected '{expected}', found {found}", token[1])
        if not token[0]:
            raise FormulaSyntax("the text ends in the middle of an expression", token[1])
        self.i += 1
        return token

    def atom(self) -> Atom:
        self.take("(")
        name, at = self.take()
        if name in ("(", ")") or name.startswith("?"):
            raise FormulaSyntax(f"expected a predicate name, found '{name}'", at)
        args = []
        while self.peek()[0] not in (")", ""):
            arg, at = self.take()
            if arg == "(":
                raise FormulaSyntax("an atom's arguments are names or ?variables, not an expression", at)
            args.append(arg)
        self.take(")")
        return Atom(name, tuple(args))

    def literals(self) -> list[Literal]:
        start = self.peek()
        if start[0] != "(":
            raise FormulaSyntax(f"expected '(', found {repr(start[0]) if start[0] else 'nothing'}", start[1])
        head = self.tokens[self.i + 1][0] if self.i + 1 < len(self.tokens) else ""
        if head == "and":
            self.take("(")
            self.take()
            out: list[Literal] = []
            while self.peek()[0] == "(":
                out.extend(self.literals())
            self.take(")")
            return out
        if head == "not":
            self.take("(")
            self.take()
            atom = self.atom()
            self.take(")")
            return [Literal(atom, False)]
        if head in ("or", "imply", "exists", "forall", "when"):
            raise FormulaSyntax(f"'{head}' is not supported here: write a conjunction of literals "
                                "(and (p ...) (not (q ...)))", self.tokens[self.i + 1][1])
        return [Literal(self.atom())]

    def end(self) -> None:
        token = self.peek()
        if token[0]:
            raise FormulaSyntax(f"unexpected '{token[0]}' after the formula", token[1])


def read_formula(text: str) -> Formula:
    """A conjunction of literals: one literal, `(and ...)`, or several literals side by side."""
    reader = _Reader(text)
    if not reader.tokens:
        raise FormulaSyntax("the formula is empty", 0)
    literals: list[Literal] = []
    while reader.peek()[0]:
        literals.extend(reader.literals())
    reader.end()
    return Formula(tuple(dict.fromkeys(literals)))


def read_atoms(text: str) -> tuple[Atom, ...]:
    """Atoms side by side, `(on a b) (clear a)`, or `(and ...)` of atoms (no negations)."""
    if not text.strip():
        return ()
    formula = read_formula(text)
    for lit in formula.literals:
        if not lit.positive:
            offset = text.lower().find("(not")
            raise FormulaSyntax("write the atoms that hold here, without 'not'", max(offset, 0))
    return tuple(lit.atom for lit in formula.literals)


def read_step(text: str) -> tuple[str, ...]:
    """One ground action, `(stack a b)`."""
    reader = _Reader(text)
    atom = reader.atom()
    reader.end()
    for arg in atom.args:
        if arg.startswith("?"):
            raise FormulaSyntax(f"a plan step names objects, not variables ('{arg}')", text.lower().find(arg))
    return (atom.predicate, *atom.args)


def read_typed_objects(text: str) -> tuple[TypedName, ...]:
    """`a b - block r1 - room`: objects and their types (untyped ones are `object`)."""
    words = [(m.group(0).lower(), m.start()) for m in re.finditer(r"[^\s]+", text)]
    out: list[TypedName] = []
    pending: list[tuple[str, int]] = []
    i = 0
    while i < len(words):
        word, at = words[i]
        if word == "-":
            if not pending or i + 1 >= len(words):
                raise FormulaSyntax("'-' must come between object names and a type", at)
            type_name = words[i + 1][0]
            out.extend(TypedName(w, type_name) for w, _ in pending)
            pending = []
            i += 2
            continue
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", word):
            raise FormulaSyntax(f"'{word}' is not an object name", at)
        pending.append((word, at))
        i += 1
    out.extend(TypedName(w) for w, _ in pending)
    return tuple(out)
