"""Realistic model answers land in the right class and subclass, with the right span."""

from __future__ import annotations

import pytest

from domain_drafter.core.answers import check_answer, prune
from domain_drafter.core.classes import ResultClass, Subclass

PUT_DOWN = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
            ":effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))")


def check(bundles, domain: str, action: str, answer: str):
    return check_answer(answer, bundles[domain].domain, action)


def spanned(report, index: int = 0) -> str:
    start, end = report.findings[index].span
    return report.answer[start:end]


# (domain, action, answer, subclass, reason, text under the deciding finding's span)
CASES = [
    # --- syntax: NoPDDL
    ("blocksworld", "put-down", "I am sorry, I cannot write PDDL for that.", Subclass.NO_PDDL, "no-parenthesis",
     "I am sorry, I cannot write PDDL for that."),
    ("gripper", "move", "", Subclass.NO_PDDL, "no-parenthesis", ""),
    # --- syntax: PError
    ("blocksworld", "put-down", "PDDL Action:\n(:action put-down :parameters (?x - block)\n :precondition (holding ?x)",
     Subclass.P_ERROR, "unbalanced", "(:action put-down :parameters (?x - block)\n :precondition (holding ?x)"),
    ("gripper", "pick", "(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :effect (and (carry ?obj ?g)",
     Subclass.P_ERROR, "unbalanced", None),
    # --- syntax: UToken
    ("blocksworld", "put-down", "(:action put-down :parameters (?x - block) :precondition (holding ?x) "
     ":precondition (handempty) :effect (and (ontable ?x)))", Subclass.U_TOKEN, "parse", ":precondition"),
    ("blocksworld", "put-down", "(:action put-down :parameters (?x - block) :precondition (holding ?x - block) "
     ":effect (and (ontable ?x)))", Subclass.U_TOKEN, "parse", "-"),
    ("blocksworld", "put-down", "(:action put-down :parameters (?x - block) :precondition (holding ?x))",
     Subclass.U_TOKEN, "parse", None),
    ("blocksworld", "put-down", "(:action put-down :parameters (?x - block) :precondition (or (holding ?x) (clear ?x)) "
     ":effect (and (ontable ?x)))", Subclass.U_TOKEN, "parse", "(or (holding ?x) (clear ?x))"),
    ("blocksworld", "stack", "(:action stack :parameters (?x ?y - block) :precondition (and (holding ?x) "
     "(not (= ?x ?y))) :effect (and (on ?x ?y)))", Subclass.U_TOKEN, "parse", "(= ?x ?y)"),
    ("gripper", "drop", "(:action drop :parameters (?obj - ball ?room - room ?g - gripper) :precondition "
     "(carry ?obj ?g) :effect (forall (?b - ball) (at ?b ?room)))", Subclass.U_TOKEN, "parse",
     "(forall (?b - ball) (at ?b ?room))"),
    ("gripper", "drop", "(:action drop :parameters (?obj - ball ?room - room ?g - gripper) :precondition "
     "(carry ?obj ?g) :effect (when (free ?g) (at ?obj ?room)))", Subclass.U_TOKEN, "parse",
     "(when (free ?g) (at ?obj ?room))"),
    ("blocksworld", "put-down", "Input: put the block down (carefully) and then stop.", Subclass.U_TOKEN, "parse", None),
    # --- semantic: NError
    ("blocksworld", "put-down", PUT_DOWN.replace("put-down", "putdown"), Subclass.N_ERROR, "wrong-name", "putdown"),
    ("gripper", "move", "(:action move-robot :parameters (?from ?to - room) :precondition (at-robby ?from) "
     ":effect (and (at-robby ?to) (not (at-robby ?from))))", Subclass.N_ERROR, "wrong-name", "move-robot"),
    # --- semantic: TError
    ("blocksworld", "put-down", PUT_DOWN.replace("?x - block", "?x - cube"), Subclass.T_ERROR, "undeclared-type",
     "cube"),
    ("gripper", "pick", "(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and "
     "(at ?obj ?room) (at-robby ?room) (free ?room)) :effect (and (carry ?obj ?g) (not (free ?g))))",
     Subclass.T_ERROR, "argument-type", "?room"),
    ("blocksworld", "put-down", PUT_DOWN.replace("?x - block", "?x"), Subclass.T_ERROR, "argument-type", "?x"),
    ("logistics", "drive-truck", "(:action drive-truck :parameters (?truck - truck ?from ?to - place ?city - city) "
     ":precondition (and (at ?truck ?from) (in-city ?from ?city) (in-city ?to ?city) (in ?truck ?city)) "
     ":effect (and (at ?truck ?to) (not (at ?truck ?from))))", Subclass.T_ERROR, "argument-type", "?truck"),
    # --- semantic: PAError
    ("blocksworld", "put-down", PUT_DOWN.replace("(handempty)", "(arm-empty)"), Subclass.PA_ERROR,
     "undefined-predicate", "(arm-empty)"),
    ("blocksworld", "stack", "(:action stack :parameters (?x - block ?y - block) :precondition (and (holding ?x) "
     "(clear ?y)) :effect (and (on ?x) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))",
     Subclass.PA_ERROR, "wrong-arity", "(on ?x)"),
    ("blocksworld", "stack", "(:action stack :parameters (?x - block) :precondition (and (holding ?x) "
     "(clear ?y)) :effect (and (on ?x ?y) (not (holding ?x))))", Subclass.PA_ERROR, "undefined-variable", "?y"),
    ("gripper", "move", "(:action move :parameters (?from ?to - room) :precondition (at-robby ?from) "
     ":effect (and (at-robby ?to) (not (at-robby from))))", Subclass.PA_ERROR, "undefined-constant", "from"),
    # --- semantic: BPError
    ("blocksworld", "pick-up", "(:action pick-up :parameters (?x - block) :precondition (and (clear ?x) (ontable ?x) "
     "(handempty) (not (holding ?x))) :effect (and (holding ?x) (not (ontable ?x)) (not (clear ?x)) "
     "(not (handempty))))", Subclass.BP_ERROR, "negative-precondition", "(not (holding ?x))"),
    ("gripper", "drop", "(:action drop :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and "
     "(carry ?obj ?g) (at-robby ?room) (not (free ?g))) :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g))))",
     Subclass.BP_ERROR, "negative-precondition", "(not (free ?g))"),
]


@pytest.mark.parametrize(("domain", "action", "answer", "subclass", "reason", "under_span"), CASES,
                         ids=[f"{c[3].value}-{c[4]}-{i}" for i, c in enumerate(CASES)])
def test_realistic_answer_is_classified_with_its_span(bundles, domain, action, answer, subclass, reason, under_span):
    report = check(bundles, domain, action, answer)
    assert report.subclass is subclass, report.findings
    assert report.findings[0].reason == reason
    assert report.findings[0].message
    if under_span is not None:
        assert spanned(report) == under_span


def test_every_subclass_of_the_checks_has_at_least_two_cases():
    counts = {s: sum(1 for c in CASES if c[3] is s) for s in Subclass if s.result_class.is_error}
    assert all(n >= 2 for n in counts.values()), counts


FINE = [
    ("chatter before and after", "Sure! Here is the PDDL you asked for:\n\n" + PUT_DOWN + "\n\nLet me know if it helps."),
    ("upper-case keywords", PUT_DOWN.replace(":action", ":ACTION").replace(":precondition", ":PRECONDITION")
     .replace("(and", "(AND").replace("(not", "(NOT").replace("holding", "HOLDING")),
    ("no precondition", "(:action put-down :parameters (?x - block) :effect (and (ontable ?x) (not (holding ?x))))"),
    ("empty precondition", "(:action put-down :parameters (?x - block) :precondition () :effect (and (ontable ?x)))"),
    ("single atoms without and", "(:action put-down :parameters (?x - block) :precondition (holding ?x) "
     ":effect (not (holding ?x)))"),
    ("a comment inside", "(:action put-down ; the hand lets go\n :parameters (?x - block) :precondition (holding ?x) "
     ":effect (and (ontable ?x)))"),
    ("a comment with a closing parenthesis", "(:action put-down ; note: x)\n :parameters (?x - block) "
     ":precondition (holding ?x) :effect (and (ontable ?x)))"),
    ("a comment with an opening parenthesis", "(:action put-down ; see (1\n :parameters (?x - block) "
     ":precondition (holding ?x) :effect (and (ontable ?x)))  ; done (really"),
    ("untyped list of one type", "(:action stack :parameters (?x ?y - block) :precondition (and (holding ?x) (clear ?y))"
     " :effect (and (on ?x ?y)))"),
]


@pytest.mark.parametrize(("why", "answer"), FINE, ids=[f[0] for f in FINE])
def test_answers_that_are_fine_pass_both_checks(bundles, why, answer):
    action = "stack" if "stack" in answer else "put-down"
    report = check(bundles, "blocksworld", action, answer)
    assert report.passed, report.findings
    assert report.result_class is None


def test_negated_static_precondition_is_fine_without_negative_preconditions(bundles):
    answer = ("(:action move-train :parameters (?cur ?next - location) :precondition (and (train-at ?cur) "
              "(has-track ?next) (not (forward ?next ?cur))) :effect (and (train-at ?next) (not (train-at ?cur))))")
    assert check(bundles, "track-building", "move-train", answer).passed


def test_negated_fluent_is_fine_where_the_domain_declares_negative_preconditions(bundles):
    answer = ("(:action walk :parameters (?from ?to - loc) :precondition (and (at ?from) (not (at ?to)) "
              "(adjacent ?from ?to)) :effect (and (at ?to) (not (at ?from))))")
    assert check(bundles, "hiking", "walk", answer).passed


def test_constant_of_the_domain_is_a_valid_argument(bundles):
    answer = ("(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and (at ?obj ?room) "
              "(at-robby ?room) (free left)) :effect (and (carry ?obj left) (not (free left))))")
    report = check(bundles, "gripper", "pick", answer)
    assert report.passed, report.findings


def test_earlier_subclass_decides_when_several_apply(bundles):
    answer = PUT_DOWN.replace("put-down", "drop").replace("(handempty)", "(arm-empty)").replace("?x - block", "?x - cube")
    report = check(bundles, "blocksworld", "put-down", answer)
    assert [f.subclass for f in report.findings][:3] == [Subclass.N_ERROR, Subclass.T_ERROR, Subclass.PA_ERROR]
    assert report.result_class is ResultClass.SEMANTIC_ERROR


def test_pruning_takes_the_first_balanced_expression_and_ignores_the_rest():
    answer = "text " + PUT_DOWN + " and then (:action other ...)"
    span, finding = prune(answer)
    assert finding is None and answer[span[0]:span[1]] == PUT_DOWN


def test_syntax_error_location_is_given_in_the_original_answer(bundles):
    answer = "Line one\nLine two\n(:action put-down\n  :parameters (?x - block)\n  :precondition (holding ?x - block)\n  :effect (ontable ?x))"
    report = check(bundles, "blocksworld", "put-down", answer)
    assert report.subclass is Subclass.U_TOKEN
    assert report.findings[0].message.startswith("Line 5, column 29")


def test_semantic_check_still_yields_the_parsed_action_for_are(bundles):
    report = check(bundles, "blocksworld", "put-down", PUT_DOWN.replace("putdown", "x").replace("put-down", "drop"))
    assert report.subclass is Subclass.N_ERROR
    assert report.action is not None and report.action.name == "drop"


def test_report_serialises_with_class_subclass_and_spans(bundles):
    data = check(bundles, "blocksworld", "put-down", PUT_DOWN.replace("(handempty)", "(arm-empty)")).to_dict()
    assert data["class"] == "Semantic error" and data["subclass"] == "PAError"
    assert data["findings"][0]["span"][1] > data["findings"][0]["span"][0]


def test_parentheses_in_comments_do_not_count_when_pruning():
    answer = "; my try (draft\n(:action put-down ; note: x)\n :parameters (?x - block) :effect (and (ontable ?x)))\nok)"
    span, finding = prune(answer)
    assert finding is None
    assert answer[span[0]:span[1]] == answer[answer.index("(:action"):answer.index("\nok)")]


def test_an_answer_whose_only_parenthesis_is_in_a_comment_is_no_pddl():
    span, finding = prune("Nothing here ; (or here")
    assert span is None and finding.subclass is Subclass.NO_PDDL
