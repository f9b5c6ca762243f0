"""The judges of answers to one action, shared by Draft N, the search in feedback space and the New action flow.

With a reference, the proof (METHOD 6a) against the bundle's own action (`reference_judge`). Without
one (a new action in the user's own domain) `checks_judge`: the syntax and semantic checks against the
domain's vocabulary, which of the domain's problems stay solvable with the answer in place, and the
domain's tests (tests.toml, as the Tests tab finds it): how many cases pass, and the failing ones in
words (text.domain_tests.failures_in_words), which are the answer's feedback.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from domain_drafter.core.answers import CheckReport, check_answer
from domain_drafter.core.bundle import DomainBundle, ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import Domain, canonical_action
from domain_drafter.core.tasks import TaskState
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.planning.diagnosis import Reachability
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator
from domain_drafter.planning.kstar import KStarPlanner, PlannerStatus

SOLVE_STATE_BUDGET = 50_000       # states explored per problem before K* decides reachability
SOLVE_TIME_LIMIT_S = 2.0          # seconds of exploration per problem
TESTS_TIME_LIMIT_S = 2.0          # seconds per exploring case when the tests judge an answer
FEEDBACK_CASES = 3                # failing cases told in words
AGREEMENT_PEERS = 8               # agreement: the latest answers awaiting it, each proven against a new one


@dataclass(frozen=True)
class Judgement:
    """What the judge says of one answer: the verdict (with a reference) or the checks and solvable problems."""

    check: CheckReport
    evaluation: EvaluationResult | None = None
    solvable: tuple[bool | None, ...] = ()
    tests_passed: int = 0                 # without a reference: the domain's test cases (tests.toml) that pass
    tests_total: int = 0
    tests_words: tuple[str, ...] = ()     # the failing cases in words (the feedback they give)
    # what the answer's own domain can never do, per problem, where it was explored (drafting/feedback.explored):
    # the feedback's NoPlan words and landmarks and the search's dead answers read it, so it is explored once
    reach: tuple[Reachability, ...] | None = field(default=None, compare=False)
    findings: tuple = ()                  # without a reference: the invariant findings not dismissed (InvariantFinding)
    accept_untested: bool = False         # the blind judge (drafting/blind.py): a domain without tests can accept
    test_failures: tuple = field(default=(), compare=False)   # the failed cases (CaseResult), for drafting/nogoods.py
    # acceptance by agreement (the blind judge without tests): None, not asked; else the earlier answer proven
    # equivalent to this one ("" while none is), which an accepted answer needs
    agreed_with: str | None = None

    @property
    def subclass(self) -> Subclass | None:
        return self.evaluation.subclass if self.evaluation is not None else self.check.subclass

    @property
    def equivalent(self) -> bool:
        """Proven Equivalent (with a reference), or passing every check and solving every problem (without)."""
        if self.evaluation is not None:
            proof = self.evaluation.proof
            return self.evaluation.subclass is Subclass.EQUIVALENT and (proof is None or proof.proven)
        # no reference: the judge is the checks, the problems that must stay solvable, the domain tests and
        # the invariants the domain's other actions keep (planning/invariant_findings.py)
        return (self.check.passed and bool(self.solvable) and all(self.solvable)
                and (self.tests_total > 0 or self.accept_untested)
                and self.tests_passed == self.tests_total and not self.findings and self.agreed_with != "")

    @property
    def passes(self) -> bool:
        """Without a reference: accepted, or accepted but for a second answer to agree with it."""
        return replace(self, agreed_with=None).equivalent if self.agreed_with == "" else self.equivalent

    @property
    def fails_tests(self) -> bool:
        """Judged by the domain's tests (without a reference), and some case did not pass (failed or unproven)."""
        return self.tests_total > 0 and self.tests_passed < self.tests_total

    @property
    def score(self) -> float:
        """The agreement score (METHOD 6b) with a reference; the share of problems solvable without one."""
        if self.evaluation is not None:
            proof = self.evaluation.proof
            if proof is not None and proof.score is not None:
                return proof.score.value
            return 1.0 if self.evaluation.subclass is Subclass.EQUIVALENT else 0.0
        if not self.check.passed or not self.solvable:
            return 0.0
        solved = sum(1 for s in self.solvable if s)
        return (solved + self.tests_passed) / (len(self.solvable) + self.tests_total)

    @property
    def key(self) -> tuple:
        """Smaller is better: accepted, then passing but for agreement, then class rank, score and ARE."""
        subclass = self.subclass
        class_rank = subclass.result_class.rank if subclass is not None else -1
        are = self.evaluation.are.total if self.evaluation is not None and self.evaluation.are else 10**6
        return (not self.equivalent, not self.passes, -class_rank, -round(self.score, 12), are)

    @property
    def verdict(self) -> str:
        if self.subclass is None:
            return "no verdict" if self.evaluation is not None else "passed the checks"
        return self.subclass.value


class Judge(Protocol):
    """Judges one answer; `check`: its checks when the caller has run them already (the answer parsed once)."""

    def __call__(self, answer: str, check: CheckReport | None = None) -> Judgement: ...


def has_reference(bundle: DomainBundle, action: str) -> bool:
    """Can `action` be judged against a reference: the domain defines it (not a bare placeholder) and has problems."""
    schema = bundle.domain.action_map.get(action.lower())
    return schema is not None and bool(schema.precondition or schema.effect) and bool(bundle.problems)


def checked_verdict(solvable: Sequence[bool | None], tests_passed: int, tests_total: int) -> str:
    """`passed the checks, 2/3 problems solvable, 1 unknown, tests: 7 of 8 pass` (an answer without a reference)."""
    if not solvable:
        return "passed the checks"
    unknown = sum(1 for s in solvable if s is None)
    more = f", {unknown} unknown" if unknown else ""
    tests = f", tests: {tests_passed} of {tests_total} pass" if tests_total else ""
    return f"passed the checks, {sum(1 for s in solvable if s)}/{len(solvable)} problems solvable{more}{tests}"


def problems_solvable(domain: Domain, problems: Sequence[ProblemFile], *, planner: KStarPlanner | None = None,
                      budget: int = SOLVE_STATE_BUDGET, time_limit_s: float = SOLVE_TIME_LIMIT_S,
                      task: TaskState | None = None) -> tuple[bool | None, ...]:
    """Per problem: can `domain` reach its goal? By exploring its states; K* when that cannot finish (None: unknown)."""
    from domain_drafter.planning.grounding import Grounder, GroundingLimit
    from domain_drafter.planning.state_space import explore, goal_masks

    out: list[bool | None] = []
    domain_text: str | None = None
    for problem in problems:
        if task is not None:
            task.check_cancelled()
        verdict: bool | None = None
        try:
            grounder = Grounder(domain, problem.problem, domain.fluent_predicates)
            space, found = explore(grounder.ground_domain(domain), grounder.index, grounder.init_state(),
                                   budget=budget, deadline=time.perf_counter() + time_limit_s,
                                   goal=goal_masks(grounder.index, problem.problem.goal))
            verdict = True if found is not None else (False if space.complete else None)
        except GroundingLimit:
            verdict = None
        if verdict is None and planner is not None:
            domain_text = domain_text or domain.to_pddl()
            result = planner.plan(domain_text, problem.text, task=task, label=f"candidate/{problem.name}")
            verdict = {PlannerStatus.SOLVED: True, PlannerStatus.UNSOLVABLE: False}.get(result.status)
        out.append(verdict)
    return tuple(out)


def reference_judge(bundle: DomainBundle, action: str, evaluator: Evaluator,
                    task: TaskState | None = None) -> Judge:
    """Judge answers against the bundle's own action (the proof, METHOD 6a)."""
    def judge(answer: str, check: CheckReport | None = None) -> Judgement:
        result = evaluator.evaluate(bundle, action, answer, task=task, check=check)
        return Judgement(result.check, result)
    return judge


def checks_only_judge(bundle: DomainBundle, action: str) -> Judge:
    """Judge answers by the syntax and semantic checks against the domain's vocabulary alone."""
    def judge(answer: str, check: CheckReport | None = None) -> Judgement:
        return Judgement(check if check is not None else check_answer(answer, bundle.domain, action))
    return judge


def checks_judge(bundle: DomainBundle, action: str, evaluator: Evaluator, task: TaskState | None = None, *,
                 use_tests: bool = True, accept_untested: bool = False) -> Judge:
    """Judge answers with no reference: the checks, which of the domain's problems stay solvable, and the
    domain's tests (where it has a tests file and `use_tests`): the failing cases are the feedback. Answers
    equal up to renaming and order are judged once. `accept_untested`: without tests an answer can still be
    accepted (the blind judge's rule, drafting/blind.py)."""
    tests = domain_tests_of(bundle) if use_tests else None
    planner = KStarPlanner(k=1, time_limit_s=evaluator.planner.time_limit_s,
                           memory_limit_mb=evaluator.planner.memory_limit_mb, python=evaluator.planner.python)
    judged: dict[str, Judgement] = {}

    def judge(answer: str, check: CheckReport | None = None) -> Judgement:
        check = check if check is not None else check_answer(answer, bundle.domain, action)
        if not check.passed or check.action is None or not bundle.problems:
            return Judgement(check)
        key = canonical_action(check.action)
        if key not in judged:
            judged[key] = _judged(check, bundle.domain.with_action(check.action, replacing=action))
        return replace(judged[key], check=check)

    def _judged(check: CheckReport, domain: Domain) -> Judgement:
        solvable = problems_solvable(domain, bundle.problems, planner=planner, task=task)
        findings = invariant_findings_of(bundle, action, check)
        if tests is None:
            return Judgement(check, None, solvable, findings=findings, accept_untested=accept_untested)
        from domain_drafter.planning.domain_tests import run_tests
        from domain_drafter.planning.tests_report import TestSettings
        from domain_drafter.text.domain_tests import failures_in_words

        report = run_tests(domain, tests, settings=TestSettings(planner=False, time_limit_s=TESTS_TIME_LIMIT_S),
                           states=evaluator.states, task=task)
        passed = sum(1 for r in report.results if r.passed)
        return Judgement(check, None, solvable, passed, len(report.results),
                         tuple(failures_in_words(report, FEEDBACK_CASES)), findings=findings,
                         accept_untested=accept_untested, test_failures=report.failed)
    return judge


class AgreementJudge:
    """Acceptance by agreement (the blind judge without tests, drafting/blind.py): an answer that `judge` accepts
    is only a candidate ("awaiting agreement", `Judgement.agreed_with == ""`) until an answer written
    independently (another root's lineage of the search) that passes too is proven equivalent to it
    (`agrees`): the search asks, as only it knows the lineages (drafting/search.py)."""

    def __init__(self, judge: Judge, bundle: DomainBundle, action: str, evaluator: Evaluator,
                 task: TaskState | None = None):
        self.judge, self.bundle, self.action, self.evaluator, self.task = judge, bundle, action, evaluator, task

    def __call__(self, answer: str, check: CheckReport | None = None) -> Judgement:
        judgement = self.judge(answer, check)
        return replace(judgement, agreed_with="") if judgement.equivalent else judgement

    def agrees(self, peer: CheckReport, answer: str, check: CheckReport) -> bool:
        return agrees(self.bundle, self.action, self.evaluator, peer, answer, check, self.task)


def agrees(bundle: DomainBundle, action: str, evaluator: Evaluator, peer: CheckReport, answer: str,
           check: CheckReport, task: TaskState | None = None) -> bool:
    """Is the checked `answer` proven equivalent (METHOD 6a) to the checked `peer` answer put in place of `action`:
    one candidate against another, no reference."""
    assert peer.action is not None
    domain = bundle.domain.with_action(peer.action, replacing=action)
    result = evaluator.evaluate(replace(bundle, domain=domain, domain_text=domain.to_pddl()), action, answer,
                                task=task, check=check)
    return Judgement(result.check, result).equivalent


def invariant_findings_of(bundle: DomainBundle, action: str, check: CheckReport) -> tuple:
    """The invariant findings on the checked answer that the author has not dismissed for `action`."""
    from domain_drafter.core.dismissals import dismissed_for
    from domain_drafter.core.errors import DrafterError
    from domain_drafter.planning.invariant_findings import judge_action

    try:
        dismissed = dismissed_for(bundle, action)
    except DrafterError:
        dismissed = frozenset()            # a dismissals file that does not read dismisses nothing here
    return judge_action(bundle.domain, [p.problem for p in bundle.problems], action, check.action,
                        dismissed=dismissed).findings

