"""Quick fixes for answers the checks refuse, from the domain's declarations alone (core/answer_repair.py).

Each answer below is one a small model wrote (Qwen2.5-Coder 1.5B, in the partial strategies run of
resources/results/strategies-qwen-coder-1.5b) or a smaller variant of one; the repair is checked with the
real checks (tests/drafting/test_search.py judges one by the real proof).
"""

from __future__ import annotations

import pytest

from domain_drafter.core.answer_repair import repair_answer
from domain_drafter.core.answers import check_answer

DRIVE_IN_CITY = """(:action drive
  :parameters (?truck - truck ?from - place ?to - place)
  :precondition (and (at ?truck ?from) (in-city ?from ?city) (in-city ?to ?city))
  :effect (and (not (at ?truck ?from)) (at ?truck ?to)))"""


def repaired(bundles, domain: str, action: str, answer: str):
    bundle = bundles[domain]
    check = check_answer(answer, bundle.domain, action)
    assert not check.passed
    return repair_answer(check, bundle.domain)


def test_a_predicate_of_a_context_example_is_taken_out_and_the_rest_is_the_reference(bundles):
    fix = repaired(bundles, "depot", "drive", DRIVE_IN_CITY)
    assert fix is not None
    assert check_answer(fix.text, bundles["depot"].domain, "drive").passed
    assert "in-city" not in fix.text
    assert fix.edits == ("dropped (in-city ?from ?city) from the precondition: ?city is not a parameter",
                         "dropped (in-city ?to ?city) from the precondition: ?city is not a parameter")
    assert fix.action.pre_pos == bundles["depot"].domain.action("drive").pre_pos


def test_untyped_and_undeclared_parameters_get_the_type_their_predicates_expect(bundles):
    answer = """(:action lift
      :parameters (?hoist ?crate - box ?surface - surface ?place - place)
      :precondition (and (at ?hoist ?place) (available ?hoist) (at ?crate ?place) (on ?crate ?surface) (clear ?crate))
      :effect (and (lifting ?hoist ?crate) (clear ?surface) (not (at ?crate ?place)) (not (on ?crate ?surface))
                   (not (clear ?crate)) (not (available ?hoist))))"""
    fix = repaired(bundles, "depot", "lift", answer)
    assert fix is not None
    types = {p.name: p.type for p in fix.action.parameters}
    assert types["?hoist"] == "hoist"      # the narrowest of locatable (at) and hoist (available)
    assert types["?crate"] == "crate"      # 'box' is not declared; (on ?crate ...) expects a crate
    assert fix.action.parameters == bundles["depot"].domain.action("lift").parameters


def test_a_negated_precondition_the_requirements_forbid_is_dropped_and_the_name_put_right(bundles):
    answer = """(:action putdown :parameters (?x - block)
      :precondition (and (holding ?x) (not (ontable ?x)))
      :effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))"""
    fix = repaired(bundles, "blocksworld", "put-down", answer)
    assert fix is not None and fix.action.name == "put-down"
    assert fix.edits[0] == "renamed the action from 'putdown' to 'put-down'"
    assert "(not (ontable ?x))" not in fix.text
    assert fix.action == bundles["blocksworld"].domain.action("put-down")


@pytest.mark.parametrize("answer, why", [
    ("(:action drive :parameters (?t - truck ?f - place ?to - place) :precondition (at ?t ?f))", "no effect"),
    ("(:action drive :parameters (?t - truck) (at ?t", "does not parse"),
    ("(:action drive :parameters (?t - truck ?f ?to - place) :precondition (at ?t ?f) "
     ":effect (and (moved ?t)))", "nothing of the effect is left"),
])
def test_nothing_is_offered_where_nothing_sound_is_left(bundles, answer, why):
    assert repaired(bundles, "depot", "drive", answer) is None, why


def test_a_passing_answer_needs_no_repair(bundles):
    reference = bundles["depot"].domain.action("drive").to_pddl(indent="")
    check = check_answer(reference, bundles["depot"].domain, "drive")
    assert check.passed and repair_answer(check, bundles["depot"].domain) is None


def test_every_repair_of_every_bundled_actions_mutants_passes_the_checks(bundles):
    """Mutants: each action with one argument renamed to an unknown variable, or a predicate renamed."""
    tried = offered = 0
    for bundle in bundles.values():
        for action in bundle.domain.actions:
            text = action.to_pddl(indent="")
            first = action.precondition[0].atom if action.precondition else action.effect[0].atom
            for mutant in (text.replace(f"({first.predicate} ", f"({first.predicate}-of ", 1),
                           text.replace(":effect (and", ":effect (and (near ?nowhere)", 1)):
                check = check_answer(mutant, bundle.domain, action.name)
                if check.passed:
                    continue
                tried += 1
                fix = repair_answer(check, bundle.domain)
                if fix is not None:
                    offered += 1
                    assert check_answer(fix.text, bundle.domain, action.name).passed, (bundle.name, action.name)
    assert tried >= 60 and offered >= tried // 2


# Answers the free guided search wrote (sixth run, strategies-qwen-coder-1.5b-run6-free-guided), shortened.
LOOPED = """(:action pick-up
  :parameters (?paper - paper ?loc - loc)
  :precondition (and (at ?loc) (ishomebase ?loc) (unpacked ?paper))
  :effect (and (carrying ?paper) (not (unpacked ?paper)) (carrying ?paper) (not (unpacked ?paper)) (carrying ?paper) (not (unp"""


def test_an_answer_cut_off_in_a_loop_is_closed_after_its_last_whole_literal(bundles):
    fix = repaired(bundles, "trap-newspapers", "pick-up", LOOPED)
    assert fix is not None
    assert fix.action == bundles["trap-newspapers"].domain.action("pick-up")
    assert fix.edits == ("closed the 2 parentheses left open (the answer was cut off)",)


def test_the_action_is_read_after_prose_and_stray_backticks_are_taken_out(bundles):
    answer = ("In the given PDDL action, the precondition (satisfied ?loc) is incorrect. Here is the corrected action:\n\n"
              "(:action climb\n  :parameters (?from ?to - loc)\n  :precondition (and (at ?from) (adjacent ?from ?to) "
              "(ishill ?to) (not (iswater ?from)))\n  :effect (and (at ?to) (not (at ?from)) `))")
    check = check_answer(answer, bundles["hiking"].domain, "climb")
    assert check.subclass.value == "UToken"          # the paper's pruning reads '(satisfied ?loc)' first
    fix = repair_answer(check, bundles["hiking"].domain)
    assert fix is not None and check_answer(fix.text, bundles["hiking"].domain, "climb").passed
    assert fix.edits == ("read the action from line 3, column 1 (the text before it is not PDDL)",
                         "took out stray backticks and brackets")
    assert fix.action == bundles["hiking"].domain.action("climb")


def test_an_answer_that_stops_after_its_precondition_keeps_the_effect_of_the_answer_it_revises(bundles):
    domain = bundles["blocksworld"].domain
    earlier = check_answer("""(:action put-down :parameters (?x - block) :precondition (and (holding ?x) (clear ?x))
      :effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))""", domain, "put-down").action
    answer = ("(:action put-down\n  :parameters (?x - block)\n  :precondition (and (holding ?x)))\n  \n"
              "This PDDL action represents the put-down action.")
    check = check_answer(answer, domain, "put-down")
    assert check.findings[0].message.endswith("the action has no ':effect'.")
    assert repair_answer(check, domain) is None            # a first answer: nothing to take an effect from
    fix = repair_answer(check, domain, revises=earlier)
    assert fix is not None and fix.edits == ("kept the effect of the answer it revises (this one has none)",)
    assert fix.action == domain.action("put-down")


def test_parameters_typed_together_by_mistake_get_the_type_their_uses_agree_on(bundles):
    answer = """(:action pick
      :parameters (?obj ?room ?g - gripper)
      :precondition (and (at ?obj ?room) (at-robby ?room) (free ?g))
      :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g))))"""
    fix = repaired(bundles, "gripper", "pick", answer)
    assert fix is not None
    assert fix.action == bundles["gripper"].domain.action("pick")
    assert fix.edits == ("gave ?obj the type 'ball' that (at ?obj ?room) expects (it was 'gripper', which "
                         "(at ?obj ?room) does not take)",
                         "gave ?room the type 'room' that (at ?obj ?room) expects (it was 'gripper', which "
                         "(at ?obj ?room) does not take)")


def test_a_parameter_whose_uses_disagree_keeps_its_type_and_the_refused_literal_goes(bundles):
    answer = """(:action lift
      :parameters (?hoist - hoist ?crate - crate ?surface - surface ?place - place)
      :precondition (and (at ?hoist ?place) (available ?hoist) (at ?crate ?place) (on ?crate ?surface)
                         (clear ?crate) (on ?crate ?place))
      :effect (and (lifting ?hoist ?crate) (clear ?surface) (not (at ?crate ?place)) (not (on ?crate ?surface))
                   (not (clear ?crate)) (not (available ?hoist))))"""
    fix = repaired(bundles, "depot", "lift", answer)    # ?place: a place in (at ...), a surface in (on ...)
    assert fix is not None
    assert {p.name: p.type for p in fix.action.parameters}["?place"] == "place"
    assert fix.edits == ("dropped (on ?crate ?place) from the precondition: ?place is of type 'place', "
                         "where 'on' expects 'surface'",)


# Slips of form inside an action, as the seventh run's free guided search wrote them (its shard A, in strategies-qwen-coder-1.5b-free):
# none parses, and before the mends none got a quick fix.
SLIPS = [
    ("blocksworld", "pick-up",
     "(:action pick-up\n  :parameters (?x - block)\n  :precondition (and (ontable ?x) (clear ?x) (handempty))\n"
     "  :effect (and (holding ?x) (not (ontable ?x)) (not (handempty)) ((clear ?x))))",
     ("took out the second pair of parentheses around a literal",),
     "(and (holding ?x) (not (ontable ?x)) (not (handempty)) (clear ?x))"),
    ("blocksworld", "unstack",
     "(:action unstack\n  :parameters (?x - block ?y - block)\n  :precondition (and (holding ?x) (ontable ?y))\n"
     "  :effect (and (clear ?x) (ontable ?x) (clear ?y\")))",
     ("took out quotes inside the action",), "(and (clear ?x) (ontable ?x) (clear ?y))"),
    ("gripper", "drop",
     "(:action drop\n  :parameters (?obj - ball ?room - room ?g - gripper)\n  :precondition (and (at-robby ?room) "
     "(at ?obj ?room) (free ?g) (carry ?obj ?g)))\n  :effect (and (not (at-robby ?room)) (not (at ?obj ?room)) "
     "(not (free ?g)) (not (carry ?obj ?g))))",
     ("took out the ')' that closed the action before its :effect",),
     "(and (not (at-robby ?room)) (not (at ?obj ?room)) (not (free ?g)) (not (carry ?obj ?g)))"),
    ("blocksworld", "put-down",
     "(:action put-down\n  :parameters (?x - block)\n  :precondition (handempty) (holding ?x) (ontable ?x))\n"
     "  :effect (and (clear ?x) (not (handempty)) (not (holding ?x)))))",
     ("took out the ')' that closed the action before its :effect",
      "joined the :precondition's 3 literals in one (and ...)"), "(and (clear ?x) (not (handempty)) (not (holding ?x)))"),
    ("depot", "drop",
     "(:action drop\n  :parameters (?hoist - hoist ?crate - crate ?surface - surface ?place - place)\n"
     "  :precondition (and (at ?surface ?place) (clear ?surface) (lifting ?hoist ?crate))\n"
     "  :effect (and (clear ?surface) (not (lifting ?hoist ?crate)) (on ?crate ?surface)) (not (clear ?surface)) "
     "(at ?crate ?place)))",
     ("put the literals written after the :effect's closed (and ...) inside it",),
     "(and (clear ?surface) (not (lifting ?hoist ?crate)) (on ?crate ?surface) (not (clear ?surface)) (at ?crate ?place))"),
]


@pytest.mark.parametrize(("domain", "action", "answer", "edits", "effect"), SLIPS,
                         ids=[f"{d}-{a}" for d, a, *_ in SLIPS])
def test_slips_of_form_inside_an_action_are_mended_and_said(bundles, domain, action, answer, edits, effect):
    check = check_answer(answer, bundles[domain].domain, action)
    assert check.action is None                      # as written, it does not parse
    fix = repair_answer(check, bundles[domain].domain)
    assert fix is not None and fix.edits == edits
    mended = check_answer(fix.text, bundles[domain].domain, action)
    assert mended.passed
    expected = check_answer(f"(:action {action} :parameters () :precondition (and) :effect {effect})",
                            bundles[domain].domain, action)
    assert expected.action is not None
    assert set(mended.action.effect) == set(expected.action.effect)   # every literal the model wrote, none lost


def test_a_mend_is_tried_only_where_the_answer_as_written_cannot_be_read(bundles):
    """An answer cut off after a literal wrapped twice is closed as before; the mend is for what that cannot read."""
    domain = bundles["blocksworld"].domain
    cut = "(:action pick-up :parameters (?x - block) :precondition (and (clear ?x) (ontable ?x) (handempty)) " \
          ":effect (and (holding ?x) (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (not (handem"
    fix = repair_answer(check_answer(cut, domain, "pick-up"), domain)
    assert fix is not None and fix.action == domain.action("pick-up")
    assert fix.edits == ("closed the 2 parentheses left open (the answer was cut off)",)


@pytest.mark.parametrize("answer", [
    "I apologize, but I'm unable to correct the PDDL action.",
    "(:action drive :parameters (?t - truck) (at ?t",
    "(:action drive\n  :parameters (?t - truck ?from ?to - place)\n  :precondition (and (at ?t ?from)))\nDone.",
])
def test_no_text_repair_is_offered_where_no_action_with_an_effect_can_be_read(bundles, answer):
    assert repaired(bundles, "depot", "drive", answer) is None



LITERAL_REASONS = {"undefined-variable", "undefined-constant", "undefined-predicate", "wrong-arity",
                   "argument-type", "negative-precondition"}


def _mutants(domain, action):
    """One refused literal each: an undeclared predicate, an extra argument, an unknown constant, a
    negated precondition and (where one exists) another predicate of the same arity."""
    text = action.to_pddl(indent="")
    first = (action.precondition or action.effect)[0].atom
    yield text.replace(f"({first.predicate} ", f"({first.predicate}-of ", 1)
    yield text.replace(f"{first}", f"({' '.join((first.predicate, *first.args, '?x'))})", 1)
    if first.args:
        yield text.replace(f"{first}", f"({' '.join((first.predicate, 'nowhere', *first.args[1:]))})", 1)
    yield text.replace(":precondition (and", f":precondition (and (not {first})", 1)
    other = next((p for p in domain.predicates if p.name != first.predicate and p.arity == len(first.args)), None)
    if other is not None:
        yield text.replace(f"({first.predicate} ", f"({other.name} ", 1)


def test_the_quick_fix_drops_only_literals_the_checks_refuse(bundles):
    """The checks and the quick fix read one rule (`answers.literal_problems`): on every bundled action's
    mutants, each literal the fix drops, put back into the fixed action, is refused by the checks again."""
    dropped_total = 0
    for bundle in bundles.values():
        domain = bundle.domain
        for action in domain.actions:
            for mutant in _mutants(domain, action):
                check = check_answer(mutant, domain, action.name)
                if check.passed or check.action is None:
                    continue
                fix = repair_answer(check, domain)
                if fix is None:
                    continue
                assert check_answer(fix.text, domain, action.name).passed
                for edit in fix.edits:
                    if not edit.startswith("dropped "):
                        continue
                    literal, _, part = edit.removeprefix("dropped ").partition(" from the ")
                    part = part.split(":", 1)[0]
                    keyword = ":precondition (and" if part == "precondition" else ":effect (and"
                    back = fix.text.replace(keyword, f"{keyword} {literal}", 1)
                    again = check_answer(back, domain, action.name)
                    assert not again.passed, (bundle.name, action.name, edit)
                    assert {f.reason for f in again.findings} <= LITERAL_REASONS, (edit, again.findings)
                    dropped_total += 1
    assert dropped_total >= 120, dropped_total
