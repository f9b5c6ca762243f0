"""The tests' cases over all reachable states (`reachable`, `unreachable`, `never`), mixed into `TestRunner`.

Each problem's states are explored breadth-first (so evidence plans are shortest), growing the budget
round by round and sharing the exploration between cases and, through the state cache, between runs.
A state that satisfies some grounding of the case's formula is the evidence (its plan validated
first); a complete exploration without one is a proof. Past the state budget, Fast Downward decides
on the formula's planner task (`formula_tasks.formula_task`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.domain_tests import Case, CaseKind, DomainTests, Step, TestProblem, show_step
from domain_drafter.core.formulas import Formula
from domain_drafter.core.model import EQUALITY, Domain, Literal, Problem
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.counterexample import ProofError
from domain_drafter.planning.formula_tasks import GOAL_ACTION, formula_task, ground_atom, variable_types
from domain_drafter.planning.grounding import AtomIndex, Grounder, GroundingLimit
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.state_space import ReachableStates, explore
from domain_drafter.planning.tests_report import CaseResult, Evidence, TestSettings, Verdict
from domain_drafter.planning.validator import PlanValidator


@dataclass
class _Space:
    space: ReachableStates
    index: AtomIndex
    stopped: str = ""                     # why the exploration is over without being complete
    grounder: Grounder | None = None
    actions: list | None = None


def _first_match(states: list[int], start: int, bindings) -> tuple[int, dict] | None:
    """The first state from `start` on (breadth-first: the shallowest) that satisfies some binding."""
    best: tuple[int, dict] | None = None
    for binding, pos, neg in bindings:
        limit = len(states) if best is None else best[0]
        for n in range(start, limit):
            s = states[n]
            if s & pos == pos and not s & neg:
                best = (n, binding)
                break
        if best is not None and best[0] == start:
            break
    return best


class ExploringCases:
    """The explored half of `TestRunner`: it provides the attributes below, `problem`, `_result` and `_state_words`."""

    domain: Domain
    tests: DomainTests
    domain_text: str | None
    settings: TestSettings
    states: StateCache | None
    search: object
    task: TaskState | None
    _spaces: dict

    if TYPE_CHECKING:
        def problem(self, case: Case) -> TestProblem: ...

        def _result(self, case: Case, verdict: Verdict, message: str, evidence: Evidence | None = None,
                    method: str = "validator", states: int = 0) -> CaseResult: ...

        def _state_words(self, problem: Problem, plan: Sequence[Step]) -> tuple[str, ...]: ...

    def space(self, case: Case, budget: int) -> _Space:
        """The problem's reachable states, breadth-first, at least `budget` of them where there are so many.

        Explorations grow by re-running with a larger budget (breadth-first order is deterministic, so
        the first states are the same): a case broken near the initial state costs only those states.
        A complete exploration (or one stopped at the full budget) goes to the state cache on disk.
        """
        settings = self.settings
        budget = min(budget, settings.state_budget)
        found = self._spaces.get(case.problem)
        if found is not None and (found.space.complete or found.stopped or len(found.space.states) >= budget):
            return found
        tp = self.problem(case)
        cache_key = None
        if found is None and self.states is not None:
            text = self.domain_text if self.domain_text is not None else self.domain.to_pddl()
            cache_key = StateCache.key(text, tp.text)
            cached = self.states.get(cache_key, settings.state_budget)
            if cached is not None:
                found = self._spaces[case.problem] = _Space(cached, AtomIndex(cached.atoms), cached.stopped)
                return found
        try:
            if found is None or found.grounder is None:
                grounder = Grounder(self.domain, tp.problem, self.domain.fluent_predicates)
                actions = grounder.ground_domain(self.domain)
            else:
                grounder, actions = found.grounder, found.actions
            space, _ = explore(actions, grounder.index, grounder.init_state(), budget=budget,
                               deadline=time.perf_counter() + settings.time_limit_s)
        except GroundingLimit as err:
            space = ReachableStates([], [0], [-1], [""], False, str(err))
            found = self._spaces[case.problem] = _Space(space, AtomIndex(), str(err))
            return found
        stopped = "" if space.complete else space.stopped
        if stopped.startswith("state budget") and budget < settings.state_budget:
            stopped = ""   # only this round's budget: the next round explores further
        found = self._spaces[case.problem] = _Space(space, grounder.index, stopped, grounder, actions)
        if self.states is not None and (space.complete or budget >= settings.state_budget):
            text = self.domain_text if self.domain_text is not None else self.domain.to_pddl()
            self.states.put(cache_key or StateCache.key(text, tp.text), space)
        return found

    def _bindings(self, formula: Formula, problem: Problem, index: AtomIndex):
        """(binding, positive mask, negative mask) of each grounding that some state could satisfy."""
        variables = formula.variables
        objects = {**{c.name: c.type for c in self.domain.constants}, **{o.name: o.type for o in problem.objects}}
        types = variable_types(self.domain, formula)
        choices = [sorted(o for o, t in objects.items() if all(self.domain.types.is_subtype(t, w) for w in types[v]))
                   for v in variables]
        known = index.ids
        for values in product(*choices):
            binding = dict(zip(variables, values))
            pos = neg = 0
            possible = True
            for lit in formula.literals:
                atom = ground_atom(lit.atom, binding)
                if atom.predicate == EQUALITY:
                    if (atom.args[0] == atom.args[1]) != lit.positive:
                        possible = False
                        break
                    continue
                bit = known.get((atom.predicate, *atom.args))
                if bit is None:
                    if lit.positive:
                        possible = False
                        break
                    continue
                if lit.positive:
                    pos |= 1 << bit
                else:
                    neg |= 1 << bit
            if possible and not pos & neg:
                yield binding, pos, neg

    def _explored(self, case: Case) -> CaseResult:
        tp = self.problem(case)
        assert case.formula is not None
        best: tuple[int, dict] | None = None
        scanned = 0
        budget = self.settings.first_budget
        bindings = None
        while True:
            explored = self.space(case, budget)
            space = explored.space
            states = space.states
            if bindings is None or explored.index is not bindings[0]:
                bindings = (explored.index, list(self._bindings(case.formula, tp.problem, explored.index)))
            best = _first_match(states, scanned, bindings[1])
            scanned = len(states)
            if best is not None or space.complete or explored.stopped or budget >= self.settings.state_budget:
                break
            if self.task is not None:
                self.task.check_cancelled()
            budget *= 8
        count = len(states)
        if best is not None:
            n, binding = best
            plan = tuple(tuple(s.strip("()").split()) for s in space.prefix(n))
            evidence = self._checked(case, tp, plan, binding)
            return self._found(case, evidence, "exploration", count,
                               f"{'state ' + str(n) if n else 'the initial state'} of the {count} explored")
        what = _formula_words(case)
        if space.complete:
            if case.kind is CaseKind.REACHABLE:
                return self._result(case, Verdict.FAIL, f"no reachable state satisfies {what}: all {count} "
                                                        f"reachable states of {tp.name} explored", None,
                                    "exploration", count)
            return self._result(case, Verdict.PASS, f"proven: none of the {count} reachable states of {tp.name} "
                                                    f"satisfies {what}", None, "exploration", count)
        reason = explored.stopped or space.stopped or "stopped"
        return self._planned(case, tp, f"{reason} after {count} states", count)

    def _found(self, case: Case, evidence: Evidence, method: str, count: int, where: str) -> CaseResult:
        what = _formula_words(case)
        steps = len(evidence.plan)
        if case.kind is CaseKind.REACHABLE:
            return self._result(case, Verdict.PASS, f"{what} is reached by a plan of {steps} steps ({where})",
                                evidence, method, count)
        said = "must never hold, but holds" if case.kind is CaseKind.NEVER else "must be unreachable, but is reached"
        return self._result(case, Verdict.FAIL, f"{what} {said} after {steps} step{'s' if steps != 1 else ''} "
                                                f"({where})", evidence, method, count)

    def _checked(self, case: Case, tp: TestProblem, plan: tuple[Step, ...], binding: dict) -> Evidence:
        """The evidence plan, validated: it must reach the ground formula, or it is a bug."""
        assert case.formula is not None
        ground = [Literal(ground_atom(lit.atom, binding), lit.positive) for lit in case.formula.literals
                  if lit.atom.predicate != EQUALITY]
        check = PlanValidator(self.domain, replace(tp.problem, goal=tuple(ground))).validate(plan)
        if not check.valid:
            raise ProofError(f"case {case.name}: the evidence plan {' '.join(map(show_step, plan))} does not reach "
                             f"{' '.join(map(str, ground))} ({check.message}); this is a bug in Domain Drafter")
        return Evidence(tp.name, tuple(show_step(s) for s in plan), None, tuple(map(str, ground)),
                        self._state_words(tp.problem, plan), tuple(sorted(binding.items())), check,
                        tuple(map(str, ground)))

    def _planned(self, case: Case, tp: TestProblem, stopped: str, count: int) -> CaseResult:
        """Past the state budget: Fast Downward finds a plan to the formula or proves there is none."""
        if not self.settings.planner:
            return self._result(case, Verdict.UNPROVEN, f"unproven: the exploration stopped ({stopped}) and the "
                                                        "planner is off", None, "exploration", count)
        from domain_drafter.planning.fd_search import GOAL_SEARCH, FastDownwardSearch
        from domain_drafter.planning.kstar import PlannerStatus
        from domain_drafter.planning.kstar_input import kstar_input

        assert case.formula is not None
        domain, problem = formula_task(self.domain, tp.problem, case.formula)
        texts = kstar_input(domain, domain, [ProblemFile(tp.name, tp.path or Path(tp.name), problem.to_pddl(), problem)])
        base = self.search
        planner = FastDownwardSearch(time_limit_s=self.settings.time_limit_s, search=GOAL_SEARCH,
                                     **({"python": base.python} if base is not None else {}))
        result = planner.plan(texts.generated, texts.problems[0], task=self.task, label=f"tests/{case.name}")
        if result.status is PlannerStatus.SOLVED and result.plans:
            steps = [tuple(s) for s in result.plans[0]]
            last = next((i for i, s in enumerate(steps) if s[0] == GOAL_ACTION), None)
            if last is None:
                raise ProofError(f"case {case.name}: Fast Downward's plan does not end in {GOAL_ACTION}")
            binding = dict(zip(case.formula.variables, steps[last][1:]))
            evidence = self._checked(case, tp, tuple(steps[:last]), binding)
            return self._found(case, evidence, "planner", count, f"found by Fast Downward; exploration {stopped}")
        if result.status is PlannerStatus.UNSOLVABLE:
            what = _formula_words(case)
            if case.kind is CaseKind.REACHABLE:
                return self._result(case, Verdict.FAIL, f"no plan reaches {what}: {result.message} (exploration "
                                                        f"{stopped})", None, "planner", count)
            return self._result(case, Verdict.PASS, f"proven: {result.message}; no reachable state satisfies "
                                                    f"{what} (exploration {stopped})", None, "planner", count)
        if self.task is not None:
            self.task.check_cancelled()
        return self._result(case, Verdict.UNPROVEN, f"unproven: the exploration stopped ({stopped}) and "
                                                    f"{result.message}", None, "planner", count)


def _formula_words(case: Case) -> str:
    return str(case.formula)
