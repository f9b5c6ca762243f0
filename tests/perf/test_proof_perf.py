"""The proof must not make judging slower (issue 14, item 9): exploration vs the K* stage, proven vs paper evaluate."""

from __future__ import annotations

import time

from tests.perf.conftest import median, report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.planning.equivalence import check_equivalence
from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions, Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.state_cache import StateCache


def renamed_answer(bundle, action: str) -> str:
    """The reference action with other parameter names: D' text differs, so nothing of D' is cached."""
    return bundle.domain.action(action).to_pddl().replace("?", "?v_")


def test_exploration_costs_at_most_half_the_kstar_stage_per_action(tmp_path):
    planner = KStarPlanner(k=100)
    plans = PlanCache(planner, tmp_path / "plans")
    bundles = load_bundled()
    for bundle in bundles:  # the reference's plans are planned once per machine
        for problem in bundle.problems:
            plans.plans(bundle.domain.to_pddl(), problem.text)
    ratios, explored, planned = [], [], []
    for bundle in bundles:
        for action in bundle.action_names:
            generated = bundle.domain.with_action(bundle.domain.action(action))
            start = time.perf_counter()
            # cold: no state cache, and no shortcut, so every reachable state is explored and compared
            proof = prove_equivalence(bundle.domain, generated, bundle.problems, actions=[action],
                                      settings=ProofSettings(shortcuts=False), states=None)
            explore_s = time.perf_counter() - start
            assert proof.proven and proof.subclass.value == "Equivalent"
            start = time.perf_counter()
            paper = check_equivalence(bundle.domain, generated, bundle.problems, planner, plans)
            kstar_s = time.perf_counter() - start
            assert paper.subclass.value == "Equivalent"
            ratios.append(explore_s / kstar_s)
            explored.append(explore_s)
            planned.append(kstar_s)
    report("proof by exploration vs the K* stage (32 actions, cold exploration, warm reference plans)", [
        ("median exploration", f"{median(explored) * 1000:.1f} ms"),
        ("median K* stage (D' planned, plans cross-validated)", f"{median(planned) * 1000:.0f} ms"),
        ("median ratio exploration / K*", f"{median(ratios):.4f}x"),
        ("max ratio", f"{max(ratios):.4f}x"),
    ])
    assert median(ratios) <= 0.5


def test_proven_evaluate_is_faster_than_the_paper_heuristic(tmp_path):
    planner = KStarPlanner(k=100)
    plans = PlanCache(planner, tmp_path / "plans")
    bundles = load_bundled()
    proven_s, paper_s, ratios = [], [], []
    with Evaluator(EvaluationOptions(equivalence=EquivalenceMode.PAPER), planner=planner, plan_cache=plans,
                   verdicts=VerdictCache(tmp_path / "paper.sqlite")) as paper, \
            Evaluator(EvaluationOptions(), planner=planner, plan_cache=plans, states=StateCache(tmp_path / "states"),
                      verdicts=VerdictCache(tmp_path / "proven.sqlite")) as proven:
        for bundle in bundles:
            for problem in bundle.problems:
                plans.plans(bundle.domain.to_pddl(), problem.text)
        for bundle in bundles:
            for action in bundle.action_names:
                # the renamed answer is decided by a shortcut; the mutant needs the exploration
                for answer in (renamed_answer(bundle, action), _needs_exploration(bundle, action)):
                    start = time.perf_counter()
                    a = proven.evaluate(bundle, action, answer)
                    t_proven = time.perf_counter() - start
                    start = time.perf_counter()
                    b = paper.evaluate(bundle, action, answer)
                    t_paper = time.perf_counter() - start
                    assert not a.cached and not b.cached and a.subclass is not None
                    proven_s.append(t_proven)
                    paper_s.append(t_paper)
                    ratios.append(t_proven / t_paper)
    report("Evaluator.evaluate, proven vs paper mode (64 answers: 32 renamed, 32 with one effect dropped)", [
        ("median proven", f"{median(proven_s) * 1000:.1f} ms"),
        ("median paper", f"{median(paper_s) * 1000:.0f} ms"),
        ("median ratio proven / paper", f"{median(ratios):.4f}x"),
        ("max ratio", f"{max(ratios):.3f}x"),
    ])
    assert median(ratios) <= 0.5


def _needs_exploration(bundle, action: str) -> str:
    """The action with its last effect dropped: a different action, decided by exploring."""
    schema = bundle.domain.action(action)
    text = schema.to_pddl()
    last = str(schema.effect[-1])
    return text.replace(f" {last}", "", 1) if f" {last}" in text else text.replace(last, "", 1)
