"""Prove a domain's tests (METHOD 6c): each case pass, fail (with validated evidence) or unproven (with why).

`run_tests(domain, tests)` is the one entry point. Cases that replay one plan (`plan`,
`plan_fails`, `applicable`, `not_applicable`, `effect`) are decided by the validator; cases over
all reachable states (`reachable`, `unreachable`, `never`) by the breadth-first exploration of the
proof engine (its grounding, and its state cache on disk), so evidence plans are shortest. Where
the exploration stops at its budget, the Fast Downward search decides: a plan, or a proof that
there is none; if neither finishes, the case is unproven and says how far the search got.
Every plan shown as evidence is checked by `PlanValidator` first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.domain_tests import EXPLORING_KINDS, Case, CaseKind, DomainTests, TestProblem
from domain_drafter.core.formulas import Formula
from domain_drafter.core.model import (
    EQUALITY,
    OBJECT,
    ActionSchema,
    Atom,
    Domain,
    Literal,
    PredicateSignature,
    Problem,
    TypedName,
)
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.counterexample import ProofError
from domain_drafter.planning.grounding import AtomIndex, Grounder, GroundingLimit
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.state_space import ReachableStates, explore
from domain_drafter.planning.tests_report import CaseResult, Evidence, TestSettings, TestsReport, Verdict
from domain_drafter.planning.validator import FailureKind, PlanValidation, PlanValidator

__all__ = ["CaseResult", "Evidence", "TestRunner", "TestSettings", "TestsReport", "Verdict", "formula_task",
           "run_tests", "variable_types"]

GOAL_ACTION = "dd-test-goal"
GOAL_PREDICATE = "dd-test-reached"
Step = tuple[str, ...]


def run_tests(domain: Domain, tests: DomainTests, *, domain_text: str | None = None,
              settings: TestSettings | None = None, states: StateCache | None = None, search=None,
              task: TaskState | None = None, cases: Sequence[str] | None = None,
              fail_fast: bool = False) -> TestsReport:
    """Every case of `tests` (or the named `cases`) on `domain`, in file order.

    `states` caches reachable states on disk (keyed by the domain and problem texts); `search` is a
    `FastDownwardSearch` to use past the state budget (default: one is made when needed). Progress
    goes to `task` (cases done of all), which can also cancel (Cancelled is raised). `fail_fast`: the
    cases the validator decides first, then the explored ones, stopping at the first failure (the
    report then holds only the cases run): for ranking many candidate domains quickly.
    """
    started = time.perf_counter()
    runner = TestRunner(domain, tests, domain_text=domain_text, settings=settings, states=states, search=search,
                        task=task)
    chosen = [c for c in tests.cases if cases is None or c.name in set(cases)]
    if fail_fast:
        chosen = [c for c in chosen if c.kind not in EXPLORING_KINDS] + [c for c in chosen if c.kind in EXPLORING_KINDS]
    results = []
    for number, case in enumerate(chosen):
        if task is not None:
            task.check_cancelled()
            task.report(number, len(chosen), f"case {case.name}")
        results.append(runner.run(case))
        if fail_fast and results[-1].verdict is Verdict.FAIL:
            break
    if task is not None:
        task.report(len(chosen), len(chosen), "done")
    return TestsReport(domain.name, tuple(results), time.perf_counter() - started)


def _show(step: Step) -> str:
    return f"({' '.join(step)})"


def _ground(atom: Atom, binding: dict[str, str]) -> Atom:
    return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def replay(domain: Domain, problem: Problem, plan: Sequence[Step]) -> frozenset[Atom]:
    """The state after an executable plan (deletes first, then adds, as the validator does)."""
    state = set(problem.init)
    for step in plan:
        action = domain.action_map[step[0]]
        binding = dict(zip(action.parameter_names, step[1:]))
        state -= {_ground(a, binding) for a in action.delete}
        state |= {_ground(a, binding) for a in action.add}
    return frozenset(state)


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


@dataclass
class TestRunner:
    """Runs cases of one tests file on one domain, keeping each problem's reachable states between cases."""

    __test__ = False

    domain: Domain
    tests: DomainTests
    domain_text: str | None = None
    settings: TestSettings | None = None
    states: StateCache | None = None
    search: object = None
    task: TaskState | None = None
    _spaces: dict = field(default_factory=dict)
    _validators: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.settings = self.settings or TestSettings()

    # ------------------------------------------------------------ plumbing

    def problem(self, case: Case) -> TestProblem:
        return self.tests.problems[case.problem]

    def validator(self, problem: Problem) -> PlanValidator:
        key = (problem.name, problem.objects, problem.init)
        found = self._validators.get(key)
        if found is None:
            found = self._validators[key] = PlanValidator(self.domain, replace(problem, goal=()))
        return found

    def validate(self, problem: Problem, plan: Sequence[Step], goal: Sequence[Literal] = ()) -> PlanValidation:
        validator = self.validator(problem)
        if not goal:
            return validator.validate(plan)
        return PlanValidator(self.domain, replace(problem, goal=tuple(goal))).validate(plan)

    def replay(self, problem: Problem, plan: Sequence[Step]) -> frozenset[Atom]:
        return replay(self.domain, problem, plan)

    def run(self, case: Case) -> CaseResult:
        started = time.perf_counter()
        method = {CaseKind.PLAN: self._plan, CaseKind.PLAN_FAILS: self._plan_fails,
                  CaseKind.APPLICABLE: self._action, CaseKind.NOT_APPLICABLE: self._action,
                  CaseKind.EFFECT: self._action}.get(case.kind, self._explored)
        result = method(case)
        return replace(result, elapsed_s=time.perf_counter() - started, line=case.line)

    def _result(self, case: Case, verdict: Verdict, message: str, evidence: Evidence | None = None,
                method: str = "validator", states: int = 0) -> CaseResult:
        return CaseResult(case.name, case.kind, verdict, message, evidence, method, states)

    def _state_words(self, problem: Problem, plan: Sequence[Step]) -> tuple[str, ...]:
        return tuple(str(a) for a in sorted(self.replay(problem, plan)))

    # ------------------------------------------------------------ one plan, by the validator

    def _plan(self, case: Case) -> CaseResult:
        tp = self.problem(case)
        goal = case.formula.literals if case.formula is not None else tp.problem.goal
        shown = tuple(_show(s) for s in case.plan)
        check = self.validate(tp.problem, case.plan, [g for g in goal if g.atom.predicate != EQUALITY] or ())
        goal_words = tuple(map(str, goal))
        if check.kind in (None, FailureKind.GOAL):
            state = self._state_words(tp.problem, case.plan)
            reached = check.valid
            evidence = Evidence(tp.name, shown, None, check.atoms, state, (), check, goal_words)
            if reached == case.reaches_goal:
                said = "reaches the goal" if reached else f"does not reach the goal ({' '.join(check.atoms)} unmet)"
                return self._result(case, Verdict.PASS, f"all {len(shown)} steps are executable and the plan {said}",
                                    evidence)
            if reached:
                return self._result(case, Verdict.FAIL, f"the plan must not reach the goal, but after its "
                                                        f"{len(shown)} steps {' '.join(goal_words)} holds", evidence)
            return self._result(case, Verdict.FAIL, check.message, evidence)
        step = check.step or 0
        evidence = Evidence(tp.name, shown[:step], step, check.atoms, self._state_words(tp.problem, case.plan[:step - 1]),
                            (), check, goal_words)
        return self._result(case, Verdict.FAIL, f"the plan must work, but {check.message}", evidence)

    def _plan_fails(self, case: Case) -> CaseResult:
        tp = self.problem(case)
        shown = tuple(_show(s) for s in case.plan)
        check = self.validate(tp.problem, case.plan)
        if check.valid:
            evidence = Evidence(tp.name, shown, None, (), self._state_words(tp.problem, case.plan), (), check)
            return self._result(case, Verdict.FAIL, f"the plan must fail, but all {len(shown)} steps are executable",
                                evidence)
        step = check.step or 0
        evidence = Evidence(tp.name, shown[:step], step, check.atoms,
                            self._state_words(tp.problem, case.plan[:step - 1]), (), check)
        if case.at_step is not None and step != case.at_step:
            return self._result(case, Verdict.FAIL, f"the plan must fail at step {case.at_step}, but {check.message}",
                                evidence)
        if case.precondition is not None and str(case.precondition) not in check.atoms:
            return self._result(case, Verdict.FAIL, f"the plan must fail on {case.precondition}, but {check.message}",
                                evidence)
        return self._result(case, Verdict.PASS, f"the plan fails as it must: {check.message}", evidence)

    def _action(self, case: Case) -> CaseResult:
        tp = self.problem(case)
        assert case.action is not None
        prefix = case.plan
        shown = tuple(_show(s) for s in (*prefix, case.action))
        before = self.validate(tp.problem, prefix)
        if not before.valid:
            evidence = Evidence(tp.name, shown[:before.step or 0], before.step, before.atoms,
                                self._state_words(tp.problem, prefix[:(before.step or 1) - 1]), (), before)
            return self._result(case, Verdict.FAIL, f"the steps before the action must be executable, but "
                                                    f"{before.message}", evidence)
        check = self.validate(tp.problem, (*prefix, case.action))
        state = self._state_words(tp.problem, prefix)
        step = len(prefix) + 1
        evidence = Evidence(tp.name, shown, step, check.atoms, state, (), check)
        action = _show(case.action)
        if case.kind is CaseKind.NOT_APPLICABLE:
            if check.valid:
                return self._result(case, Verdict.FAIL, f"{action} must not be applicable after "
                                                        f"{len(prefix)} steps, but it is", evidence)
            return self._result(case, Verdict.PASS, f"{action} is not applicable: {check.message}", evidence)
        if not check.valid:
            return self._result(case, Verdict.FAIL, f"{action} must be applicable, but {check.message}", evidence)
        if case.kind is CaseKind.APPLICABLE:
            return self._result(case, Verdict.PASS, f"{action} is applicable after {len(prefix)} steps", evidence)
        after = self.replay(tp.problem, (*prefix, case.action))
        wrong = [str(a) for a in case.holds if a not in after] + [f"(not {a})" for a in case.not_holds if a in after]
        evidence = replace(evidence, atoms=tuple(wrong), state=tuple(str(a) for a in sorted(after)))
        if wrong:
            return self._result(case, Verdict.FAIL, f"after {action}, {' '.join(wrong)} must hold, but "
                                                    f"{'does' if len(wrong) == 1 else 'do'} not", evidence)
        return self._result(case, Verdict.PASS, f"after {action}, the atoms hold as stated", evidence)

    # ------------------------------------------------------------ all reachable states

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
                atom = _ground(lit.atom, binding)
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
        ground = [Literal(_ground(lit.atom, binding), lit.positive) for lit in case.formula.literals
                  if lit.atom.predicate != EQUALITY]
        check = PlanValidator(self.domain, replace(tp.problem, goal=tuple(ground))).validate(plan)
        if not check.valid:
            raise ProofError(f"case {case.name}: the evidence plan {' '.join(map(_show, plan))} does not reach "
                             f"{' '.join(map(str, ground))} ({check.message}); this is a bug in Domain Drafter")
        return Evidence(tp.name, tuple(_show(s) for s in plan), None, tuple(map(str, ground)),
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


def variable_types(domain: Domain, formula: Formula) -> dict[str, list[str]]:
    """The types each variable must have: those of the predicate arguments it fills (a variable ranges over
    the objects that fit every place it is used; one used only in `=` ranges over all objects)."""
    out: dict[str, list[str]] = {v: [] for v in formula.variables}
    for lit in formula.literals:
        signature = domain.predicate_map.get(lit.atom.predicate)
        if signature is None:
            continue
        for arg, param in zip(lit.atom.args, signature.parameters):
            if arg in out and param.type not in out[arg]:
                out[arg].append(param.type)
    return out


def _parameter_type(domain: Domain, types: list[str]) -> str:
    """The most specific of `types` (all of them fit an object of it), for the planner task's parameter."""
    for t in types:
        if all(domain.types.is_subtype(t, other) for other in types):
            return t
    return types[0] if types else OBJECT


def formula_task(domain: Domain, problem: Problem, formula: Formula) -> tuple[Domain, Problem]:
    """The domain plus one action whose precondition is the formula (its variables its parameters): a plan
    to the new goal atom is a plan to a state satisfying the formula, for some binding of the variables."""
    types = variable_types(domain, formula)
    params = tuple(TypedName(v, _parameter_type(domain, types[v])) for v in formula.variables)
    goal = Literal(Atom(GOAL_PREDICATE))
    action = ActionSchema(GOAL_ACTION, params, formula.literals, (goal,))
    requirements = set(domain.requirements)
    if any(not lit.positive for lit in formula.literals):
        requirements.add("negative-preconditions")
    if any(lit.atom.predicate == EQUALITY for lit in formula.literals):
        requirements.add("equality")
    extended = Domain(domain.name, frozenset(requirements), domain.types, domain.constants,
                      (*domain.predicates, PredicateSignature(GOAL_PREDICATE, ())), (*domain.actions, action))
    return extended, replace(problem, domain_name=domain.name, goal=(goal,))
