"""A new action without a reference: add it to a copy of gripper, draft it, check it, try it (real K*)."""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.errors import DomainError, UsageError
from domain_drafter.core.model import TypedName
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.new_action import draft_new_action, new_action_prompt, try_action
from domain_drafter.drafting.workspace import NewActionSpec, WorkingCopy
from domain_drafter.planning.kstar import KStarPlanner

# carry a ball to the next room and put it down there, in one action
TRANSFER = NewActionSpec(
    "transfer", (TypedName("?obj", "ball"), TypedName("?from", "room"), TypedName("?to", "room"),
                 TypedName("?g", "gripper")),
    "The robot carries ball {obj} in gripper {g} from room {from} to room {to} and puts it down there.",
    conditions="The robot must be in room {from}.")
TRANSFER_PDDL = """(:action transfer
  :parameters (?obj - ball ?from - room ?to - room ?g - gripper)
  :precondition (and (at-robby ?from) (carry ?obj ?g))
  :effect (and (at-robby ?to) (not (at-robby ?from)) (at ?obj ?to) (free ?g) (not (carry ?obj ?g))))"""


@pytest.fixture
def copy(bundles, tmp_path):
    copy = WorkingCopy.from_bundle(bundles["gripper"])
    copy.save(tmp_path / "gripper-plus")
    copy.add_action(TRANSFER)
    return copy


def test_the_prompt_describes_the_new_action_from_its_signature_and_words(copy):
    prompt = new_action_prompt(copy, "transfer", load_bundled())
    assert prompt.description.startswith('The action "transfer" takes 4 parameters: ?obj of type ball')
    assert "from room ?from to room ?to and puts it down there. The robot must be in room ?from." in prompt.description
    assert prompt.text.endswith("PDDL Action:\n") and "(carry ?obj - ball ?g - gripper)" in prompt.text
    assert all(e.domain != "gripper" for e in prompt.examples)


def test_the_tiny_model_drafts_it_and_the_checks_use_the_vocabulary(copy, tiny_backend):
    draft = draft_new_action(copy, "transfer", tiny_backend, load_bundled())
    # random weights write no valid action; what matters is that it was checked and recorded
    assert draft.check.result_class in (ResultClass.SYNTAX_ERROR, ResultClass.SEMANTIC_ERROR)
    assert copy.entry("transfer").attempts[-1].subclass == draft.check.subclass.value
    constrained = draft_new_action(copy, "transfer", tiny_backend, load_bundled(), DraftOptions(grammar=True))
    assert constrained.check.passed, constrained.check.findings  # the grammar knows the new action's signature
    assert constrained.check.action.parameters == TRANSFER.parameters
    assert len(WorkingCopy.open(copy.folder).entry("transfer").attempts) == 2   # saved as they came


def test_vocabulary_checks_name_what_the_domain_lacks(copy):
    report = copy.check("transfer", TRANSFER_PDDL.replace("(free ?g)", "(empty ?g)"))
    assert not report.passed and report.findings[0].reason == "undefined-predicate"
    with pytest.raises(DomainError, match="cannot try"):
        try_action(copy, "transfer", KStarPlanner(), text=TRANSFER_PDDL.replace("?obj - ball", "?obj - bowl"))
    with pytest.raises(UsageError, match="no accepted"):
        try_action(copy, "transfer", KStarPlanner())


def test_try_it_shows_whether_and_where_plans_use_it(copy):
    copy.accept("transfer", TRANSFER_PDDL)
    report = try_action(copy, "transfer", KStarPlanner(k=20))
    assert report.used
    for problem in report.problems:
        assert problem.status == "solved" and problem.invalid == 0
        assert problem.using > 0 and problem.steps
        assert all("(transfer " in problem.example[i - 1] for i in problem.steps)
        told = problem.words[problem.steps[0] - 1]
        assert "the robot carries ball" in told and "; now the robot is in room" in told
        assert problem.words[-1] == "the goal is reached"
    # a definition that can never apply is tried, and reported unused
    never = TRANSFER_PDDL.replace("(carry ?obj ?g))", "(carry ?obj ?g) (at ?obj ?to) (at ?obj ?from))", 1)
    unused = try_action(copy, "transfer", KStarPlanner(k=5), text=never)
    assert not unused.used and all(p.status == "solved" and p.using == 0 for p in unused.problems)
    assert "none of" in unused.problems[0].message


def test_writing_a_new_action_leaves_the_copy_alone_until_it_is_recorded(copy, tiny_backend):
    from domain_drafter.drafting.new_action import record_new_action, write_new_action

    options = DraftOptions(grammar=True)
    prompt = new_action_prompt(copy, "transfer", load_bundled(), options)
    before = [(e.name, list(e.attempts), e.accepted) for e in copy.entries.values()]
    answer = write_new_action(prompt, copy.vocabulary(), "transfer", tiny_backend, options)
    assert [(e.name, list(e.attempts), e.accepted) for e in copy.entries.values()] == before   # what a worker may run
    assert not copy.entry("transfer").attempts
    assert answer.check.passed and answer.model == tiny_backend.name
    attempt = record_new_action(copy, answer, options)                          # what the owner's thread does
    assert copy.entry("transfer").attempts[-1] == attempt and attempt.text == answer.answer


def test_a_new_action_is_judged_by_the_problems_and_the_domains_tests(copy, tiny_backend, evaluator):
    from domain_drafter.drafting.judges import checks_judge
    from domain_drafter.drafting.new_action import provisional_bundle, record_new_action, write_new_action

    options = DraftOptions(grammar=True)
    bundle = provisional_bundle(copy)
    judge = checks_judge(bundle, "transfer", evaluator)
    prompt = new_action_prompt(copy, "transfer", load_bundled(), options)
    answer = write_new_action(prompt, bundle.domain, "transfer", tiny_backend, options, judge=judge)
    judged = answer.judgement
    assert answer.check.passed and judged is not None
    assert judged.tests_total == 20 and judged == judge(answer.answer)   # the gripper's cases, the same judge's word
    assert answer.verdict.startswith("passed the checks, 2/2 problems solvable") and \
        answer.verdict.endswith(f"tests: {judged.tests_passed} of 20 pass")
    assert answer.message == " ".join([answer.verdict + ".", *judged.tests_words])
    assert record_new_action(copy, answer, options).message == answer.message


@pytest.fixture(scope="module")
def evaluator():
    from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator

    with Evaluator(EvaluationOptions(time_limit_s=20.0, use_verdict_cache=False)) as judge:
        yield judge
