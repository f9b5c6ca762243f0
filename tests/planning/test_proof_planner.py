"""Past the state budget: the witness planning task on the Fast Downward search inside kstar-planner.

The problem (tests/planning/big_logistics.py) has 2,400,000 reachable states; the exploration
stops at a small budget and the planner decides: a plan is a counterexample, unsolvability a proof.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.planning.big_logistics import REACHABLE_STATES, write_big_logistics

from domain_drafter.core.bundle import bundled_root, load_bundle
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import Atom, Literal
from domain_drafter.planning.fd_search import FastDownwardSearch
from domain_drafter.planning.grounding import Grounder
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import ProofMethod
from domain_drafter.planning.state_space import explore

BUDGET = 40


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder = write_big_logistics(tmp_path_factory.mktemp("big") / "logistics", bundled_root() / "logistics" / "domain.pddl")
    return load_bundle(folder)


def prove(bundle, action, budget=BUDGET, time_limit_s=60.0, search=None):
    generated = bundle.domain.with_action(action)
    return prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action.name],
                             settings=ProofSettings(state_budget=budget, time_limit_s=time_limit_s, shortcuts=False),
                             search=search)


def test_the_problem_has_more_than_a_million_reachable_states(big):
    assert REACHABLE_STATES == 2_400_000
    grounder = Grounder(big.domain, big.problems[0].problem, big.domain.fluent_predicates)
    space, _ = explore(grounder.ground_domain(big.domain), grounder.index, grounder.init_state(), budget=20_000)
    assert not space.complete and space.stopped == "state budget 20000 reached"


def test_difference_past_the_budget_is_found_by_the_witness_planner(big):
    unload = big.domain.action("unload-airplane")
    keeps_package_inside = dataclasses.replace(unload, effect=tuple(l for l in unload.effect if l.positive))
    report = prove(big, keeps_package_inside)
    assert (report.subclass, report.method, report.proven) == (Subclass.NP_APP, ProofMethod.PLANNER, True)
    cx = report.counterexample
    assert cx.state.step.startswith("(unload-airplane ") and cx.valid_in == "generated"
    assert len(cx.plan) >= 2 and cx.state.kind == "effect"
    assert report.states == BUDGET


def test_equivalence_past_the_budget_is_proven_by_the_witness_planner(big):
    # In every reachable state a package at a place is in no vehicle, so this precondition is
    # redundant; no shortcut can see it, the witness planner proves it.
    load = big.domain.action("load-truck")
    redundant = dataclasses.replace(load, precondition=load.precondition
                                    + (Literal(Atom("in", ("?pkg", "?truck")), positive=False),))
    report = prove(big, redundant)
    assert (report.subclass, report.method, report.proven) == (Subclass.EQUIVALENT, ProofMethod.PLANNER, True)
    assert "the witness planner proved that no reachable state differs" in report.message
    assert f"state budget {BUDGET} reached" in report.reason


def test_a_witness_planner_that_runs_out_of_time_leaves_the_verdict_heuristic(big):
    load = big.domain.action("load-truck")
    redundant = dataclasses.replace(load, precondition=load.precondition
                                    + (Literal(Atom("in", ("?pkg", "?truck")), positive=False),))
    report = prove(big, redundant, time_limit_s=0.001)
    assert (report.subclass, report.method, report.proven) == (None, ProofMethod.HEURISTIC, False)
    assert "did not finish" in report.reason and report.states <= BUDGET


def test_a_missing_planner_leaves_the_verdict_heuristic_and_says_why(big):
    load = big.domain.action("load-truck")
    redundant = dataclasses.replace(load, precondition=load.precondition
                                    + (Literal(Atom("in", ("?pkg", "?truck")), positive=False),))
    report = prove(big, redundant, search=FastDownwardSearch(python=str(Path("/nonexistent/python3"))))
    assert report.method is ProofMethod.HEURISTIC and not report.proven
    assert "cannot start" in report.reason
