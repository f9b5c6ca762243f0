"""Starter cases: tests that grow with use (issue 37). For a domain with no tests file, or only a few cases,
what the engine already knows is offered as cases of the tests file's own kinds, for the author to keep:

- each problem stays solvable: a `reachable` case on its goal;
- the plan the planner found for it (the reference plans the judge found on the way, from the plan
  cache; K* is asked when none is cached) stays valid: a `plan` case;
- what every reachable state keeps (planning/invariants.py): for each pair of atoms of a proven group, a
  `never` case that they hold together (a conjunction can say "two at once", not "none": an
  exactly-one group's other half is left to the invariant judge).

Each starter is a `Case`, checked by the tests reader against the domain before it is offered, so keeping
one (`keep_starter`, appended to the writable tests file: the user's copy of a bundled domain) can only
fail on the disk. Nothing here is kept without the author asking.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import Case, CaseKind, DomainTests, free_case_name
from domain_drafter.core.errors import DrafterError, UsageError
from domain_drafter.core.formulas import Formula
from domain_drafter.core.model import EQUALITY, Atom, Domain, Literal
from domain_drafter.core.tasks import TaskState
from domain_drafter.core.tests_files import append_case_table, domain_tests_of
from domain_drafter.core.tests_reader import parse_tests
from domain_drafter.core.tests_toml import case_toml
from domain_drafter.planning.invariants import Invariant, Part, find_invariants

if TYPE_CHECKING:
    from domain_drafter.planning.plan_cache import PlanCache

FEW_CASES = 5              # a tests file with fewer cases is offered starters
MAX_INVARIANT_CASES = 12   # `never` starters at most (a domain with many groups gets the first ones)


class StarterSource(str, enum.Enum):
    """Where a starter comes from."""

    GOAL = "goal"
    PLAN = "plan"
    INVARIANT = "invariant"


@dataclass(frozen=True)
class StarterCase:
    """One case on offer; `id` is its case name, what `--keep` and Keep as test name."""

    id: str
    source: StarterSource
    case: Case

    @property
    def words(self) -> str:
        return self.case.description

    @property
    def table(self) -> str:
        return case_toml(self.case)

    def to_dict(self) -> dict:
        return {"id": self.id, "source": self.source.value, "words": self.words, "table": self.table}


@dataclass(frozen=True)
class Starters:
    """The starters of one domain, and why some that could be are not (no plan found, nothing proven)."""

    starters: tuple[StarterCase, ...]
    notes: tuple[str, ...] = ()

    def find(self, starter_id: str) -> StarterCase:
        for starter in self.starters:
            if starter.id == starter_id:
                return starter
        ids = ", ".join(s.id for s in self.starters) or "none"
        raise UsageError(f"no starter case '{starter_id}'", hint=f"starter cases: {ids}")

    def to_dict(self) -> dict:
        return {"starters": [s.to_dict() for s in self.starters], "notes": list(self.notes)}


def wants_starters(tests: DomainTests | None) -> bool:
    """Whether a domain with these tests (None: no tests file) is offered starters."""
    return tests is None or len(tests.cases) < FEW_CASES


def starter_cases(bundle: DomainBundle, tests: DomainTests | None, *, plans: PlanCache | None = None,
                  task: TaskState | None = None) -> Starters:
    """The starters of `bundle`'s domain as it is, those the tests already hold left out.

    `plans` is a PlanCache (planning/plan_cache.py): its plans are the planner's, cached when the judge
    planned for the reference; None: no plan starters. Progress and cancel through `task`."""
    notes: list[str] = []
    found: list[tuple[StarterSource, Case]] = []
    files = bundle.problems
    for number, pf in enumerate(files):
        if task is not None:
            task.check_cancelled()
            task.report(number, len(files) + 1, f"starter cases: planning for {pf.name}")
        found.append((StarterSource.GOAL, Case(
            f"{pf.name}-stays-solvable", CaseKind.REACHABLE, pf.name,
            description=f"problem {pf.name} stays solvable: its goal stays reachable")))
        if plans is None:
            continue
        result = plans.plans(bundle.domain_text, pf.text, task=task, label=f"{bundle.name}/{pf.name}")
        if not result.solved:
            notes.append(f"{pf.name}: the planner found no plan ({result.status.value}), so no plan case")
            continue
        plan = tuple(tuple(w.lower() for w in step) for step in result.plans[0])
        found.append((StarterSource.PLAN, Case(
            f"{pf.name}-plan-stays-valid", CaseKind.PLAN, pf.name, plan=plan,
            description=f"the {len(plan)}-step plan the planner found for {pf.name} stays executable and "
                        "reaches the goal")))
    if task is not None:
        task.report(len(files), len(files) + 1, "starter cases: what every reachable state keeps")
    if files:
        proven = find_invariants(bundle.domain, [pf.problem for pf in files])
        never = [c for inv in proven.invariants for c in _never_cases(bundle.domain, inv, files[0].name)]
        if len(never) > MAX_INVARIANT_CASES:
            notes.append(f"{len(never) - MAX_INVARIANT_CASES} more invariant cases left out")
        found += [(StarterSource.INVARIANT, c) for c in never[:MAX_INVARIANT_CASES]]
        if not proven.invariants:
            notes.append("no invariant proven on the problems, so no invariant case")
    else:
        notes.append("the domain has no problems: no starter case can run")
    starters = _fresh(found, tests, bundle.domain, files)
    if task is not None:
        task.report(len(files) + 1, len(files) + 1, f"{len(starters)} starter cases")
    return Starters(tuple(starters), tuple(notes))


def _fresh(found: Sequence[tuple[StarterSource, Case]], tests: DomainTests | None, domain: Domain,
           files: Sequence) -> list[StarterCase]:
    """The starters the tests do not hold yet, each under a name no case has, each read back by the tests reader."""
    goals = {pf.name: str(Formula(pf.problem.goal)) for pf in files}
    held = {_meaning(c, goals) for c in tests.cases} if tests is not None else set()
    taken = set(tests.names) if tests is not None else set()
    out = []
    for source, case in found:
        if _meaning(case, goals) in held:
            continue
        name = case.name if case.name not in taken else free_case_name(case.name, taken)
        case = replace(case, name=name)
        try:
            parse_tests(case_toml(case), domain, files)
        except DrafterError:   # a starter the reader refuses is never offered (none should be)
            continue
        taken.add(name)
        out.append(StarterCase(name, source, case))
    return out


def _meaning(case: Case, goals: dict[str, str]) -> tuple:
    """What a case asks, apart from its name and words (no formula: its problem's goal): a starter that asks it
    again is not offered. A `never` case asks the same on any problem, whatever its variables are called."""
    if case.kind is CaseKind.NEVER and case.formula is not None:
        return case.kind, _shape(case.formula)
    formula = str(case.formula) if case.formula is not None else goals.get(case.problem)
    return case.kind, case.problem, formula, case.plan, case.action


def _shape(formula: Formula) -> tuple:
    """The formula with its literals in a fixed order and its variables renamed in order of appearance."""
    def pattern(lit: Literal) -> tuple:
        return (not lit.positive, lit.atom.predicate, tuple("?" if a.startswith("?") else a for a in lit.atom.args))

    names: dict[str, str] = {}
    out = []
    for lit in sorted(formula.literals, key=pattern):
        args = tuple(names.setdefault(a, f"?{len(names)}") if a.startswith("?") else a for a in lit.atom.args)
        if lit.atom.predicate == EQUALITY:
            args = tuple(sorted(args))
        out.append((lit.positive, lit.atom.predicate, args))
    return tuple(out)


def _never_cases(domain: Domain, inv: Invariant, problem: str) -> list[Case]:
    """`never` cases for two atoms of the group `inv` at once, one per pair of its parts (with itself, when
    the part has a counted argument: two values of it)."""
    names = _Names()
    key = [names.new(t) for t in inv.param_types]
    out = []
    parts = inv.parts
    for i, first in enumerate(parts):
        for second in parts[i:]:
            same = first is second
            if same and first.counted is None:
                continue              # one atom: it cannot hold twice
            if not same and first.predicate == second.predicate:
                continue              # the two could be one atom, and a conjunction cannot say they differ
            local = _Names(set(names.used))
            a, va = _atom(domain, first, key, local)
            b, vb = _atom(domain, second, key, local)
            literals = [Literal(a), Literal(b)]
            if same:
                literals.append(Literal(Atom(EQUALITY, (va, vb)), positive=False))
            label = f"two-{first.predicate}" if same else f"{first.predicate}-with-{second.predicate}"
            how = "exactly one" if inv.exactly_one else "at most one"
            out.append(Case(f"never-{label}", CaseKind.NEVER, problem, formula=Formula(tuple(literals)),
                            description=f"never {a} and {b} at once: {how} of {_group(inv, key)} holds"))
    return out


def _group(inv: Invariant, key: Sequence[str]) -> str:
    return ", ".join(p.text(key) for p in inv.parts)


def _atom(domain: Domain, part: Part, key: Sequence[str], names: _Names) -> tuple[Atom, str]:
    """The part's atom over the group's variables, a fresh variable in its counted place (returned too)."""
    counted = part.counted
    fresh = ""
    args = []
    for position, slot in enumerate(part.slots):
        if slot is not None:
            args.append(key[slot])
            continue
        sig = domain.predicate_map.get(part.predicate)
        kind = sig.parameters[position].type if sig is not None and position < sig.arity else "object"
        fresh = names.new(kind)
        args.append(fresh)
    assert counted is None or fresh
    return Atom(part.predicate, tuple(args)), fresh


class _Names:
    """Variable names from types, `?ball`, then `?ball2`, ... (never one taken)."""

    def __init__(self, used: set[str] | None = None):
        self.used = used if used is not None else set()

    def new(self, kind: str) -> str:
        word = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in kind.lower()).strip("-_")
        stem = f"?{word}" if word[:1].isalpha() else "?x"
        name, number = stem, 1
        while name in self.used:
            number += 1
            name = f"{stem}{number}"
        self.used.add(name)
        return name


def keep_starter(bundle: DomainBundle, starter: StarterCase) -> tuple[Path, str]:
    """Append the starter to the domain's writable tests file (a bundled domain's user copy), under a name no
    case of the file has now; the file written and the case's name."""
    tests = domain_tests_of(bundle)
    taken = set(tests.names) if tests is not None else set()
    case = starter.case if starter.id not in taken else replace(starter.case, name=free_case_name(starter.id, taken))
    return append_case_table(bundle, bundle.domain, case_toml(case)), case.name
