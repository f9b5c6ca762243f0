"""Quick fixes for failing domain tests: the smallest edits to one action that make every case pass.

An edit adds or removes one atom over the action's parameters and the domain's predicates, in
the precondition, the add list or the delete list. Single edits are tried first, on the actions
the failing cases point at (the failing step's action first); pairs of edits only where no
single edit works. Each candidate domain is judged by the same prover as the tests themselves
(validator and exploration; the planner stays off so a fix is only offered when proven), with
the failing cases first so most candidates are rejected after one case. Nothing is written:
a fix is data (the edited action's PDDL and a diff); applying it is the caller's business, to a
working copy only. Do not offer these in benchmark mode, where the reference must not leak.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product

from domain_drafter.core.domain_tests import EXPLORING_KINDS, DomainTests
from domain_drafter.core.model import ActionSchema, Atom, Domain, Literal
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.domain_tests import TestRunner, TestSettings, TestsReport, Verdict, run_tests

PARTS = ("precondition", "add", "delete")
FIX_STATE_BUDGET = 2_000


@dataclass(frozen=True)
class Edit:
    """One atom added to or removed from one part of an action."""

    part: str                 # "precondition", "add" or "delete"
    change: str               # "add" or "remove"
    literal: Literal          # in the precondition a literal; in the add and delete lists the atom (positive)

    def __str__(self) -> str:
        where = {"precondition": "the precondition", "add": "the add list", "delete": "the delete list"}[self.part]
        return f"{self.change} {self.literal} {'to' if self.change == 'add' else 'from'} {where}"

    def to_dict(self) -> dict:
        return {"part": self.part, "change": self.change, "literal": str(self.literal)}


@dataclass(frozen=True)
class QuickFix:
    action: str
    edits: tuple[Edit, ...]
    action_pddl: str                      # the edited action, canonical PDDL
    diff: str                             # unified diff of the action, before -> after
    domain: Domain = field(compare=False, repr=False)   # the whole edited domain
    report: TestsReport | None = field(default=None, compare=False, repr=False)   # every case passing on it

    @property
    def summary(self) -> str:
        return f"{self.action}: " + "; ".join(map(str, self.edits))

    def to_dict(self) -> dict:
        return {"action": self.action, "edits": [e.to_dict() for e in self.edits], "summary": self.summary,
                "action_pddl": self.action_pddl, "diff": self.diff}


@dataclass(frozen=True)
class QuickFixSearch:
    """The fixes found and how the search went (for the measurements and for saying why there are none)."""

    fixes: tuple[QuickFix, ...]
    candidates: int                       # edited domains judged
    elapsed_s: float
    complete: bool                        # False: the time limit stopped the search
    first_fix_s: float | None = None      # when the first fix was found

    def to_dict(self) -> dict:
        return {"fixes": [f.to_dict() for f in self.fixes], "candidates": self.candidates,
                "elapsed_s": round(self.elapsed_s, 4), "complete": self.complete,
                "first_fix_s": round(self.first_fix_s, 4) if self.first_fix_s is not None else None}


def apply_edits(action: ActionSchema, edits: Sequence[Edit]) -> ActionSchema:
    pre, eff = list(action.precondition), list(action.effect)
    for edit in edits:
        target = pre if edit.part == "precondition" else eff
        literal = edit.literal if edit.part == "precondition" else Literal(edit.literal.atom, edit.part == "add")
        if edit.change == "add":
            target.append(literal)
        else:
            target.remove(literal)
    return ActionSchema(action.name, action.parameters, tuple(pre), tuple(eff))


def candidate_edits(domain: Domain, action: ActionSchema) -> list[Edit]:
    """Every single edit of `action`: removals first (as written), then additions over its parameters."""
    edits = [Edit("precondition", "remove", lit) for lit in action.precondition]
    edits += [Edit("add" if lit.positive else "delete", "remove", Literal(lit.atom)) for lit in action.effect]
    negative = domain.has_requirement("negative-preconditions")
    pre, add, delete = set(action.precondition), action.add, action.delete
    for atom in _atoms_over(domain, action):
        if Literal(atom) not in pre and Literal(atom, False) not in pre:
            edits.append(Edit("precondition", "add", Literal(atom)))
            if negative:
                edits.append(Edit("precondition", "add", Literal(atom, False)))
        if atom not in add and atom not in delete:
            edits.append(Edit("add", "add", Literal(atom)))
            edits.append(Edit("delete", "add", Literal(atom)))
    return edits


def _atoms_over(domain: Domain, action: ActionSchema) -> list[Atom]:
    """Atoms of the domain's predicates over the action's parameters (types fitting), distinct arguments first."""
    out: list[Atom] = []
    for signature in domain.predicates:
        choices = [[p.name for p in action.parameters if domain.types.is_subtype(p.type, q.type)]
                   for q in signature.parameters]
        for args in product(*choices):
            out.append(Atom(signature.name, tuple(args)))
    return sorted(out, key=lambda a: len(set(a.args)) != len(a.args))


def _diff(before: ActionSchema, after: ActionSchema) -> str:
    lines = difflib.unified_diff(before.to_pddl().splitlines(), after.to_pddl().splitlines(),
                                 f"a/{before.name}", f"b/{after.name}", lineterm="", n=6)
    return "\n".join(lines) + "\n"


def implicated_actions(domain: Domain, tests: DomainTests, report: TestsReport) -> list[str]:
    """The actions the failing cases point at: each failing step's action first, then the cases' other steps."""
    first: list[str] = []
    rest: list[str] = []
    for result in (*report.failed, *report.unproven):
        case = tests.case(result.name)
        evidence = result.evidence
        if evidence is not None and evidence.step is not None and evidence.plan:
            first.append(evidence.plan[min(evidence.step, len(evidence.plan)) - 1].strip("()").split()[0])
        if evidence is not None:
            rest += [s.strip("()").split()[0] for s in evidence.plan]
        rest += list(case.actions)
    rest += [a.name for a in domain.actions]   # a reachable case that fails may blame any action
    return [a for a in dict.fromkeys(first + rest) if a in domain.action_map]


def quick_fixes(domain: Domain, tests: DomainTests, *, report: TestsReport | None = None,
                actions: Sequence[str] | None = None, max_edits: int = 2, limit: int = 3,
                time_limit_s: float = 2.0, settings: TestSettings | None = None,
                task: TaskState | None = None) -> QuickFixSearch:
    """Up to `limit` smallest edits of one action (of `actions`, default the implicated ones) after which every
    case of `tests` passes on `domain`. `report` is the tests' report on `domain` (computed if not given)."""
    started = time.perf_counter()
    deadline = started + time_limit_s
    # A candidate is offered only when proven: no planner, and a budget far above the bundled problems' spaces
    # (at most a few hundred states); a candidate whose problem has more is not offered.
    settings = settings or TestSettings(state_budget=FIX_STATE_BUDGET, first_budget=128,
                                        time_limit_s=max(0.2, time_limit_s / 4), planner=False)
    report = report or run_tests(domain, tests, settings=settings)
    failing = [r.name for r in report.results if r.verdict is not Verdict.PASS]
    if not failing:
        return QuickFixSearch((), 0, time.perf_counter() - started, True)
    order = _case_order(tests, failing)
    names = list(actions) if actions is not None else implicated_actions(domain, tests, report)
    fixes: list[QuickFix] = []
    judged = 0
    promising: dict[str, list[Edit]] = {}
    found_at: list[float] = []

    def judge(name: str, edits: tuple[Edit, ...]) -> bool | None:
        """True: every case passes; False: some fails; None: it fixed a failing case but broke another."""
        nonlocal judged
        judged += 1
        action = domain.action_map[name]
        edited = apply_edits(action, edits)
        candidate = domain.with_action(edited)
        runner = TestRunner(candidate, tests, settings=settings)
        results = []
        for number, case in enumerate(order):
            result = runner.run(case)
            if result.verdict is not Verdict.PASS:
                return None if number > 0 and order[0].name in failing else False
            results.append(result)
        by_name = {r.name: r for r in results}
        full = TestsReport(domain.name, tuple(by_name[c.name] for c in tests.cases))
        fixes.append(QuickFix(name, edits, edited.to_pddl(), _diff(action, edited), candidate, full))
        found_at.append(time.perf_counter() - started)
        return True

    singles = {name: rank_edits(candidate_edits(domain, domain.action_map[name]), domain.action_map[name], report) for name in names}
    complete = True
    for name in names:
        for edit in singles[name]:
            if task is not None:
                task.check_cancelled()
            if time.perf_counter() > deadline or len(fixes) >= limit:
                complete = time.perf_counter() <= deadline
                break
            if judge(name, (edit,)) is None:
                promising.setdefault(name, []).append(edit)
    if not fixes and max_edits >= 2 and time.perf_counter() <= deadline:
        for name in names:
            for first in promising.get(name, []):
                for second in singles[name]:
                    if second == first or _clash(first, second):
                        continue
                    if task is not None:
                        task.check_cancelled()
                    if time.perf_counter() > deadline or len(fixes) >= limit:
                        complete = time.perf_counter() <= deadline
                        break
                    judge(name, (first, second))
    return QuickFixSearch(tuple(fixes), judged, time.perf_counter() - started, complete,
                          found_at[0] if found_at else None)


def rank_edits(edits: list[Edit], action: ActionSchema, report: TestsReport) -> list[Edit]:
    """The edits the failing cases' evidence points at first (stable otherwise).

    The evidence names a step (a ground action) and atoms: the failed precondition, the atom an
    effect got wrong, the ground formula a never-state satisfies, and the state before the step.
    An edit whose atom, bound by that step, is one of those atoms comes first; one whose bound atom
    is false in that state next (a precondition that would block a step that must not happen).
    """
    hints: dict[str, tuple[set[str], set[str]]] = {}
    for result in (*report.failed, *report.unproven):
        evidence = result.evidence
        if evidence is None or not evidence.plan:
            continue
        index = (evidence.step or len(evidence.plan)) - 1
        step = evidence.plan[min(index, len(evidence.plan) - 1)].strip("()").split()
        named, state = hints.setdefault(" ".join(step), (set(), set()))
        named.update(a.removeprefix("(not ").removesuffix(")") if a.startswith("(not ") else a
                     for a in evidence.atoms)
        if evidence.step is not None:
            state.update(evidence.state)
    if not hints:
        return edits

    def rank(edit: Edit) -> int:
        best = 3
        for words, (named, state) in hints.items():
            name, *args = words.split()
            if name != action.name:
                continue
            binding = dict(zip(action.parameter_names, args))
            atom = f"({' '.join([edit.literal.atom.predicate, *(binding.get(a, a) for a in edit.literal.atom.args)])})"
            if atom in named:
                best = min(best, 0)
            elif edit.part == "precondition" and edit.change == "add" and (atom in state) != edit.literal.positive:
                best = min(best, 1)
            elif atom in state:
                best = min(best, 2)
        return best

    return sorted(edits, key=rank)


def _clash(a: Edit, b: Edit) -> bool:
    return a.literal.atom == b.literal.atom and a.part == b.part


def _case_order(tests: DomainTests, failing: Sequence[str]):
    """The failing cases first, then the ones the validator decides, then the explored ones."""
    first = [tests.case(n) for n in failing]
    rest = [c for c in tests.cases if c.name not in set(failing)]
    return first + [c for c in rest if c.kind not in EXPLORING_KINDS] + [c for c in rest if c.kind in EXPLORING_KINDS]


__all__ = ["Edit", "QuickFix", "QuickFixSearch", "apply_edits", "candidate_edits", "implicated_actions",
           "quick_fixes", "rank_edits"]
