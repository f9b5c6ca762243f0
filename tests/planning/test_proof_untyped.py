"""The proof on untyped domains (issue 38): answers that drop the kind preconditions are proven, and the
reductions that make this fast change no verdict, counterexample or score (checked against grounding every
binding, the path before them)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.planning.untyped_answers import ANSWERS, Answer, untyped_bundle

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import Atom, Literal
from domain_drafter.core.reader import read_problem
from domain_drafter.planning import proof as proof_module
from domain_drafter.planning.argument_domains import argument_domains
from domain_drafter.planning.grounding import Grounder
from domain_drafter.planning.pair_grounding import ground_pairs, possible_atoms
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import ProofMethod
from domain_drafter.planning.state_space import explore

EXPLORE = ProofSettings(shortcuts=False)
OLD_PATH = ProofSettings(shortcuts=False, reduce=False)


def answer_domain(answer: Answer):
    bundle = untyped_bundle(answer.domain)
    check = check_answer(answer.text, bundle.domain, answer.action)
    assert check.passed, check.findings
    return bundle, bundle.domain.with_action(check.action, replacing=answer.action)


def answer(action: str, why: str) -> Answer:
    return next(a for a in ANSWERS if a.action == action and a.why == why)


@pytest.mark.parametrize("case", ANSWERS, ids=[f"{a.domain}-{a.action}-{a.why[:24]}" for a in ANSWERS])
def test_every_untyped_answer_is_proven_by_exploration_within_a_small_grounding_limit(case):
    bundle, generated = answer_domain(case)
    # a thousand groundings per action: the old path grounds the answer's untyped parameters over every object
    report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=[case.action],
                               settings=dataclasses.replace(EXPLORE, grounding_limit=1000))
    assert report.proven and report.method is ProofMethod.EXPLORATION, report.reason
    if case.equivalent:
        assert report.subclass is Subclass.EQUIVALENT, case.why
        assert report.score.value == 1.0
    else:
        # the answer applies where the reference cannot (it lacks a kind): NPApp, checked by the conftest fixture
        assert report.subclass is Subclass.NP_APP, case.why
        assert report.counterexample.valid_in == "generated"
        assert report.counterexample.state.kind == "applicability"
        assert 0 < report.score.value < 1.0


def test_the_old_path_gives_up_where_the_reduced_one_proves():
    case = answer("dash", "every static precondition dropped: three free parameters")
    bundle, generated = answer_domain(case)
    limited = dict(grounding_limit=1000)
    old = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["dash"],
                            settings=dataclasses.replace(OLD_PATH, **limited))
    assert not old.proven and "more than 1000 groundings" in old.reason
    new = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["dash"],
                            settings=dataclasses.replace(EXPLORE, **limited))
    assert new.proven and new.subclass is Subclass.NP_APP


def test_kinds_are_inferred_for_untyped_parameters_from_what_reachable_states_allow():
    bundle = untyped_bundle("shuttle")
    case = answer("hop", "every static precondition dropped: two free parameters")
    _, generated = answer_domain(case)
    problem = bundle.problems[0].problem
    grounder = Grounder(generated, problem, generated.fluent_predicates)
    declared = {a.name: [grounder.candidates(p.type) for p in a.parameters] for a in generated.actions}
    inferred = argument_domains(generated, declared, grounder.init)
    planes, towns = ("kestrel", "osprey"), ("dover", "leeds", "york")
    # no kind left in the answer's hop: (fuel ?craft ?have) still holds only for planes in every reachable state
    assert inferred["hop"][0] == planes
    assert inferred["embark"][0] == ("ann", "bo", "cy") and inferred["embark"][2] == towns
    # but a hop may now put a plane at any object, so ?from (a location of a plane) ranges over all twelve
    assert len(inferred["hop"][1]) == len(problem.objects) == 12
    untyped = Grounder(generated, problem, generated.fluent_predicates, infer_types=False)
    # hop: 2 planes x 12^4 instead of 12^5
    assert len(grounder.ground_domain(generated)) * 5 < len(untyped.ground_domain(generated))


def test_a_free_parameter_becomes_one_pair_weighted_by_the_bindings_it_stands_for():
    bundle = untyped_bundle("shuttle")
    case = answer("hop", "a plane hops to a traveller")
    _, generated = answer_domain(case)
    problem = bundle.problems[0].problem
    grounder = Grounder(bundle.domain, problem, bundle.domain.fluent_predicates)
    actions = grounder.ground_domain(bundle.domain)
    space, _ = explore(actions, grounder.index, grounder.init_state(), budget=100_000)
    possible = possible_atoms(space, lambda: actions, grounder.index, grounder.init_state())
    assert ("located", "kestrel", "york") in possible and ("located", "kestrel", "ann") not in possible
    pairs = ground_pairs(grounder, bundle.domain, generated, ["hop"], possible)
    # ?to is free: per (plane, town, fuel step, step below) one pair for the 9 non-town objects
    # 2 planes x 3 towns x 3 (have, left) steps = 18 bindings of the rest
    representatives = [p for p in pairs.pairs if p.reference is None]
    assert len(representatives) == 18
    assert {pairs.weights[pairs.pairs.index(p)] for p in representatives} == {9}
    # the score still counts every binding whose static preconditions hold: 12^3 x 3 (below) of the answer
    ref = len(grounder.ground(bundle.domain.action("hop")))
    assert pairs.groundings == 12 ** 3 * 3 and ref == 2 * 3 * 3 * 3


TINY_SHUTTLE = """(define (problem tiny) (:domain shuttle)
  (:objects jet ann bo ayr bree s0 s1 s2)
  (:init (plane jet) (traveller ann) (traveller bo) (town ayr) (town bree)
         (fuel-step s0) (fuel-step s1) (fuel-step s2) (below s0 s1) (below s1 s2)
         (located jet ayr) (fuel jet s1) (located ann ayr) (located bo bree))
  (:goal (located ann bree)))"""
TINY_HAULAGE = """(define (problem tiny) (:domain haulage)
  (:objects van dan box s1 s2 w)
  (:init (lorry van) (driver dan) (crate box) (site s1) (site s2) (road s1 s2) (road s2 s1)
         (footpath s1 w) (footpath w s1) (footpath s2 w) (footpath w s2)
         (at van s1) (unmanned van) (at dan s2) (at box s1))
  (:goal (at box s2)))"""


@pytest.mark.parametrize("case", ANSWERS, ids=[f"{a.domain}-{a.action}-{a.why[:24]}" for a in ANSWERS])
def test_the_reductions_agree_with_grounding_every_binding_on_a_small_untyped_problem(case):
    bundle, generated = answer_domain(case)
    text = TINY_SHUTTLE if case.domain == "shuttle" else TINY_HAULAGE
    problems = [ProblemFile("tiny", Path("tiny.pddl"), text, read_problem(text))]
    new = prove_equivalence(bundle.domain, generated, problems, actions=[case.action], settings=EXPLORE)
    old = prove_equivalence(bundle.domain, generated, problems, actions=[case.action], settings=OLD_PATH)
    assert new.proven and old.proven
    assert new.subclass is old.subclass
    assert new.score.problems == old.score.problems          # states, every grounding, agreeing pairs
    if old.counterexample is not None:
        assert len(new.counterexample.state.prefix) == len(old.counterexample.state.prefix)


def _mutants(action):
    """The action with each precondition literal dropped in turn, and with every one dropped."""
    for i in range(len(action.precondition)):
        yield dataclasses.replace(action, precondition=action.precondition[:i] + action.precondition[i + 1:])
    if action.precondition:
        yield dataclasses.replace(action, precondition=())


def test_the_reductions_change_nothing_on_the_bundled_domains(bundles):
    checked = differing = 0
    for bundle in bundles.values():
        for action in bundle.domain.actions:
            for mutant in _mutants(action):
                generated = bundle.domain.with_action(mutant, replacing=action.name)
                new = prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action.name],
                                        settings=EXPLORE)
                old = prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action.name],
                                        settings=OLD_PATH)
                where = (bundle.name, action.name, mutant.precondition)
                assert (new.subclass, new.method, new.proven) == (old.subclass, old.method, old.proven), where
                assert new.score == old.score, where
                assert (new.counterexample is None) == (old.counterexample is None), where
                if old.counterexample is not None:
                    assert new.counterexample.plan == old.counterexample.plan, where
                    assert new.counterexample.state == old.counterexample.state, where
                    differing += 1
                checked += 1
    assert checked > 100 and differing > 50


def test_past_the_state_budget_the_relaxed_atoms_keep_every_pair_that_can_differ():
    # one state explored: the answer's bindings are pruned by the atoms a delete-free relaxation reaches
    few = dataclasses.replace(EXPLORE, state_budget=1)
    wrong = answer("drive", "the road dropped too: a lorry drives to a crate")
    bundle, generated = answer_domain(wrong)
    report = prove_equivalence(bundle.domain, generated, bundle.problems[:1], actions=["drive"], settings=few)
    assert report.proven and report.method is ProofMethod.PLANNER and report.subclass is Subclass.NP_APP
    assert report.counterexample.state.prefix     # a driver must climb in first: beyond the one explored state
    right = answer("drive", "steering implies the kinds, roads join sites")
    bundle, generated = answer_domain(right)
    report = prove_equivalence(bundle.domain, generated, bundle.problems[:1], actions=["drive"], settings=few)
    assert report.proven and report.subclass is Subclass.EQUIVALENT


def test_noplan_is_settled_by_the_reference_plan_when_the_answer_can_follow_it(monkeypatch):
    asked = []
    real = proof_module.unreachable_goal

    def recording(generated, problems, **kwargs):
        asked.append([p.name for p in problems])
        return real(generated, problems, **kwargs)

    monkeypatch.setattr(proof_module, "unreachable_goal", recording)
    bundle, generated = answer_domain(answer("walk", "a crate walks"))
    report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["walk"], settings=EXPLORE)
    assert report.subclass is Subclass.NP_APP
    assert asked == [[]]                 # both problems: the reference's shortest plan is a plan of the answer
    assert all(p.solvable for p in report.score.problems)
    # 50 states reach no goal: the reference's plan then comes from Fast Downward, and is the answer's too
    few = dataclasses.replace(EXPLORE, state_budget=50)
    report = prove_equivalence(bundle.domain, generated, bundle.problems, actions=["walk"], settings=few)
    assert report.subclass is Subclass.NP_APP and asked[-1] == []
    assert not any(p.complete for p in report.score.problems) and all(p.solvable for p in report.score.problems)
    # an answer that can never walk: the reference's plans walk, so the answer's own states are searched
    walk = bundle.domain.action("walk")
    never = dataclasses.replace(walk, precondition=(*walk.precondition, Literal(Atom("crate", ("?d",)))))
    blocked = bundle.domain.with_action(never, replacing="walk")
    report = prove_equivalence(bundle.domain, blocked, bundle.problems, actions=["walk"], settings=EXPLORE)
    assert asked[-1] and report.proven and report.subclass in (Subclass.NO_PLAN, Subclass.OP_APP)
