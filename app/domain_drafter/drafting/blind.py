"""Blind drafting: an action judged as if its reference did not exist (issue 37, part 2).

The author of a new action has its name, its parameters and its description, the domain's other
actions, its problems and its tests, and nothing else. `blind_setup` gives the search exactly that:
the bundle with the action's body hidden (its precondition and effect emptied, its header kept so
the prompt and the grammar still know its signature), the checks judge over that bundle, and the
search options with the feedback forced to `checks` (no distinguishing state, no landmark of the
reference) and without `forbid_removed` (it reads the reference's distinguishing state), but with
`forbid_learned`: a precondition literal that a test case's plan shows false where the action must apply is
refused to every later call (drafting/nogoods.py); guided blind search keeps `refuse_judged` too.

Acceptance rule (the blind judge's `Judgement.equivalent`): an answer is accepted when
- it passes the syntax and semantic checks against the domain's vocabulary;
- every problem of the domain stays solvable with the answer in place;
- no undismissed invariant finding holds of it (breaks-invariant, never-applies, changes-nothing,
  changes-fixed-relation, undoes-goal, adds-nothing, overlaps,
  treats-alike-differently, bypasses; planning/invariant_findings.py);
- every case of the domain's tests passes, when the domain has a tests file;
- without tests (no tests file, or `use_tests` False): another answer agrees with it, written independently
  (from another root of the search, so not its parent's revision) and passing too, and the same answer or
  proven equivalent to it, one candidate against the other (drafting/judges.AgreementJudge). Why: without
  tests the first three accept answers that are wrong in ways no invariant sees (a missing or an extra
  precondition: 19 of 57 accepted answers over 1,134 answers models wrote here, 33%); two independent answers
  that agree are wrong together less often (4 of 31, 13%: tests/perf/measure_agreement.py).
Among answers not accepted the ranking is the checks judge's key: passing the checks first, then
the share of problems solvable and test cases passed.

After the search the reference may judge the returned answer, but for the report only
(`reference_verdict`): it never steers the search.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.tasks import TaskState
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.drafting.judges import AgreementJudge, Judge, Judgement, checks_judge, reference_judge
from domain_drafter.drafting.options import Feedback, SearchOptions
from domain_drafter.planning.evaluate import Evaluator


@dataclass(frozen=True)
class BlindSetup:
    """What a blind search runs with: the bundle with the action's body hidden, its judge and options."""

    bundle: DomainBundle
    judge: Judge
    options: SearchOptions


def hidden_bundle(bundle: DomainBundle, action: str) -> DomainBundle:
    """The bundle with `action`'s precondition and effect emptied: its header (name, parameters) and
    description stay, as an author drafting it would know them."""
    action = bundle.require_action(action)
    schema = bundle.domain.action(action)
    domain = bundle.domain.with_action(replace(schema, precondition=(), effect=()))
    return replace(bundle, domain=domain, domain_text=domain.to_pddl())


def blind_options(options: SearchOptions) -> SearchOptions:
    """The search options a blind search runs with: checks feedback, no `forbid_removed` (it reads the
    reference), and `forbid_learned` (what the tests showed no acceptable answer holds) under the grammar."""
    return replace(options, feedback=Feedback.CHECKS, forbid_removed=False, forbid_learned=True)


def blind_setup(bundle: DomainBundle, action: str, evaluator: Evaluator, options: SearchOptions,
                task: TaskState | None = None, *, use_tests: bool = True) -> BlindSetup:
    """The hidden bundle, the checks judge over it, and the blind options (see the module's docstring).
    `use_tests` False: the domain's tests file is left out (the checks, solvability and invariants only)."""
    hidden = hidden_bundle(bundle, action)
    judge = checks_judge(hidden, action, evaluator, task, use_tests=use_tests, accept_untested=True)
    if not use_tests or domain_tests_of(hidden) is None:
        judge = AgreementJudge(judge, hidden, action, evaluator, task)
    return BlindSetup(hidden, judge, blind_options(options))


def acceptance_words(judgement: Judgement | None) -> str:
    """What the blind judge said of the returned answer, in words (the CLI prints it; `draft-domain` too)."""
    if judgement is None or not judgement.passes:
        return "not accepted"
    if judgement.agreed_with == "":
        return "not accepted: it passes, but no answer from another root agreed (without tests, two must)"
    return "accepted: an independent answer agrees" if judgement.agreed_with else "accepted"


def reference_verdict(bundle: DomainBundle, action: str, answer: str, evaluator: Evaluator,
                      task: TaskState | None = None):
    """The reference's judgement of the returned answer: for the report only."""
    return reference_judge(bundle, action, evaluator, task)(answer)
