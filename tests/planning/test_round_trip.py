"""Everything we serialise reads back equal: plans, plan validations, equivalence reports."""

from __future__ import annotations

import json

from domain_drafter.planning.equivalence import equivalence_from_dict
from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions, Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache
from domain_drafter.planning.validator import PlanValidator, plan_validation_from_dict, read_plan


def test_printed_plans_read_back_equal(kstar_plans):
    for plans in kstar_plans.values():
        for plan in plans[:10]:
            text = "\n".join(f"({' '.join(step)})" for step in plan) + "\n; cost = n\n"
            assert read_plan(text) == plan


def test_plan_validations_round_trip_through_json(bundles, kstar_plans):
    bundle = bundles["blocksworld"]
    problem = bundle.problems[0]
    validator = PlanValidator(bundle.domain, problem.problem)
    plan = kstar_plans["blocksworld", problem.name][0]
    for candidate in (plan, plan[1:], plan[:-1], (("stack", "a", "zz"),), (("fly", "a"),)):
        verdict = validator.validate(candidate)
        assert plan_validation_from_dict(json.loads(json.dumps(verdict.to_dict()))) == verdict


def test_equivalence_reports_round_trip_through_json(bundles, tmp_path):
    planner = KStarPlanner()
    with Evaluator(EvaluationOptions(equivalence=EquivalenceMode.PAPER), planner=planner,
                   plan_cache=PlanCache(planner, tmp_path / "p"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as ev:
        b = bundles["gripper"]
        for old, new in [("(free ?g)", "(free ?g)"), ("(free ?g)", "(free ?g) (free left)"),
                         ("(at-robby ?room)", "(at-robby ?room) (carry ?obj ?g)")]:
            report = ev.evaluate(b, "pick", b.domain.action("pick").to_pddl().replace(old, new, 1)).equivalence
            assert equivalence_from_dict(json.loads(json.dumps(report.to_dict()))) == report
