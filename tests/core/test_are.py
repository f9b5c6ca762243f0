"""ARE counts missing and extra atoms per term, after mapping parameters by position."""

from __future__ import annotations

from domain_drafter.core.answers import check_answer
from domain_drafter.core.are import action_reconstruction_error


def are_of(bundles, domain, action, answer):
    b = bundles[domain]
    report = check_answer(answer, b.domain, action)
    assert report.action is not None, report.findings
    return action_reconstruction_error(b.domain.action(action), report.action)


def test_renamed_parameters_and_reordered_atoms_cost_nothing(bundles):
    are = are_of(bundles, "blocksworld", "stack",
                 "(:action stack :parameters (?a - block ?b - block) :precondition (and (clear ?b) (holding ?a)) "
                 ":effect (and (not (clear ?b)) (not (holding ?a)) (handempty) (clear ?a) (on ?a ?b)))")
    assert are.total == 0
    assert dict(are.renaming) == {"?a": "?x", "?b": "?y"}


def test_each_term_lists_missing_and_extra_atoms(bundles):
    are = are_of(bundles, "blocksworld", "put-down",
                 "(:action put-down :parameters (?x - block) :precondition (and (holding ?x) (clear ?x)) "
                 ":effect (and (ontable ?x) (not (holding ?x)) (not (clear ?x))))")
    assert [str(l) for l in are.pre.extra] == ["(clear ?x)"]
    assert sorted(str(l) for l in are.add.missing) == ["(clear ?x)", "(handempty)"]
    assert [str(l) for l in are.delete.extra] == ["(not (clear ?x))"]
    assert (are.pre.value, are.add.value, are.delete.value, are.total) == (1, 2, 1, 4)


def test_negated_precondition_counts_apart_from_the_positive_one(bundles):
    are = are_of(bundles, "hiking", "walk",
                 "(:action walk :parameters (?from ?to - loc) :precondition (and (at ?from) (adjacent ?from ?to) "
                 "(ishill ?to) (not (iswater ?from))) :effect (and (at ?to) (not (at ?from))))")
    assert sorted(str(l) for l in are.pre.missing) == ["(not (ishill ?to))"]
    assert [str(l) for l in are.pre.extra] == ["(ishill ?to)"]
    assert are.total == 2


def test_swapped_parameters_show_up_as_atom_differences(bundles):
    are = are_of(bundles, "blocksworld", "stack",
                 "(:action stack :parameters (?y - block ?x - block) :precondition (and (holding ?x) (clear ?y)) "
                 ":effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))")
    assert dict(are.renaming) == {"?y": "?x", "?x": "?y"}
    assert [str(l) for l in are.pre.missing] == ["(holding ?x)", "(clear ?y)"]
    assert [str(l) for l in are.pre.extra] == ["(holding ?y)", "(clear ?x)"]
    assert [str(l) for l in are.add.missing] == ["(on ?x ?y)", "(clear ?x)"]
    assert [str(l) for l in are.add.extra] == ["(on ?y ?x)", "(clear ?y)"]
    assert [str(l) for l in are.delete.missing] == ["(not (holding ?x))", "(not (clear ?y))"]
    assert [str(l) for l in are.delete.extra] == ["(not (holding ?y))", "(not (clear ?x))"]
    assert (are.pre.value, are.add.value, are.delete.value, are.total) == (4, 4, 4, 12)


def test_extra_parameter_keeps_its_name_unless_taken(bundles):
    are = are_of(bundles, "blocksworld", "put-down",
                 "(:action put-down :parameters (?b - block ?x - block) :precondition (and (holding ?b) (clear ?x)) "
                 ":effect (and (ontable ?b) (clear ?b) (handempty) (not (holding ?b))))")
    assert dict(are.renaming) == {"?b": "?x", "?x": "?x'"}
    assert [str(l) for l in are.pre.extra] == ["(clear ?x')"]
