"""A new action without a reference: add it to a copy of gripper, draft it, check it, try it (real K*)."""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.errors import DomainError, UsageError
from domain_drafter.core.model import TypedName
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.new_action import TEST_ROUNDS, draft_new_action, new_action_prompt, try_action
from domain_drafter.drafting.workspace import NewActionSpec, WorkingCopy
from domain_drafter.llm.backend import DecodingOptions
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
    from domain_drafter.drafting.new_action import provisional_bundle, record_new_action, write_new_action

    options = DraftOptions(grammar=True)
    prompt = new_action_prompt(copy, "transfer", load_bundled(), options)
    before = [(e.name, list(e.attempts), e.accepted) for e in copy.entries.values()]
    answer = write_new_action(prompt, provisional_bundle(copy), "transfer", tiny_backend, options)
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
    answer = write_new_action(prompt, bundle, "transfer", tiny_backend, options, judge=judge, rounds=1)
    judged = answer.judgement
    assert answer.check.passed and judged is not None
    assert judged.tests_total == 20 and judged == judge(answer.answer)   # the gripper's cases, the same judge's word
    assert answer.verdict.startswith("passed the checks, 2/2 problems solvable") and \
        answer.verdict.endswith(f"tests: {judged.tests_passed} of 20 pass")
    assert answer.message == " ".join([answer.verdict + ".", *judged.tests_words])
    assert record_new_action(copy, answer, options).message == answer.message
    assert len(answer.rounds) == 1 and answer.rounds[0].feedback is None   # rounds=1: judged, never asked again


# transfer that leaves the robot in the room it left too: it breaks gripper's never case robot-in-one-room
TRANSFER_STAYS = TRANSFER_PDDL.replace(" (not (at-robby ?from))", "")


def forced_answer(*texts: str, temperature: float = 0.0, seed: int = 0) -> DraftOptions:
    """Decoding whose grammar lets the real model write only one of `texts` (as tests/drafting/test_search.py's)."""
    literals = " | ".join('"' + t.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
                          for t in texts)
    return DraftOptions(decoding=DecodingOptions(max_tokens=200, grammar=f"root ::= {literals}",
                                                 temperature=temperature, seed=seed))


@pytest.fixture
def tests_judge(copy, evaluator):
    from domain_drafter.drafting.judges import checks_judge
    from domain_drafter.drafting.new_action import provisional_bundle

    return checks_judge(provisional_bundle(copy), "transfer", evaluator)


def test_an_answer_that_fails_the_domains_tests_is_asked_again_with_the_failing_cases(copy, tiny_backend, tests_judge):
    from domain_drafter.core.prompt import load_template
    from domain_drafter.llm.backend import Conversation

    draft = draft_new_action(copy, "transfer", tiny_backend, load_bundled(), forced_answer(TRANSFER_STAYS),
                             judge=tests_judge)
    assert [r.answer for r in draft.rounds] == [TRANSFER_STAYS] * TEST_ROUNDS   # it never passes: every round is spent
    first, second, last = draft.rounds
    assert first.check.passed and first.judgement.tests_passed == 19 and first.judgement.tests_total == 20
    # what the other actions keep comes first (issue 37: the robot in two rooms, the edit), then the failing case
    assert first.feedback.startswith("On problem gripper-p01, after (pick ball1 rooma left) (transfer ball1 rooma "
                                     "roomb left): (at-robby rooma) and (at-robby roomb) both hold") and \
        "add (not (at-robby ?from)) to the effect" in first.feedback
    assert first.feedback.endswith(first.judgement.tests_words[0]) and first.judgement.tests_words[0].startswith(
        "Test 'robot-in-one-room' (never) fails: ") and "(transfer ball1 rooma roomb left) shows it" in first.feedback
    # the next round is asked the conversation so far: the prompt, the answer, what is wrong with it
    assert isinstance(second.prompt_text, Conversation) and list(second.prompt_text.turns) == [
        ("user", first.prompt_text), ("assistant", TRANSFER_STAYS),
        ("user", load_template().render_feedback(first.feedback).strip())]
    assert str(last.prompt_text).startswith(str(second.prompt_text) + TRANSFER_STAYS)
    assert second.feedback == first.feedback and last.feedback is None   # no round after the last to tell
    attempts = copy.entry("transfer").attempts
    assert [a.options["round"] for a in attempts] == [1, 2, 3] and draft.attempt == attempts[-1]
    assert all(a.message.endswith(first.judgement.tests_words[0]) and "tests: 19 of 20 pass" in a.message for a in attempts)


def test_an_answer_that_passes_every_case_or_fails_the_checks_is_not_asked_again(copy, tiny_backend, tests_judge):
    draft = draft_new_action(copy, "transfer", tiny_backend, load_bundled(), forced_answer(TRANSFER_PDDL),
                             judge=tests_judge)
    (only,) = draft.rounds
    assert only.judgement.equivalent and only.judgement.tests_passed == only.judgement.tests_total == 20
    assert only.feedback is None and draft.answer == TRANSFER_PDDL
    undeclared = TRANSFER_PDDL.replace("(free ?g)", "(empty ?g)")   # no case runs on it: nothing to re-ask with
    broken = draft_new_action(copy, "transfer", tiny_backend, load_bundled(), forced_answer(undeclared),
                              judge=tests_judge)
    assert [r.answer for r in broken.rounds] == [undeclared] and broken.rounds[0].judgement is None
    assert broken.check.findings[0].reason == "undefined-predicate" and broken.rounds[0].feedback is None
    assert len(copy.entry("transfer").attempts) == 2


def test_a_model_failure_in_a_later_round_keeps_the_rounds_before_it(copy, tiny_model, tests_judge):
    """A context too small for the second prompt (the first answer and its failing case appended)."""
    from domain_drafter.llm.llama import LlamaCppBackend

    with LlamaCppBackend(tiny_model, n_ctx=1536) as small:
        draft = draft_new_action(copy, "transfer", small, load_bundled(), forced_answer(TRANSFER_STAYS),
                                 judge=tests_judge)
    (first,) = draft.rounds
    assert first.answer == TRANSFER_STAYS and first.feedback is not None        # it was to be asked again
    assert "tokens but the model's context is 1536" in draft.error   # the second prompt did not fit
    assert copy.entry("transfer").attempts[-1].text == TRANSFER_STAYS             # and the answer is kept


def test_the_rounds_stop_at_the_first_answer_that_passes_every_case(copy, tiny_backend, tests_judge):
    """Sampling between the wrong and the right answer: where the first is wrong, it is asked again, and the
    first right one ends the rounds however many are left."""
    from domain_drafter.drafting.new_action import provisional_bundle, write_new_action

    prompt = new_action_prompt(copy, "transfer", load_bundled())
    seen = []
    for seed in range(40):
        options = forced_answer(TRANSFER_STAYS, TRANSFER_PDDL, temperature=1.0, seed=seed)
        answer = write_new_action(prompt, provisional_bundle(copy), "transfer", tiny_backend, options,
                                  judge=tests_judge, rounds=5)
        said = ["right" if r.answer == TRANSFER_PDDL else "wrong" for r in answer.rounds]
        assert "right" not in said[:-1], said              # never asked again once every case passes
        assert all(r.feedback is not None for r in answer.rounds[:-1]) and answer.rounds[-1].feedback is None
        assert answer.to_dict()["rounds"][0]["feedback"] == answer.rounds[0].feedback
        seen.append(said)
        if said[0] == "wrong" and said[-1] == "right":
            break
    assert seen[-1][0] == "wrong" and seen[-1][-1] == "right" and len(seen[-1]) < 5, seen   # put right, then no more


@pytest.fixture(scope="module")
def evaluator():
    from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator

    with Evaluator(EvaluationOptions(time_limit_s=20.0, use_verdict_cache=False)) as judge:
        yield judge
