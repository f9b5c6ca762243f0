"""How much the evaluation pipeline costs on top of the planner it cannot avoid, and what caching saves."""

from __future__ import annotations

import time

from tests.perf.conftest import bare_kstar_seconds, median, report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache


def test_evaluation_costs_at_most_1_3x_bare_kstar_and_a_repeat_costs_under_5_ms(tmp_path):
    planner = KStarPlanner(k=100)
    bundles = load_bundled()
    ratios, repeats, fulls = [], [], []
    with Evaluator(EvaluationOptions(), planner=planner, plan_cache=PlanCache(planner, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "verdicts.sqlite")) as evaluator:
        for bundle in bundles:  # warm the reference plan cache: it is planned once per machine
            for problem in bundle.problems:
                evaluator.plan_cache.plans(bundle.domain.to_pddl(), problem.text)
        for bundle in bundles:
            for action in bundle.action_names:
                # D' differs from D (renamed parameters, reordered conjuncts): its plans are never cached
                schema = bundle.domain.action(action)
                answer = schema.to_pddl().replace("?", "?v_")
                generated = bundle.domain.with_action(schema)
                bare = bare_kstar_seconds(planner, generated.to_pddl(), bundle.problems)
                start = time.perf_counter()
                result = evaluator.evaluate(bundle, action, answer)
                full = time.perf_counter() - start
                assert result.subclass.value == "Equivalent" and not result.cached
                start = time.perf_counter()
                again = evaluator.evaluate(bundle, action, answer)
                repeat = time.perf_counter() - start
                assert again.cached
                ratios.append(full / bare)
                repeats.append(repeat)
                fulls.append(full)
    report("evaluate() vs bare K* on D' (32 actions, cold D', warm reference cache)", [
        ("median ratio evaluate / bare K*", f"{median(ratios):.2f}x"),
        ("max ratio", f"{max(ratios):.2f}x"),
        ("median evaluate", f"{median(fulls) * 1000:.0f} ms"),
        ("median repeated answer (verdict cache)", f"{median(repeats) * 1000:.2f} ms"),
        ("repeat / full", f"{median(repeats) / median(fulls):.4f}x"),
    ])
    assert median(ratios) <= 1.3
    assert median(repeats) < 0.005
