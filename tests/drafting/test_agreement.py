"""Acceptance by agreement (issue 37): without tests, the blind judge accepts an answer only when an answer
written independently (another root's lineage) passes too and is proven equivalent to it.

The proofs are real (the pddl parser, the state-space proof, K* for solvability). The search tests script the
model's answers: the tiny random model cannot be made to write two right gripper drops, and which answers
agree is the point (a fake for what cannot be caused otherwise); the search, the judge and the proofs are real.
"""

from __future__ import annotations

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import load_bundled
from domain_drafter.drafting.blind import blind_setup, hidden_bundle
from domain_drafter.drafting.judges import AgreementJudge
from domain_drafter.drafting.options import DraftOptions, SearchOptions
from domain_drafter.drafting.search import search_action
from domain_drafter.llm.backend import Generation, GenerationStats

HEAD = "(:action drop\n  :parameters (?obj - ball ?room - room ?g - gripper)\n"
RIGHT = HEAD + """  :precondition (and (carry ?obj ?g) (at-robby ?room))
  :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g))))"""
# the same action: the robot stays in the room it is in
RIGHT_TOO = HEAD + """  :precondition (and (at-robby ?room) (carry ?obj ?g))
  :effect (and (not (carry ?obj ?g)) (at-robby ?room) (free ?g) (at ?obj ?room)))"""
# a drop in any room, wherever the robot is: every problem stays solvable and no invariant finding holds of it
# (Qwen's "only while the right gripper is free" drop, which the plain rule and agreement accepted, is now flagged
# as treats-alike-differently: tests/planning/test_invariant_findings.py)
WRONG = HEAD + """  :precondition (and (carry ?obj ?g))
  :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g))))"""
# Qwen's track-building move-agents without tests, agreed on by two roots: only along forward edges, the second
# also never back along one (no problem has a way back): the same action, and wrong together
MOVE_WRONG = """(:action move-agent
  :parameters (?cur ?next - location)
  :precondition (and (agent-at ?cur) (forward ?cur ?next))
  :effect (and (agent-at ?next) (not (agent-at ?cur))))"""
MOVE_WRONG_TOO = MOVE_WRONG.replace("(forward ?cur ?next))", "(forward ?cur ?next) (not (forward ?next ?cur)))")


def test_without_tests_an_answer_that_passes_waits_for_agreement(bundles, evaluator):
    gripper = bundles["gripper"]
    setup = blind_setup(gripper, "drop", evaluator, SearchOptions(), use_tests=False)
    assert isinstance(setup.judge, AgreementJudge)
    judgement = setup.judge(RIGHT)
    assert setup.judge(WRONG).passes                       # what the plain rule accepted
    assert judgement.passes and not judgement.equivalent and judgement.agreed_with == ""
    assert judgement.key < setup.judge(HEAD + ":precondition (and) :effect (and (free ?g)))").key
    with_tests = blind_setup(gripper, "drop", evaluator, SearchOptions())
    assert not isinstance(with_tests.judge, AgreementJudge) and with_tests.judge(RIGHT).equivalent


def test_two_candidates_are_proven_equivalent_to_each_other_without_the_reference(bundles, evaluator):
    gripper = bundles["gripper"]
    hidden = hidden_bundle(gripper, "drop")
    judge = blind_setup(gripper, "drop", evaluator, SearchOptions(), use_tests=False).judge
    checks = {t: check_answer(t, hidden.domain, "drop") for t in (RIGHT, RIGHT_TOO, WRONG)}
    assert judge.agrees(checks[RIGHT], RIGHT_TOO, checks[RIGHT_TOO])
    assert not judge.agrees(checks[RIGHT], WRONG, checks[WRONG])
    assert not judge.agrees(checks[WRONG], RIGHT_TOO, checks[RIGHT_TOO])
    # wrong together: agreement's limit (both pass, and each is proven the same action as the other)
    track = bundles["track-building"]
    hidden = hidden_bundle(track, "move-agent")
    judge = blind_setup(track, "move-agent", evaluator, SearchOptions(), use_tests=False).judge
    assert judge(MOVE_WRONG).passes and judge(MOVE_WRONG_TOO).passes
    moves = {t: check_answer(t, hidden.domain, "move-agent") for t in (MOVE_WRONG, MOVE_WRONG_TOO)}
    assert judge.agrees(moves[MOVE_WRONG], MOVE_WRONG_TOO, moves[MOVE_WRONG_TOO])
    assert evaluator.evaluate(track, "move-agent", MOVE_WRONG).subclass.value != "Equivalent"


class Scripted:
    """The model's answers in call order (see the module's docstring for why they are scripted)."""

    name = "scripted"

    steers_tokens = True     # for a guided search: it records what each call was told to refuse (`refused`)

    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []
        self.refused = []

    def generate(self, prompt, options, *, on_token=None, task=None):
        self.prompts.append(prompt)
        self.refused.append(options.judged or ())
        return Generation(self.answers.pop(0), GenerationStats(10, 10, 0.1, 100.0, 0.2, "eos"))

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _search(bundle, evaluator, answers, width=2, guided=False, model=None):
    setup = blind_setup(bundle, "drop", evaluator, SearchOptions(budget=len(answers), width=width, children=1,
                                                                 repair=False, refuse_judged=guided),
                        use_tests=False)
    return search_action(setup.bundle, "drop", model or Scripted(answers), evaluator, load_bundled(),
                         DraftOptions(), setup.options, judge=setup.judge)


def test_the_search_accepts_when_another_root_agrees(bundles, evaluator):
    result = _search(bundles["gripper"], evaluator, [RIGHT, RIGHT_TOO, WRONG])
    assert result.calls == 2 and result.stopped.value == "equivalent"
    first, second = result.nodes                                  # both accepted: each agrees with the other
    assert first.judgement.equivalent and first.judgement.agreed_with == RIGHT_TOO
    assert second.judgement.equivalent and second.judgement.agreed_with == RIGHT
    assert result.best is first


def test_a_child_never_agrees_with_its_own_lineage(bundles, evaluator):
    """Roots: one right answer, one that fails the checks; the right root's child writes an equivalent answer:
    it is its parent's revision, not an independent one, so nothing is accepted; the best still comes back."""
    junk = HEAD + "  :precondition (and (at ?obj))\n  :effect (and))"
    result = _search(bundles["gripper"], evaluator, [RIGHT, junk, RIGHT_TOO])
    assert result.calls == 3 and result.stopped.value != "equivalent"
    child = result.nodes[2]
    assert child.parent == 0 and child.judgement.passes and child.judgement.agreed_with == ""
    assert result.best.answer in (RIGHT, RIGHT_TOO) and not result.best.judgement.equivalent


def test_the_blind_judges_word_says_why_an_answer_that_passes_is_not_accepted(bundles, evaluator):
    from domain_drafter.drafting.blind import acceptance_words

    waiting = _search(bundles["gripper"], evaluator, [RIGHT]).best.judgement
    assert acceptance_words(waiting).startswith("not accepted: it passes, but no answer from another root agreed")
    agreed = _search(bundles["gripper"], evaluator, [RIGHT, RIGHT_TOO]).best.judgement
    assert acceptance_words(agreed) == "accepted: an independent answer agrees"
    assert acceptance_words(None) == "not accepted"
    with_tests = blind_setup(bundles["gripper"], "drop", evaluator, SearchOptions())
    assert acceptance_words(with_tests.judge(RIGHT)) == "accepted"


def test_guided_another_root_may_write_an_answer_awaiting_agreement_again(bundles, evaluator):
    """refuse_judged refuses every answer judged before, but one awaiting agreement is refused only to its own
    lineage: another root writing it again is the independent answer it waits for (Qwen's logistics load-truck:
    its right root answer was refused to the other roots, and its own children could only repeat it)."""
    junk = HEAD + "  :precondition (and (at ?obj))\n  :effect (and))"
    model = Scripted([RIGHT, junk, RIGHT])
    result = _search(bundles["gripper"], evaluator, model.answers, width=3, guided=True, model=model)
    assert RIGHT not in model.refused[1] and RIGHT not in model.refused[2]
    assert result.stopped.value == "equivalent" and result.nodes[2].duplicate_of == 0
    assert result.best.id == 0 and result.best.judgement.equivalent and result.best.judgement.agreed_with == RIGHT

    model = Scripted([RIGHT, junk, RIGHT_TOO])          # the third call is node 0's child: its own lineage
    result = _search(bundles["gripper"], evaluator, model.answers, width=2, guided=True, model=model)
    assert result.nodes[2].parent == 0 and RIGHT in model.refused[2]
    assert not result.best.judgement.equivalent
