"""Prove a domain's tests (METHOD 6c): each case pass, fail (with validated evidence) or unproven (with why).

`run_tests(domain, tests)` is the one entry point. Cases that replay one plan (`plan`,
`plan_fails`, `applicable`, `not_applicable`, `effect`) are decided by the validator, here in
`TestRunner`; cases over all reachable states (`reachable`, `unreachable`, `never`) by the
breadth-first exploration of the proof engine (its grounding, and its state cache on disk), so
evidence plans are shortest: that half of the runner lives in `tests_exploration.py`. Where the
exploration stops at its budget, the Fast Downward search decides: a plan, or a proof that there is
none; if neither finishes, the case is unproven and says how far the search got. Every plan shown as
evidence is checked by `PlanValidator` first. Replaying a plan and a formula's planner task are in
`formula_tasks.py` (re-exported here).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from domain_drafter.core.domain_tests import EXPLORING_KINDS, Case, CaseKind, DomainTests, Step, TestProblem, show_step
from domain_drafter.core.model import EQUALITY, Atom, Domain, Literal, Problem
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.formula_tasks import formula_task, replay, variable_types
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.tests_exploration import ExploringCases
from domain_drafter.planning.tests_report import CaseResult, Evidence, TestSettings, TestsReport, Verdict
from domain_drafter.planning.validator import FailureKind, PlanValidation, PlanValidator

__all__ = ["CaseResult", "Evidence", "TestRunner", "TestSettings", "TestsReport", "Verdict", "formula_task",
           "replay", "run_tests", "variable_types"]


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


@dataclass
class TestRunner(ExploringCases):
    """Runs cases of one tests file on one domain, keeping each problem's reachable states between cases.

    The one-plan cases are decided here; the explored ones by `ExploringCases` (tests_exploration.py)."""

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
        shown = tuple(show_step(s) for s in case.plan)
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
        shown = tuple(show_step(s) for s in case.plan)
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
        shown = tuple(show_step(s) for s in (*prefix, case.action))
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
        action = show_step(case.action)
        if case.kind is CaseKind.NOT_APPLICABLE:
            if check.valid:
                return self._result(case, Verdict.FAIL, f"{action} must not be applicable after "
                                                        f"{len(prefix)} steps, but it is", evidence)
            return self._result(case, Verdict.PASS, f"{action} is not applicable: {check.message}", evidence)
        if not check.valid:
            return self._result(case, Verdict.FAIL, f"{action} must be applicable, but {check.message}", evidence)
        if case.kind is CaseKind.APPLICABLE:
            return self._result(case, Verdict.PASS, f"{action} is applicable after {len(prefix)} step{'' if len(prefix) == 1 else 's'}", evidence)
        after = self.replay(tp.problem, (*prefix, case.action))
        wrong = [str(a) for a in case.holds if a not in after] + [f"(not {a})" for a in case.not_holds if a in after]
        evidence = replace(evidence, atoms=tuple(wrong), state=tuple(str(a) for a in sorted(after)))
        if wrong:
            return self._result(case, Verdict.FAIL, f"after {action}, {' '.join(wrong)} must hold, but "
                                                    f"{'does' if len(wrong) == 1 else 'do'} not", evidence)
        return self._result(case, Verdict.PASS, f"after {action}, the atoms hold as stated", evidence)
