"""Proven Equivalent (METHOD 6a): every reference action, and variants that only look different."""

from __future__ import annotations

import dataclasses

import pytest
from tests.conftest import all_reference_actions

from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import ActionSchema, Atom, Literal, TypedName
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import ProofMethod

EXPLORE = ProofSettings(shortcuts=False)


def proven(bundle, action: ActionSchema, settings: ProofSettings | None = None):
    generated = bundle.domain.with_action(action, replacing=action.name)
    return prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action.name], settings=settings)


def renamed(action: ActionSchema) -> ActionSchema:
    names = {p.name: f"?renamed{i}" for i, p in enumerate(action.parameters)}
    return ActionSchema(action.name, tuple(TypedName(names[p.name], p.type) for p in action.parameters),
                        tuple(Literal(l.atom.rename(names), l.positive) for l in action.precondition),
                        tuple(Literal(l.atom.rename(names), l.positive) for l in action.effect))


def reordered(action: ActionSchema) -> ActionSchema:
    return dataclasses.replace(action, precondition=tuple(reversed(action.precondition)),
                               effect=tuple(reversed(action.effect)))


def duplicated(action: ActionSchema) -> ActionSchema:
    return dataclasses.replace(action, precondition=action.precondition + action.precondition[:1],
                               effect=action.effect + action.effect[-1:])


@pytest.mark.parametrize(("domain", "action"), all_reference_actions())
def test_every_reference_action_is_proven_equivalent_by_exploring_every_reachable_state(bundles, domain, action):
    bundle = bundles[domain]
    report = proven(bundle, bundle.domain.action(action), EXPLORE)
    assert (report.subclass, report.method, report.proven) == (Subclass.EQUIVALENT, ProofMethod.EXPLORATION, True)
    assert report.states >= len(bundle.problems) and report.problems == len(bundle.problems)
    assert report.message == (f"Equivalent, proven: {report.states} reachable states of "
                              f"{len(bundle.problems)} problems compared")
    assert report.counterexample is None


@pytest.mark.parametrize("variant", [renamed, reordered, duplicated])
@pytest.mark.parametrize(("domain", "action"), all_reference_actions())
def test_renamed_reordered_and_duplicated_variants_are_proven_equivalent(bundles, domain, action, variant):
    bundle = bundles[domain]
    answer = variant(bundle.domain.action(action))
    quick = proven(bundle, answer)
    assert (quick.subclass, quick.method, quick.proven) == (Subclass.EQUIVALENT, ProofMethod.SHORTCUT, True)
    assert "up to parameter names, conjunct order and duplicates" in quick.message
    explored = proven(bundle, answer, EXPLORE)
    assert (explored.subclass, explored.method) == (Subclass.EQUIVALENT, ProofMethod.EXPLORATION)


def test_re_adding_a_precondition_atom_the_action_deletes_is_no_shortcut(bundles):
    bundle = bundles["blocksworld"]
    stack = bundle.domain.action("stack")
    # stack deletes (holding ?x); with the add as well, the atom stays true (delete, then add)
    answer = dataclasses.replace(stack, effect=stack.effect + (Literal(Atom("holding", ("?x",))),))
    report = proven(bundle, answer)
    assert (report.subclass, report.method) == (Subclass.NP_APP, ProofMethod.EXPLORATION)
    assert report.counterexample.state.kind == "effect"
    assert report.counterexample.goal == ("(holding b)",) or report.counterexample.goal[0].startswith("(holding")


def test_re_added_untouched_precondition_atom_is_a_shortcut(bundles):
    bundle = bundles["track-building"]
    move = bundle.domain.action("move-train")
    kept = next(l for l in move.precondition if l.atom.predicate == "has-track")
    answer = dataclasses.replace(move, effect=move.effect + (kept,))
    report = proven(bundle, answer)
    assert (report.subclass, report.method) == (Subclass.EQUIVALENT, ProofMethod.SHORTCUT)
    assert "change no transition" in report.message
    assert proven(bundle, answer, EXPLORE).subclass is Subclass.EQUIVALENT


def test_negated_static_precondition_no_init_makes_true_is_a_shortcut(bundles):
    bundle = bundles["hiking"]
    # onTrail is static and some init holds it, but never from a place to itself
    assert not any(a.predicate == "ontrail" and a.args[0] == a.args[1] for p in bundle.problems for a in p.problem.init)
    walk = bundle.domain.action("walk")
    to = walk.parameter_names[1]
    answer = dataclasses.replace(walk, precondition=walk.precondition + (Literal(Atom("ontrail", (to, to)), False),))
    report = proven(bundle, answer)
    assert (report.subclass, report.method) == (Subclass.EQUIVALENT, ProofMethod.SHORTCUT)
    assert proven(bundle, answer, EXPLORE).subclass is Subclass.EQUIVALENT


def test_report_round_trips_through_to_dict(bundles):
    from domain_drafter.planning.proof_types import proof_from_dict

    bundle = bundles["gripper"]
    report = proven(bundle, bundle.domain.action("pick"), EXPLORE)
    again = proof_from_dict(report.to_dict())
    assert again == report and again.message == report.message


def _blocksworld_with_equality(bundles, folder):
    import shutil

    from domain_drafter.core.bundle import load_bundle

    source = bundles["blocksworld"].folder
    folder.mkdir()
    text = (source / "domain.pddl").read_text(encoding="utf-8")
    assert "(:requirements :strips :typing)" in text
    (folder / "domain.pddl").write_text(text.replace("(:requirements :strips :typing)",
                                                     "(:requirements :strips :typing :equality)"), encoding="utf-8")
    shutil.copytree(source / "problems", folder / "problems")
    return load_bundle(folder)


@pytest.mark.parametrize("budget", [100_000, 3])
def test_an_inequality_no_reachable_state_can_violate_is_proven_equivalent(bundles, tmp_path, budget):
    # stack(x, x) needs (holding x) and (clear x): never both in a reachable state, so
    # (not (= ?x ?y)) changes nothing; with a budget of 3 states the witness planner proves it.
    bundle = _blocksworld_with_equality(bundles, tmp_path / "bw")
    stack = bundle.domain.action("stack")
    answer = dataclasses.replace(stack, precondition=stack.precondition + (Literal(Atom("=", ("?x", "?y")), False),))
    report = proven(bundle, answer, ProofSettings(state_budget=budget))
    assert report.subclass is Subclass.EQUIVALENT and report.proven
    assert report.method is (ProofMethod.EXPLORATION if budget > 3 else ProofMethod.PLANNER)


def test_an_equality_that_reachable_states_meet_is_a_difference(bundles, tmp_path):
    bundle = _blocksworld_with_equality(bundles, tmp_path / "bw")
    unstack = bundle.domain.action("unstack")
    answer = dataclasses.replace(unstack, precondition=unstack.precondition + (Literal(Atom("=", ("?x", "?y"))),))
    report = proven(bundle, answer)
    assert report.proven and report.subclass in (Subclass.OP_APP, Subclass.NO_PLAN)
    assert report.counterexample.generated_validation.atoms[0].startswith("(= ")
