"""Whole-domain proof (the entry point whole-domain compare builds on): every action compared at once."""

from __future__ import annotations

import dataclasses

from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import Domain
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import ProofMethod


def with_actions(domain: Domain, *actions) -> Domain:
    for action in actions:
        domain = domain.with_action(action)
    return domain


def drop_effect(action, predicate: str):
    return dataclasses.replace(action, effect=tuple(l for l in action.effect if l.atom.predicate != predicate))


def test_identical_domains_are_proven_equivalent_with_every_action_compared(bundles):
    for bundle in bundles.values():
        report = prove_equivalence(bundle.domain, bundle.domain, bundle.problems, actions=None)
        assert (report.subclass, report.method) == (Subclass.EQUIVALENT, ProofMethod.SHORTCUT)
        assert f"all {len(bundle.domain.actions)} actions" in report.reason
        explored = prove_equivalence(bundle.domain, bundle.domain, bundle.problems, actions=None,
                                     settings=ProofSettings(shortcuts=False))
        assert explored.subclass is Subclass.EQUIVALENT and explored.method is ProofMethod.EXPLORATION


def test_the_first_reachable_state_where_any_action_differs_blames_that_action(bundles):
    bundle = bundles["trap-newspapers"]
    d = bundle.domain
    # deliver differs only after a pick-up and a move; pick-up differs in the initial state already
    candidate = with_actions(d, drop_effect(d.action("deliver"), "wantspaper"), drop_effect(d.action("pick-up"), "unpacked"))
    report = prove_equivalence(d, candidate, bundle.problems, actions=None)
    assert report.proven and report.subclass is Subclass.NP_APP
    assert report.counterexample.state.step.startswith("(pick-up ") and report.counterexample.state.prefix == ()
    only_deliver = with_actions(d, drop_effect(d.action("deliver"), "wantspaper"))
    later = prove_equivalence(d, only_deliver, bundle.problems, actions=None)
    assert later.counterexample.state.step.startswith("(deliver ") and len(later.counterexample.state.prefix) == 2


def test_an_action_missing_from_the_candidate_is_never_applicable_there(bundles):
    bundle = bundles["blocksworld"]
    d = bundle.domain
    candidate = Domain(d.name, d.requirements, d.types, d.constants, d.predicates,
                       tuple(a for a in d.actions if a.name != "put-down"))
    report = prove_equivalence(d, candidate, bundle.problems, actions=None)
    assert report.subclass in (Subclass.NO_PLAN, Subclass.OP_APP) and report.proven
    cx = report.counterexample
    assert cx.state.step.startswith("(put-down ") and cx.valid_in == "reference"
    assert "no action 'put-down'" in cx.generated_validation.message
