"""Focused tests of the plan validator on the real bundled domains and their real K* plans.

The reference semantics is VAL's on typed STRIPS: steps in order; a step fails on an unknown action,
a wrong arity, an unknown object, a wrongly-typed argument (an error here, where VAL only prints
"Bad plan description!") or an unsatisfied precondition; effects delete first, then add; the goal
must hold after the last step.
"""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.reader import read_domain, read_problem
from domain_drafter.planning.validator import (
    VALID,
    FailureKind,
    PlanStatus,
    PlanValidation,
    PlanValidator,
    plan_validation_from_dict,
)

PROBLEMS = [(b.name, pf.name) for b in load_bundled() for pf in b.problems]

# Hand-checked plans of the bundled problems (each is also one of K*'s optimal plans).
BLOCKS_P01 = (("unstack", "c", "a"), ("put-down", "c"), ("pick-up", "b"), ("stack", "b", "c"),
              ("pick-up", "a"), ("stack", "a", "b"))
GRIPPER_P01 = (("pick", "ball1", "rooma", "left"), ("pick", "ball2", "rooma", "right"), ("move", "rooma", "roomb"),
               ("drop", "ball2", "roomb", "right"), ("drop", "ball1", "roomb", "left"))
LOGISTICS_P02 = (("load-truck", "parcel1", "boston-truck", "boston-office"),
                 ("drive-truck", "boston-truck", "boston-office", "boston-airport", "boston"),
                 ("unload-truck", "parcel1", "boston-truck", "boston-airport"),
                 ("load-airplane", "parcel1", "plane1", "boston-airport"),
                 ("fly-airplane", "plane1", "boston-airport", "denver-airport"),
                 ("unload-airplane", "parcel1", "plane1", "denver-airport"),
                 ("load-truck", "parcel1", "denver-truck", "denver-airport"),
                 ("drive-truck", "denver-truck", "denver-airport", "denver-office", "denver"),
                 ("unload-truck", "parcel1", "denver-truck", "denver-office"))
HIKING_P01 = (("climb", "l11", "l12"), ("walk", "l12", "l13"), ("walk", "l13", "l23"))


@pytest.fixture(scope="module")
def validators():
    """One validator per (domain, problem), built once and reused like the product does."""
    return {(b.name, pf.name): PlanValidator(b.domain, pf.problem) for b in load_bundled() for pf in b.problems}


def invalid(v: PlanValidation, kind: FailureKind, step: int | None) -> PlanValidation:
    """Assert `v` is an invalid verdict of this kind at this step; return it for further checks."""
    assert v.status is PlanStatus.INVALID and not v and not v.valid, v
    assert (v.kind, v.step) == (kind, step), v
    return v


# ------------------------------------------------------------------------------------ valid plans

@pytest.mark.parametrize("domain_name,problem_name", PROBLEMS)
def test_every_kstar_plan_is_valid_in_its_own_domain(kstar_plans, validators, domain_name, problem_name):
    plans = kstar_plans[domain_name, problem_name]
    assert plans
    verdicts = [validators[domain_name, problem_name].validate(p) for p in plans]
    assert [v for v in verdicts if not v] == []
    assert all(v is VALID and v.kind is None and v.step is None and v.atoms == () for v in verdicts)


def test_hand_checked_plans_are_valid(validators):
    assert validators["blocksworld", "p01"].validate(BLOCKS_P01)
    assert validators["gripper", "p01"].validate(GRIPPER_P01)
    assert validators["logistics", "p02"].validate(LOGISTICS_P02)
    assert validators["hiking", "p01"].validate(HIKING_P01)


def test_steps_are_case_insensitive(validators):
    shouting = [tuple(x.upper() for x in step) for step in BLOCKS_P01]
    assert validators["blocksworld", "p01"].validate(shouting).valid


def test_a_plan_may_be_any_sequence_of_sequences(validators):
    as_lists = [list(step) for step in GRIPPER_P01]
    assert validators["gripper", "p01"].validate(as_lists)
    assert validators["gripper", "p01"].validate(tuple(as_lists))


def test_a_validator_keeps_no_state_between_plans(validators):
    v = validators["blocksworld", "p01"]
    assert not v.validate(BLOCKS_P01[:3])
    assert v.validate(BLOCKS_P01)
    assert v.validate(BLOCKS_P01)          # the initial state was not consumed by the first run


def test_a_kstar_plan_is_not_valid_for_the_other_problem(kstar_plans, validators):
    p02 = validators["blocksworld", "p02"]
    assert not any(p02.validate(plan) for plan in kstar_plans["blocksworld", "p01"])


# ------------------------------------------------------------------- deleted and swapped steps

def test_deleted_first_step_fails_at_the_next_step_naming_the_missing_atom(validators):
    plan = BLOCKS_P01[1:]
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 1)
    assert v.action == "(put-down c)"
    assert v.atoms == ("(holding c)",)
    assert "step 1" in v.message and "(holding c)" in v.message


def test_deleting_the_unstack_leaves_a_covered(validators):
    # without unstacking c, b can still go onto c, but a (under c) is never clear
    plan = BLOCKS_P01[2:]
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 3)
    assert v.action == "(pick-up a)"
    assert v.atoms == ("(clear a)",)


def test_deleted_middle_step_names_its_step_number(validators):
    plan = BLOCKS_P01[:1] + BLOCKS_P01[2:]    # no put-down: the hand is still full
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 2)
    assert (v.action, v.atoms) == ("(pick-up b)", ("(handempty)",))


def test_every_missing_atom_of_a_step_is_named(validators):
    v = invalid(validators["blocksworld", "p01"].validate([("pick-up", "a")]), FailureKind.PRECONDITION, 1)
    assert v.atoms == ("(clear a)",)
    v = invalid(validators["blocksworld", "p01"].validate([("stack", "a", "a")]), FailureKind.PRECONDITION, 1)
    assert set(v.atoms) == {"(holding a)", "(clear a)"}
    v = invalid(validators["gripper", "p01"].validate([("drop", "ball1", "roomb", "left")]),
                FailureKind.PRECONDITION, 1)
    assert set(v.atoms) == {"(carry ball1 left)", "(at-robby roomb)"}
    assert "preconditions" in v.message


def test_deleted_last_step_fails_the_goal(validators):
    v = invalid(validators["blocksworld", "p01"].validate(BLOCKS_P01[:-1]), FailureKind.GOAL, None)
    assert v.action is None
    assert v.atoms == ("(on a b)",)
    assert "after 5 steps" in v.message


def test_empty_plan_lists_every_unreached_goal(validators):
    v = invalid(validators["gripper", "p01"].validate(()), FailureKind.GOAL, None)
    assert set(v.atoms) == {"(at ball1 roomb)", "(at ball2 roomb)"}


def test_swapped_steps_fail_at_the_first_swapped_step(validators):
    plan = list(BLOCKS_P01)
    plan[0], plan[1] = plan[1], plan[0]
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 1)
    assert (v.action, v.atoms) == ("(put-down c)", ("(holding c)",))

    plan = list(BLOCKS_P01)
    plan[4], plan[5] = plan[5], plan[4]       # stack a on b before picking a up
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 5)
    assert (v.action, v.atoms) == ("(stack a b)", ("(holding a)",))


def test_swapping_independent_steps_keeps_the_plan_valid(validators):
    plan = list(GRIPPER_P01)
    plan[0], plan[1] = plan[1], plan[0]
    plan[3], plan[4] = plan[4], plan[3]
    assert validators["gripper", "p01"].validate(plan)


def test_the_first_failing_step_is_reported(validators):
    plan = (("put-down", "a"), ("fly", "a"), ("pick-up", "ghost"))
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 1)
    assert v.atoms == ("(holding a)",)


def test_a_repeated_step_fails_on_its_own_effects(validators):
    plan = BLOCKS_P01[:1] + BLOCKS_P01[:1] + BLOCKS_P01[1:]
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.PRECONDITION, 2)
    assert set(v.atoms) == {"(on c a)", "(clear c)", "(handempty)"}


# ----------------------------------------------------------------- objects, types, names, arity

def test_a_room_where_a_ball_is_expected_is_a_type_error(validators):
    plan = (("pick", "rooma", "rooma", "left"),) + GRIPPER_P01[1:]
    v = invalid(validators["gripper", "p01"].validate(plan), FailureKind.WRONG_TYPE, 1)
    assert v.action == "(pick rooma rooma left)"
    assert "'rooma'" in v.message and "room" in v.message and "ball" in v.message


def test_a_type_error_later_in_the_plan_names_its_step(validators):
    plan = GRIPPER_P01[:4] + (("drop", "ball1", "roomb", "ball2"),)
    v = invalid(validators["gripper", "p01"].validate(plan), FailureKind.WRONG_TYPE, 5)
    assert "'ball2'" in v.message and "gripper" in v.message


def test_domain_constants_are_objects_with_their_declared_type(validators):
    gripper = validators["gripper", "p01"]
    assert gripper.validate(GRIPPER_P01)                       # left/right are constants of the domain
    v = invalid(gripper.validate([("move", "left", "roomb")]), FailureKind.WRONG_TYPE, 1)
    assert "'left'" in v.message and "gripper" in v.message


def test_a_subtype_is_accepted_for_its_supertype(validators):
    # drive-truck takes ?from/?to - place; airports and locations are places, the truck a truck < vehicle
    logistics = validators["logistics", "p01"]
    plan = [("drive-truck", "truck1", "boston-airport", "boston-office", "boston"),
            ("drive-truck", "truck1", "boston-office", "boston-airport", "boston")]
    v = invalid(logistics.validate(plan), FailureKind.GOAL, None)   # well-typed and applicable
    assert set(v.atoms) == {"(at parcel1 boston-office)", "(at parcel2 boston-office)"}


def test_a_sibling_type_is_rejected(validators):
    # load-airplane needs an airport; boston-office is a location (both are places)
    logistics = validators["logistics", "p02"]
    v = invalid(logistics.validate([("load-airplane", "parcel1", "plane1", "boston-office")]),
                FailureKind.WRONG_TYPE, 1)
    assert "'boston-office'" in v.message and "airport" in v.message


def test_an_airplane_is_no_truck_even_though_both_are_vehicles(validators):
    logistics = validators["logistics", "p02"]
    v = invalid(logistics.validate([("load-truck", "parcel1", "plane1", "boston-airport")]),
                FailureKind.WRONG_TYPE, 1)
    assert "'plane1'" in v.message and "truck" in v.message
    v = invalid(logistics.validate([("fly-airplane", "boston-truck", "boston-airport", "denver-airport")]),
                FailureKind.WRONG_TYPE, 1)
    assert "'boston-truck'" in v.message


def test_a_package_is_no_vehicle(validators):
    v = invalid(validators["logistics", "p01"].validate([("load-truck", "parcel1", "parcel2", "boston-airport")]),
                FailureKind.WRONG_TYPE, 1)
    assert "'parcel2'" in v.message


def test_unknown_object(validators):
    plan = GRIPPER_P01[:2] + (("move", "rooma", "roomz"),) + GRIPPER_P01[3:]
    v = invalid(validators["gripper", "p01"].validate(plan), FailureKind.UNKNOWN_OBJECT, 3)
    assert v.action == "(move rooma roomz)"
    assert "'roomz'" in v.message


def test_an_object_of_the_other_problem_is_unknown(validators):
    # roomc exists in gripper p02 only
    v = invalid(validators["gripper", "p01"].validate([("move", "rooma", "roomc")]), FailureKind.UNKNOWN_OBJECT, 1)
    assert "'roomc'" in v.message
    assert validators["gripper", "p02"].validate([("move", "rooma", "roomc")]).kind is FailureKind.GOAL


def test_unknown_action(validators):
    plan = BLOCKS_P01[:2] + (("teleport", "b", "c"),) + BLOCKS_P01[2:]
    v = invalid(validators["blocksworld", "p01"].validate(plan), FailureKind.UNKNOWN_ACTION, 3)
    assert v.action == "(teleport b c)"
    assert "'teleport'" in v.message


def test_an_action_of_another_domain_is_unknown(validators):
    v = invalid(validators["blocksworld", "p01"].validate([("pick", "a", "b", "c")]), FailureKind.UNKNOWN_ACTION, 1)
    assert "'pick'" in v.message


def test_an_empty_step_is_an_unknown_action(validators):
    invalid(validators["blocksworld", "p01"].validate([()]), FailureKind.UNKNOWN_ACTION, 1)


@pytest.mark.parametrize("step", [("move", "rooma"), ("move", "rooma", "roomb", "roomb"), ("move",)])
def test_wrong_arity(validators, step):
    v = invalid(validators["gripper", "p01"].validate([step]), FailureKind.WRONG_ARITY, 1)
    assert f"takes 2 arguments, got {len(step) - 1}" in v.message


def test_arity_is_checked_before_objects_and_types(validators):
    v = validators["gripper", "p01"].validate([("pick", "ghost", "left")])
    assert v.kind is FailureKind.WRONG_ARITY


# ----------------------------------------------------------------------- negative preconditions

def test_negative_precondition_violated_is_shown_as_not(validators):
    # walking (not climbing) onto a hill: (not (isHill l12)) is false in the initial state
    plan = (("walk", "l11", "l12"),) + HIKING_P01[1:]
    v = invalid(validators["hiking", "p01"].validate(plan), FailureKind.PRECONDITION, 1)
    assert [a.lower() for a in v.atoms] == ["(not (ishill l12))"]
    assert "(not (ishill l12))" in v.message.lower()


def test_leaving_water_violates_a_negative_precondition(validators):
    # walking into the lake (l22) is allowed; walking out of it is not
    plan = [("walk", "l11", "l21"), ("walk", "l21", "l22"), ("walk", "l22", "l23")]
    v = invalid(validators["hiking", "p01"].validate(plan), FailureKind.PRECONDITION, 3)
    assert v.action == "(walk l22 l23)"
    assert [a.lower() for a in v.atoms] == ["(not (iswater l22))"]


def test_positive_and_negative_failures_are_both_listed(validators):
    # from l11, walking from l22 (not here, not adjacent to l13, and water)
    v = invalid(validators["hiking", "p01"].validate([("walk", "l22", "l13")]), FailureKind.PRECONDITION, 1)
    assert [a.lower() for a in v.atoms] == ["(at l22)", "(adjacent l22 l13)", "(not (iswater l22))"]


def test_climbing_needs_the_positive_hill(validators):
    v = invalid(validators["hiking", "p01"].validate([("climb", "l11", "l21")]), FailureKind.PRECONDITION, 1)
    assert [a.lower() for a in v.atoms] == ["(ishill l21)"]


# --------------------------------------------------------------------------------- effects

def test_an_atom_deleted_and_added_by_one_step_stays_true(validators):
    # move rooma rooma deletes and adds (at-robby rooma): delete first, then add, so the robot stays
    gripper = validators["gripper", "p01"]
    plan = (("move", "rooma", "rooma"),) + GRIPPER_P01
    assert gripper.validate(plan)
    plan = GRIPPER_P01[:3] + (("move", "roomb", "roomb"),) + GRIPPER_P01[3:]
    assert gripper.validate(plan)


def test_add_after_delete_in_other_domains(validators):
    track = validators["track-building", "p01"]
    plan = (("move-agent", "depot", "depot"), ("build-track", "depot"), ("move-train", "station", "depot"))
    v = invalid(track.validate(plan), FailureKind.GOAL, None)    # every step applied
    assert v.atoms == ("(train-at town)",)
    logistics = validators["logistics", "p02"]
    loop = ("drive-truck", "boston-truck", "boston-office", "boston-office", "boston")
    assert logistics.validate(LOGISTICS_P02[:1] + (loop,) + LOGISTICS_P02[1:])


def test_deleted_atoms_are_gone_and_added_atoms_hold(validators):
    gripper = validators["gripper", "p01"]
    # after moving away, the robot is no longer in rooma
    v = invalid(gripper.validate([("move", "rooma", "roomb"), ("pick", "ball1", "rooma", "left")]),
                FailureKind.PRECONDITION, 2)
    assert v.atoms == ("(at-robby rooma)",)
    # after picking with left, left is no longer free
    v = invalid(gripper.validate([("pick", "ball1", "rooma", "left"), ("pick", "ball2", "rooma", "left")]),
                FailureKind.PRECONDITION, 2)
    assert v.atoms == ("(free left)",)


# ------------------------------------------------------------------ equality and negative goals

@pytest.fixture(scope="module")
def gripper_with_inequality():
    """Gripper whose move requires (not (= ?from ?to)), read from the bundled text."""
    bundle = next(b for b in load_bundled() if b.name == "gripper")
    text = bundle.domain_text.replace("(:requirements :strips :typing)",
                                      "(:requirements :strips :typing :equality)")
    anchor = ":parameters (?from - room ?to - room)\n    :precondition (and\n"
    assert text.count(anchor) == 1
    text = text.replace(anchor, anchor + "      (not (= ?from ?to))\n")
    domain, _ = read_domain(text)
    return domain, bundle.problems[0].problem


def test_inequality_precondition(gripper_with_inequality):
    domain, problem = gripper_with_inequality
    validator = PlanValidator(domain, problem)
    assert validator.validate(GRIPPER_P01)
    v = invalid(validator.validate((("move", "rooma", "rooma"),) + GRIPPER_P01), FailureKind.PRECONDITION, 1)
    assert v.atoms == ("(not (= rooma rooma))",)


def test_equality_with_a_constant(bundles):
    # a gripper whose drop only works with the left hand: (= ?g left), left a constant of the domain
    bundle = bundles["gripper"]
    text = bundle.domain_text.replace("(:requirements :strips :typing)",
                                      "(:requirements :strips :typing :equality)")
    anchor = "(carry ?obj ?g)\n      (at-robby ?room)\n"
    assert text.count(anchor) == 1
    domain, _ = read_domain(text.replace(anchor, anchor + "      (= ?g left)\n"))
    validator = PlanValidator(domain, bundle.problems[0].problem)
    v = invalid(validator.validate(GRIPPER_P01), FailureKind.PRECONDITION, 4)
    assert (v.action, v.atoms) == ("(drop ball2 roomb right)", ("(= right left)",))
    assert validator.validate(GRIPPER_P01[:3] + GRIPPER_P01[4:]).atoms == ("(at ball2 roomb)",)


def test_negative_goal(bundles):
    gripper = bundles["gripper"]
    problem = read_problem(gripper.problems[0].text.replace(
        "(at ball2 roomb)\n", "(at ball2 roomb)\n      (not (at-robby roomb))\n"))
    validator = PlanValidator(gripper.domain, problem)
    v = invalid(validator.validate(GRIPPER_P01), FailureKind.GOAL, None)
    assert v.atoms == ("(not (at-robby roomb))",)
    assert validator.validate(GRIPPER_P01 + (("move", "roomb", "rooma"),))


# ------------------------------------------------------------------------------- the verdict

def test_verdicts_round_trip_through_dicts(validators):
    v = validators["hiking", "p01"].validate([("walk", "l11", "l12")])
    assert plan_validation_from_dict(v.to_dict()) == v
    assert plan_validation_from_dict(VALID.to_dict()) == VALID
    assert v.to_dict()["kind"] == "unsatisfied precondition" and v.to_dict()["step"] == 1
