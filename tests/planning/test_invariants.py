"""The invariants of the bundled domains (issue 37): found, proven, and true in every reachable state."""

from __future__ import annotations

import pytest
from pddl_text import with_precondition

from domain_drafter.core.bundle import load_bundled
from domain_drafter.planning.grounding import Grounder
from domain_drafter.planning.invariants import find_invariants
from domain_drafter.planning.state_space import explore

# Checked by hand against each domain's actions: (group key, exactly one?), and the static predicates.
BY_HAND = {
    "blocksworld": ({("(handempty) (holding *)", True),              # the hand holds one block or is empty
                     ("(clear ?0) (holding ?0) (on * ?0)", True),    # a block is clear, held or under one block
                     ("(holding ?0) (on ?0 *) (ontable ?0)", True)}, ()),   # held, on one block or on the table
    "depot": ({("(available ?0) (lifting ?0 *)", True),
               ("(at ?0 *) (in ?0 *) (lifting * ?0)", True),           # a locatable is at one place, in or lifted
               ("(in ?0 *) (lifting * ?0) (on ?0 *)", True),
               ("(clear ?0) (in ?0 *) (lifting * ?0) (on * ?0)", True)}, ()),
    "gripper": ({("(at-robby *)", True), ("(at ?0 *) (carry ?0 *)", True), ("(carry * ?0) (free ?0)", True)}, ()),
    "heavy-pack": ({("(nothing-above ?0) (unpacked ?0)", False),      # an unpacked item is never a stack's top
                    ("(box-empty) (nothing-above *)", True),           # the box is empty or has one top item
                    ("(packed ?0) (unpacked ?0)", True)}, ("heavier",)),
    "hiking": ({("(at *)", True)}, ("iswater", "ishill", "adjacent", "ontrail")),
    "logistics": ({("(at ?0 *) (in ?0 *)", True),
                   ("(in-city ?0 *)", True)}, ("in-city",)),                # a fixed relation: one city per place
    # boarded and served may both hold: board does not ask that the passenger is not served yet
    "miconic": ({("(lift-at *)", True), ("(destin ?0 *)", True), ("(origin ?0 *)", True)},   # one of each per
                ("origin", "destin", "above")),                                              # passenger, fixed
    "track-building": ({("(agent-at *)", True), ("(train-at *)", True)}, ("forward",)),
    "trap-newspapers": ({("(at *)", True), ("(carrying ?0) (unpacked ?0)", False),
                         ("(satisfied ?0) (wantspaper ?0)", False)}, ("ishomebase", "safe")),
}

# Left out, the action's own groups change: what the others keep without it (spot checks, by hand).
WITHOUT = {
    ("gripper", "move"): {("(at ?0 *) (carry ?0 *)", True), ("(carry * ?0) (free ?0)", True)},
    ("heavy-pack", "stack"): {("(nothing-above ?0) (unpacked ?0)", True), ("(box-empty) (nothing-above *)", True),
                              ("(packed ?0) (unpacked ?0)", True), ("(box-empty) (packed *)", True)},
    ("miconic", "board"): {("(lift-at *)", True), ("(boarded ?0) (served ?0)", False), ("(destin ?0 *)", True),
                           ("(origin ?0 *)", True),
                           ("(boarded *) (served *)", False)},
}


def _found(bundle, without=None):
    return find_invariants(bundle.domain, [p.problem for p in bundle.problems], without)


@pytest.mark.parametrize("bundle", load_bundled(), ids=lambda b: b.name)
def test_every_bundled_domains_invariants_are_the_ones_checked_by_hand(bundle):
    found = _found(bundle)
    groups, static = BY_HAND[bundle.name]
    assert {(i.key, i.exactly_one) for i in found.invariants} == groups
    assert found.static == static


@pytest.mark.parametrize(("domain", "action"), sorted(WITHOUT))
def test_the_invariants_of_the_other_actions_leave_the_action_out(bundles, domain, action):
    assert {(i.key, i.exactly_one) for i in _found(bundles[domain], action).invariants} == WITHOUT[domain, action]


@pytest.mark.parametrize("bundle", load_bundled(), ids=lambda b: b.name)
def test_each_proven_invariant_holds_in_every_reachable_state(bundle):
    """The proof is checked against the states themselves: every reachable state keeps every group."""
    found = _found(bundle)
    for pf in bundle.problems:
        grounder = Grounder(bundle.domain, pf.problem, bundle.domain.fluent_predicates)
        space, _ = explore(grounder.ground_domain(bundle.domain), grounder.index, grounder.init_state(),
                           budget=200_000)
        assert space.complete and len(space.states) > 1
        for inv in found.invariants:
            groups: dict[tuple[str, ...], set[int]] = {}
            for number, atom in enumerate(grounder.index.atoms):
                for part in inv.parts:
                    if part.predicate == atom[0]:
                        key = part.key_of(atom[1:], inv.params)
                        if key is not None:
                            groups.setdefault(key, set()).add(number)
            for state in space.states:
                for key, members in groups.items():
                    held = sum(1 for m in members if state >> m & 1)
                    assert held <= 1, (bundle.name, inv.key, key)
                    if inv.exactly_one:
                        assert held == 1, (bundle.name, inv.key, key)


def test_a_group_too_full_in_some_initial_state_is_not_an_invariant(bundles):
    gripper = bundles["gripper"]
    problem = gripper.problems[0].problem
    from dataclasses import replace

    from domain_drafter.core.model import Atom

    ball = next(o.name for o in problem.objects if o.type == "ball")
    doubled = replace(problem, init=problem.init | {Atom("carry", (ball, "left"))})
    keys = {i.key for i in find_invariants(gripper.domain, [doubled]).invariants}
    assert "(at ?0 *) (carry ?0 *)" not in keys and "(at-robby *)" in keys


def test_descriptions_say_the_group_in_words(bundles):
    gripper = bundles["gripper"]
    words = _found(gripper).lines(gripper.domain)
    assert ("exactly one of (at ?b ?r) for some room, (carry ?b ?g) for some gripper holds, for each ball ?b"
            in words), words


def test_exclusive_preconditions_are_pairs_no_reference_holds_and_that_never_apply(bundles):
    """Over the 32 actions: the pairs of grammar literals that the other actions never make true together. No
    reference precondition holds a pair, and a reference with a pair added to its precondition applies in no
    reachable state (the exploration says so: the pair is why it is blocked)."""
    from domain_drafter.llm.grammar import ActionGrammar
    from domain_drafter.planning.diagnosis import reachability
    from domain_drafter.planning.invariants import exclusive_preconditions

    found = 0
    for bundle in bundles.values():
        problems = [p.problem for p in bundle.problems]
        for action in bundle.action_names:
            reference = bundle.domain.action(action)
            pre = {str(lit) for lit in reference.precondition}
            pairs = exclusive_preconditions(find_invariants(bundle.domain, problems, without=action),
                                            ActionGrammar(bundle.domain, action).literal_sets()[0])
            assert not [p for p in pairs if p[0] in pre and p[1] in pre], (bundle.name, action)
            found += len(pairs)
            for a, b in pairs[:2]:
                mutant = with_precondition(bundle, action, tuple(t for t in (a, b) if t not in pre))
                reach = reachability(bundle.domain.with_action(mutant, replacing=action), bundle.problems)
                assert all(r.exact for r in reach)
                assert all(any(x.action == action for x in r.blocked) for r in reach), (bundle.name, action, a, b)
    assert found >= 40


def test_unbalanced_deletes_are_never_in_a_reference_and_empty_a_group_when_added(bundles):
    """Over the 32 actions: the grammar's delete literals that no add it allows can balance in an exactly-one
    group of the other actions. No reference effect holds one; a reference with one added breaks the invariant:
    the invariant findings show the emptied group (they watch the deletes of counted parts, e.g. (at-robby *);
    gripper move's (not (free left)) empties (carry * left) (free left) too, unwatched)."""
    from domain_drafter.llm.grammar import ActionGrammar
    from domain_drafter.planning.invariant_findings import judge_action
    from domain_drafter.planning.invariants import unbalanced_deletes

    found, flagged = {}, 0
    for bundle in bundles.values():
        problems = [p.problem for p in bundle.problems]
        for action in bundle.action_names:
            effect = {str(lit) for lit in bundle.domain.action(action).effect}
            deletes = unbalanced_deletes(find_invariants(bundle.domain, problems, without=action),
                                         ActionGrammar(bundle.domain, action).literal_sets()[1])
            assert not effect & set(deletes), (bundle.name, action)
            assert all(d.startswith("(not (") for d in deletes)
            found[(bundle.name, action)] = deletes
            for delete in deletes:
                mutant = with_precondition(bundle, action, (), effect=(delete,))
                report = judge_action(bundle.domain, problems, action, mutant)
                flagged += bool(report.findings)
                if (bundle.name, action) == ("gripper", "pick"):
                    assert "none of (at-robby *) holds" in report.findings[0].message
    assert found[("gripper", "pick")] == ("(not (at-robby ?room))",)        # pick names no other room
    assert found[("gripper", "move")] == ("(not (free left))", "(not (free right))")   # move names no ball
    assert found[("gripper", "drop")] == ("(not (at-robby ?room))",)
    assert found[("blocksworld", "stack")] == ()
    assert sum(map(len, found.values())) >= 20 and sum(1 for d in found.values() if d) >= 12
    assert flagged >= 20, flagged   # all 22 but gripper move's two
