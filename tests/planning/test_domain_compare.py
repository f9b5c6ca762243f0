"""Whole-domain comparison with real K*: self-equivalence, one-action mutants blamed on their action."""

from __future__ import annotations

import dataclasses

import pytest

from domain_drafter.core.bundle import bundled_names
from domain_drafter.core.errors import DomainError
from domain_drafter.core.model import Atom, Literal
from domain_drafter.planning.domain_compare import (
    ActionStatus,
    DomainVerdict,
    compare_domains,
    first_divergence,
)
from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.state_cache import StateCache

# One mutant per kind and domain: (action, atom). The first type-fitting atom is not always
# detectable by the plan heuristic on the domain's two problems, so some entries skip it:
# - depot, extra add in lift of (at ?surface ?place): the surface is always there already.
# - heavy-pack, extra add of (unpacked ?item) in pack-first: added and deleted, so it stays;
#   pack-first happens once per plan and nothing else needs the item unpacked; (unpacked
#   ?bottom) in stack likewise. (box-empty) in stack lets pack-first run twice: detected.
# - trap-newspapers, extra add of (satisfied ?loc) / (wantspaper ?loc) in pick-up: ?loc is the
#   home base, which no goal mentions and no action reads; in move, (satisfied ?from) reaches goals.
# - hiking and logistics: every type-fitting fluent atom over the action's parameters already is
#   a precondition or an add effect, so the extra add re-adds a deleted atom (add wins over delete).
MUTANTS = {
    "blocksworld": {"drop-delete": ("pick-up", "(ontable ?x)"), "extra-add": ("pick-up", "(on ?x ?x)"),
                    "stricter-pre": ("pick-up", "(holding ?x)")},
    "depot": {"drop-delete": ("drive", "(at ?truck ?from)"), "extra-add": ("lift", "(on ?crate ?crate)"),
              "stricter-pre": ("drive", "(at ?truck ?to)")},
    "gripper": {"drop-delete": ("move", "(at-robby ?from)"), "extra-add": ("move", "(free left)"),
                "stricter-pre": ("move", "(at-robby ?to)")},
    "heavy-pack": {"drop-delete": ("pack-first", "(box-empty)"), "extra-add": ("stack", "(box-empty)"),
                   "stricter-pre": ("pack-first", "(heavier ?item ?item)")},
    "hiking": {"drop-delete": ("walk", "(at ?from)"), "extra-add": ("walk", "(at ?from)"),
               "stricter-pre": ("walk", "(at ?to)")},
    "logistics": {"drop-delete": ("load-truck", "(at ?pkg ?place)"), "extra-add": ("load-truck", "(at ?pkg ?place)"),
                  "stricter-pre": ("load-truck", "(in ?pkg ?truck)")},
    "miconic": {"drop-delete": ("depart", "(boarded ?p)"), "extra-add": ("board", "(served ?p)"),
                "stricter-pre": ("board", "(destin ?p ?f)")},
    "track-building": {"drop-delete": ("move-agent", "(agent-at ?cur)"),
                       "extra-add": ("build-track", "(train-at ?loc)"),
                       "stricter-pre": ("build-track", "(train-at ?loc)")},
    "trap-newspapers": {"drop-delete": ("pick-up", "(unpacked ?paper)"), "extra-add": ("move", "(satisfied ?from)"),
                        "stricter-pre": ("pick-up", "(satisfied ?loc)")},
}


def atom(text: str) -> Atom:
    name, *args = text.strip("()").split()
    return Atom(name, tuple(args))


def mutate(domain, kind: str, action: str, text: str):
    a = domain.action(action)
    target = atom(text)
    if kind == "drop-delete":
        assert target in a.delete, f"{text} is no delete of {action}"
        a = dataclasses.replace(a, effect=tuple(l for l in a.effect if l != Literal(target, False)))
    elif kind == "extra-add":
        assert target not in a.add
        a = dataclasses.replace(a, effect=a.effect + (Literal(target),))
    else:
        assert target not in a.pre_pos
        a = dataclasses.replace(a, precondition=a.precondition + (Literal(target),))
    return domain.with_action(a)


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    planner = KStarPlanner()
    cache = PlanCache(planner, tmp_path_factory.mktemp("compare-plans"))
    states = StateCache(tmp_path_factory.mktemp("compare-states"))
    return lambda bundle, candidate, options=None: compare_domains(bundle, candidate, planner, cache,
                                                                   options=options, states=states)


@pytest.mark.parametrize("name", bundled_names())
def test_every_bundled_domain_is_equivalent_to_itself(name, bundles, judge):
    result = judge(bundles[name], bundles[name].domain)
    assert result.verdict is DomainVerdict.EQUIVALENT, result.message
    assert result.proven and result.message.startswith("Equivalent, proven"), result.message
    assert all(a.status is ActionStatus.SAME for a in result.actions) and result.are_total == 0
    assert result.divergence is None and result.error is None


def test_every_bundled_domain_has_a_mutant_of_each_kind():
    assert sorted(MUTANTS) == bundled_names()


@pytest.mark.parametrize("name,kind", [(n, k) for n in sorted(MUTANTS) for k in MUTANTS[n]])
def test_a_mutated_action_makes_a_different_domain_and_takes_the_blame(name, kind, bundles, judge):
    action, text = MUTANTS[name][kind]
    bundle = bundles[name]
    result = judge(bundle, mutate(bundle.domain, kind, action, text))
    assert result.verdict is DomainVerdict.DIFFERENT, result.message
    assert result.changed == (action,) and result.are_total == 1
    d = result.divergence
    assert d is not None and d.action == action, result.message
    assert d.plan[d.step - 1].startswith(f"({action}")
    assert f"step {d.step} " in d.message and f"blame '{action}'" in result.message
    assert "candidate domain" in result.message and "generated" not in result.message
    if kind == "stricter-pre":
        assert d.reason == "precondition" and "not in the candidate domain" in d.message
    else:
        assert d.reason == "effect"


def test_a_difference_the_plans_miss_is_proven_and_blamed_on_its_action(bundles, judge):
    # pack-first also re-adds (unpacked ?item): add wins, the packed item stays unpacked. No top-k plan
    # passes where that matters, so the paper's heuristic calls the whole domain Equivalent.
    bundle = bundles["heavy-pack"]
    candidate = mutate(bundle.domain, "extra-add", "pack-first", "(unpacked ?item)")
    paper = judge(bundle, candidate, EvaluationOptions(equivalence=EquivalenceMode.PAPER))
    assert paper.verdict is DomainVerdict.EQUIVALENT and paper.proof is None, paper.message
    result = judge(bundle, candidate)
    assert result.equivalence.subclass.value == "Equivalent"          # the plans agree ...
    assert result.verdict is DomainVerdict.DIFFERENT and result.proven   # ... the proof does not
    cx = result.proof.counterexample
    assert cx.state.step.startswith("(pack-first ") and cx.plan[-1] == cx.state.step
    d = result.divergence
    assert (d.action, d.step, d.reason) == ("pack-first", len(cx.plan), "effect"), result.message
    assert "(the plans alone missed it)" in result.message and "blame 'pack-first'" in result.message
    assert "candidate domain" in result.message and "generated" not in result.message
    assert result.to_dict()["proof"]["counterexample"]["plan"] == list(cx.plan)


def test_the_first_step_where_the_domains_part_is_named_exactly(bundles):
    bundle = bundles["blocksworld"]
    candidate = mutate(bundle.domain, "drop-delete", "unstack", "(on ?x ?y)")
    p01 = next(p for p in bundle.problems if p.name == "p01")
    plan = [("pick-up", "b"), ("put-down", "b"), ("unstack", "c", "a"), ("put-down", "c")]
    d = first_divergence(bundle.domain, candidate, p01, plan)
    assert (d.step, d.action, d.reason) == (3, "unstack", "effect")
    assert d.message == "after step 3 (unstack c a), (on c a) holds only in the candidate domain"
    assert first_divergence(bundle.domain, bundle.domain, p01, plan) is None


def test_two_changed_actions_and_a_missing_one(bundles, judge):
    bundle = bundles["miconic"]
    two = mutate(mutate(bundle.domain, "extra-add", "board", "(served ?p)"), "drop-delete", "down", "(lift-at ?f1)")
    result = judge(bundle, two)
    assert result.verdict is DomainVerdict.DIFFERENT and result.changed == ("board", "down")
    assert result.divergence.action in ("board", "down")
    assert result.proven and result.proof.counterexample.state.step.split()[0].strip("(") in ("board", "down")
    short = dataclasses.replace(bundle.domain, actions=tuple(a for a in bundle.domain.actions if a.name != "up"))
    result = judge(bundle, short)
    assert result.verdict is DomainVerdict.INCOMPLETE and result.missing == ("up",)
    assert result.to_dict()["missing"] == ["up"]


def test_a_candidate_without_a_predicate_of_the_problems_is_refused(bundles, judge):
    bundle = bundles["gripper"]
    candidate = dataclasses.replace(bundle.domain, predicates=bundle.domain.predicates[1:], actions=())
    with pytest.raises(DomainError, match="at-robby"):
        judge(bundle, candidate)
