"""A domain's tests file, `tests.toml` beside `domain.pddl`: what the author means, as cases (METHOD 6c).

```toml
[problems.tower]                      # optional inline problems, usable by any case
objects = "a b - block"
init = "(handempty) (ontable a) (ontable b) (clear a) (clear b)"
goal = "(on a b)"

[cases.stack-two]
problem = "tower"                     # an inline problem, or a file of problems/ ("p01")
kind = "plan"
plan = ["(pick-up a)", "(stack a b)"] # or one string, one step a line; or plan_file = "plans/x.plan"

[cases.no-holding-two]
problem = "p02"
kind = "never"
state = "(and (holding ?x) (holding ?y) (not (= ?x ?y)))"
```

Kinds and their keys: `plan` (plan, reaches_goal = true, goal), `plan_fails` (plan, at_step,
precondition), `reachable` / `unreachable` (goal, default the problem's), `never` (state),
`applicable` / `not_applicable` (action, after), `effect` (action, after, holds, not_holds).
A case may hold its own problem inline (objects, init, goal) instead of naming one.
Everything is checked against the domain when read: every mistake is a `TestsFileError` at
file:line. Nothing is evaluated; the planning layer proves the cases.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from domain_drafter.core.formulas import Formula
from domain_drafter.core.model import Atom, Literal, Problem

TESTS_FILE = "tests.toml"
Step = tuple[str, ...]


class CaseKind(str, enum.Enum):
    """What a case asks of the domain."""

    PLAN = "plan"
    PLAN_FAILS = "plan_fails"
    REACHABLE = "reachable"
    UNREACHABLE = "unreachable"
    NEVER = "never"
    APPLICABLE = "applicable"
    NOT_APPLICABLE = "not_applicable"
    EFFECT = "effect"

    def __str__(self) -> str:
        return self.value


NEGATIVE_KINDS = frozenset({CaseKind.PLAN_FAILS, CaseKind.UNREACHABLE, CaseKind.NEVER})
# kinds proven by exploring the reachable states (the others replay one plan with the validator)
EXPLORING_KINDS = frozenset({CaseKind.REACHABLE, CaseKind.UNREACHABLE, CaseKind.NEVER})

COMMON_KEYS = {"kind", "problem", "description", "objects", "init", "goal"}
KIND_KEYS: dict[CaseKind, set[str]] = {
    CaseKind.PLAN: {"plan", "plan_file", "reaches_goal"},
    CaseKind.PLAN_FAILS: {"plan", "plan_file", "at_step", "precondition"},
    CaseKind.REACHABLE: set(),
    CaseKind.UNREACHABLE: set(),
    CaseKind.NEVER: {"state"},
    CaseKind.APPLICABLE: {"action", "after"},
    CaseKind.NOT_APPLICABLE: {"action", "after"},
    CaseKind.EFFECT: {"action", "after", "holds", "not_holds"},
}
PROBLEM_KEYS = ("objects", "init", "goal")


@dataclass(frozen=True)
class TestProblem:
    """A problem a case runs on: a file of problems/ or written inline in the tests file."""

    __test__ = False   # not a pytest class

    name: str
    problem: Problem
    text: str                    # PDDL text (the file's, or the inline problem printed): a cache key
    path: Path | None = None
    inline: bool = False


@dataclass(frozen=True)
class Case:
    """One case of a tests file; which fields matter depends on `kind`."""

    name: str
    kind: CaseKind
    problem: str                                 # a key of DomainTests.problems
    plan: tuple[Step, ...] = ()                  # plan / plan_fails; the prefix ("after") of the action kinds
    reaches_goal: bool = True
    at_step: int | None = None
    precondition: Literal | None = None
    formula: Formula | None = None               # reachable / unreachable goal, never's state, plan's goal
    action: Step | None = None
    holds: tuple[Atom, ...] = ()
    not_holds: tuple[Atom, ...] = ()
    description: str = ""
    line: int = 0                                # where the case starts in the tests file (0: not from a file)
    plan_file: str | None = None                 # as written, kept so a rewrite keeps the reference

    @property
    def negative(self) -> bool:
        return self.kind in NEGATIVE_KINDS

    @property
    def actions(self) -> tuple[str, ...]:
        """The action names the case is about (its steps and its ground action), in order, once each."""
        steps = [*self.plan, *([self.action] if self.action else [])]
        return tuple(dict.fromkeys(s[0] for s in steps))

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind.value, "problem": self.problem,
                "plan": [show_step(s) for s in self.plan], "reaches_goal": self.reaches_goal, "at_step": self.at_step,
                "precondition": str(self.precondition) if self.precondition else None,
                "formula": str(self.formula) if self.formula else None,
                "action": show_step(self.action) if self.action else None,
                "holds": [str(a) for a in self.holds], "not_holds": [str(a) for a in self.not_holds],
                "description": self.description, "line": self.line}


@dataclass(frozen=True)
class DomainTests:
    """A tests file read and checked against its domain."""

    path: Path | None
    problems: Mapping[str, TestProblem]
    cases: tuple[Case, ...]
    inline_problems: tuple[str, ...] = field(default=())   # names of the [problems.*] tables, in order

    def case(self, name: str) -> Case:
        for case in self.cases:
            if case.name == name:
                return case
        raise KeyError(name)

    def select(self, names: Sequence[str]) -> DomainTests:
        """Only the named cases (in file order)."""
        wanted = set(names)
        return replace(self, cases=tuple(c for c in self.cases if c.name in wanted))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cases)


def show_step(step: Step) -> str:
    return f"({' '.join(step)})"


def tests_path(folder: Path) -> Path:
    return folder / TESTS_FILE


def free_case_name(stem: str, taken: Collection[str]) -> str:
    """`stem-1`, or the first `stem-N` that no case in `taken` has."""
    number = 1
    while f"{stem}-{number}" in taken:
        number += 1
    return f"{stem}-{number}"
