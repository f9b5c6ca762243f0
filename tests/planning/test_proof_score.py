"""The agreement score (METHOD 6b): exact on hand-counted problems, 100% exactly on Equivalent answers, monotone
for an answer repaired step by step."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.planning.test_proof_equivalent import renamed, reordered

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.reader import read_domain, read_problem
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import proof_from_dict

LAMPS = """(define (domain lamps)
  (:requirements :strips :typing)
  (:types lamp)
  (:predicates (off ?l - lamp) (lit ?l - lamp))
  (:action light
    :parameters (?l - lamp)
    :precondition (off ?l)
    :effect (and (lit ?l) (not (off ?l)))))
"""
TWO_LAMPS = """(define (problem two) (:domain lamps)
  (:objects a b - lamp)
  (:init (off a) (off b))
  (:goal (and (lit a) (lit b))))
"""
EXPLORE = ProofSettings(shortcuts=False)


def parsed(text: str, domain, action: str):
    check = check_answer(text, domain, action)
    assert check.passed, check.findings
    return check.action


def _lamps(action_text: str):
    reference, _ = read_domain(LAMPS)
    problem = ProblemFile("two", Path("two.pddl"), TWO_LAMPS, read_problem(TWO_LAMPS))
    generated = reference.with_action(parsed(action_text, reference, "light"), replacing="light")
    return prove_equivalence(reference, generated, [problem], actions=["light"], settings=EXPLORE)


def test_score_counts_every_state_and_grounding_by_hand():
    # 4 reachable states x 2 groundings = 8 pairs. Not deleting (off ?l) changes the successor wherever
    # light(x) applies: both groundings in the initial state, one in each one-lamp-lit state: 4 of 8 differ.
    report = _lamps("(:action light :parameters (?l - lamp) :precondition (off ?l) :effect (lit ?l))")
    assert report.subclass is Subclass.NP_APP and report.proven
    score = report.score
    assert (score.pairs, score.agreeing) == (8, 4) and score.value == 0.5
    assert score.problems[0].states == 4 and score.problems[0].groundings == 2 and score.complete
    assert score.words == "agrees on 50% of 8 state-action pairs"
    # no precondition at all: light(x) also applies where x is lit, and there adds nothing new but
    # deletes nothing either; successor equals the state only where x is lit and not off: the
    # reference is inapplicable there, so those 4 pairs differ too, plus none of the rest
    loose = _lamps("(:action light :parameters (?l - lamp) :precondition (and) "
                   ":effect (and (lit ?l) (not (off ?l))))").score
    assert (loose.pairs, loose.agreeing) == (8, 4)


def test_score_survives_the_verdict_cache_round_trip():
    report = _lamps("(:action light :parameters (?l - lamp) :precondition (off ?l) :effect (lit ?l))")
    again = proof_from_dict(report.to_dict())
    assert again.score == report.score
    assert report.to_dict()["score"]["value"] == 0.5


def test_score_is_exactly_one_on_every_reference_action_and_its_renamings(bundles):
    for bundle in bundles.values():
        for action in bundle.domain.actions:
            for variant in (action, renamed(action), reordered(action)):
                generated = bundle.domain.with_action(variant, replacing=action.name)
                report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action.name],
                                           settings=EXPLORE)
                assert report.subclass is Subclass.EQUIVALENT, (bundle.name, action.name)
                assert report.score.value == 1.0 and report.score.pairs > 0, (bundle.name, action.name)
                assert report.score.words.startswith("agrees on 100% of")


def test_score_is_below_one_on_every_different_answer_and_rises_as_the_answer_is_repaired(bundles):
    bundle = bundles["blocksworld"]
    # pick-up repaired one edit at a time, from a broken answer to the reference
    steps = [
        "(:action pick-up :parameters (?x - block) :precondition (and (ontable ?x) (handempty)) "
        ":effect (and (holding ?x) (clear ?x)))",
        "(:action pick-up :parameters (?x - block) :precondition (and (clear ?x) (ontable ?x) (handempty)) "
        ":effect (and (holding ?x) (clear ?x)))",
        "(:action pick-up :parameters (?x - block) :precondition (and (clear ?x) (ontable ?x) (handempty)) "
        ":effect (and (holding ?x) (not (clear ?x))))",
        "(:action pick-up :parameters (?x - block) :precondition (and (clear ?x) (ontable ?x) (handempty)) "
        ":effect (and (holding ?x) (not (clear ?x)) (not (ontable ?x))))",
        bundle.domain.action("pick-up").to_pddl(),
    ]
    scores = []
    for text in steps:
        generated = bundle.domain.with_action(parsed(text, bundle.domain, "pick-up"), replacing="pick-up")
        report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["pick-up"], settings=EXPLORE)
        scores.append(report.score.value)
        assert (report.subclass is Subclass.EQUIVALENT) == (report.score.value == 1.0), text
    assert scores == sorted(scores) and scores[-1] == 1.0 and scores[0] < 1.0, scores
    # a pair agrees or not: the precondition repair removes differing pairs; the effect repairs leave every
    # applicable pair differing until the last one makes the successors equal (the ARE breaks such ties)
    assert scores[1] > scores[0] and scores[-1] > scores[-2], scores


def test_shortcut_equivalent_scores_one_without_counting(bundles):
    bundle = bundles["gripper"]
    action = bundle.domain.action("pick")
    generated = bundle.domain.with_action(parsed(action.to_pddl(), bundle.domain, "pick"), replacing="pick")
    report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["pick"])
    assert report.score.shortcut and report.score.value == 1.0


@pytest.mark.parametrize("kind", ["noplan"])
def test_noplan_answers_count_their_solvable_problems(bundles, kind):
    bundle = bundles["blocksworld"]
    text = bundle.domain.action("pick-up").to_pddl().replace("(holding ?x)", "", 1)
    generated = bundle.domain.with_action(parsed(text, bundle.domain, "pick-up"), replacing="pick-up")
    report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["pick-up"], settings=EXPLORE)
    assert report.subclass is Subclass.NO_PLAN
    assert report.score.solvable < len(bundle.problems)
    assert f"{report.score.solvable} of {len(bundle.problems)} problems solvable" in report.score.words
    assert 0 < report.score.value < 1


def test_a_noplan_message_says_which_problem_its_distinguishing_state_is_on(bundles):
    """Defect 10 of the walk-through: the summary cited p02 while the state shown was on p01."""
    for bundle in bundles.values():
        for action in bundle.domain.actions:
            for i in range(len(action.effect)):
                mutant = dataclasses.replace(action, effect=action.effect[:i] + action.effect[i + 1:])
                generated = bundle.domain.with_action(mutant, replacing=action.name)
                report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action.name])
                if report.subclass is Subclass.NO_PLAN and report.counterexample is not None:
                    cx_problem = report.counterexample.state.problem
                    shown = f"the distinguishing state shown is on problem {cx_problem}"
                    assert (shown in report.message) == (cx_problem != report.noplan_problem), report.message
