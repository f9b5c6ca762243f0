"""Plans in words: each step from the action's summary, with what it changes; failures said in words."""

from __future__ import annotations

from domain_drafter.core.plan_words import plan_in_words


def _p01(bundles, name="blocksworld"):
    bundle = bundles[name]
    return bundle, next(p for p in bundle.problems if p.name == "p01").problem


def test_each_step_says_what_it_does_and_what_changes(bundles):
    bundle, problem = _p01(bundles)
    told = plan_in_words(bundle.domain, bundle.descriptions, problem, [("unstack", "c", "a")])
    step = told.steps[0]
    assert step.sentence == "the hand lifts block c off block a"
    assert step.text == ("unstack c a: the hand lifts block c off block a; now the hand is holding block c, "
                         "nothing is on top of block a, block c is not on top of block a, "
                         "something is on top of block c, the hand is not empty")
    assert not told.valid and told.goal_unmet   # one step does not reach the goal
    assert told.lines()[-1].startswith("the goal is not reached: block a is on top of block b")


def test_a_whole_plan_reaches_the_goal(bundles):
    bundle, problem = _p01(bundles)
    plan = [("unstack", "c", "a"), ("put-down", "c"), ("pick-up", "b"), ("stack", "b", "c"),
            ("pick-up", "a"), ("stack", "a", "b")]
    told = plan_in_words(bundle.domain, bundle.descriptions, problem, plan)
    assert told.valid
    assert [s.number for s in told.steps] == [1, 2, 3, 4, 5, 6]
    assert told.lines()[-1] == "the goal is reached"
    assert told.steps[3].sentence == "the hand places block b on top of block c"


def test_a_step_that_cannot_happen_says_which_condition_fails(bundles):
    bundle, problem = _p01(bundles)
    told = plan_in_words(bundle.domain, bundle.descriptions, problem, [("pick-up", "a"), ("stack", "a", "b")])
    assert len(told.steps) == 1
    assert told.steps[0].failed == "something is on top of block a"   # (clear a) is unmet: say what holds
    assert told.lines() == ["1. pick-up a: the hand picks up block a from the table; this cannot happen: "
                            "something is on top of block a"]


def test_unknown_actions_and_constants_are_handled(bundles):
    bundle, problem = _p01(bundles, "gripper")
    told = plan_in_words(bundle.domain, bundle.descriptions, problem, [("fly", "rooma")])
    assert told.steps[0].failed == "the domain has no such action"
    ball = next(o.name for o in problem.objects if o.type == "ball")
    room = next(a.args[1] for a in problem.init if a.predicate == "at" and a.args[0] == ball)
    told = plan_in_words(bundle.domain, bundle.descriptions, problem, [("pick", ball, room, "left")])
    assert told.steps[0].failed is None
    assert f"gripper left is carrying ball {ball}" in told.steps[0].now
