"""The explorer reads PDDL as the validator does: every K* plan of every bundled problem walks its reachable states."""

from __future__ import annotations

import dataclasses

from domain_drafter.planning.grounding import Grounder
from domain_drafter.planning.state_space import explore, goal_masks
from domain_drafter.planning.validator import PlanValidator


def test_every_kstar_plan_is_a_path_through_the_explored_states_ending_in_a_goal_state(bundles, kstar_plans):
    for (name, problem_name), plans in kstar_plans.items():
        bundle = bundles[name]
        problem = next(p for p in bundle.problems if p.name == problem_name)
        grounder = Grounder(bundle.domain, problem.problem, bundle.domain.fluent_predicates)
        actions = {g.key: g for g in grounder.ground_domain(bundle.domain)}
        space, _ = explore(list(actions.values()), grounder.index, grounder.init_state(), budget=100_000)
        assert space.complete
        reachable = set(space.states)
        goal_pos, goal_neg = goal_masks(grounder.index, problem.problem.goal)
        validator = PlanValidator(bundle.domain, problem.problem)
        for plan in plans:
            assert validator.validate(plan).valid
            state = grounder.init_state()
            for step in plan:
                g = actions[tuple(step)]
                assert g.applicable(state), (name, problem_name, step)
                state = g.apply(state)
                assert state in reachable
            assert state & goal_pos == goal_pos and not state & goal_neg


def test_every_explored_prefix_is_a_plan_the_validator_accepts(bundles):
    for bundle in bundles.values():
        for problem in bundle.problems:
            grounder = Grounder(bundle.domain, problem.problem, bundle.domain.fluent_predicates)
            space, _ = explore(grounder.ground_domain(bundle.domain), grounder.index, grounder.init_state(),
                               budget=100_000)
            validator = PlanValidator(bundle.domain, dataclasses.replace(problem.problem, goal=()))
            for number in range(0, len(space.states), max(1, len(space.states) // 25)):
                prefix = [tuple(s.strip("()").split()) for s in space.prefix(number)]
                assert validator.validate(prefix).valid, (bundle.name, problem.name, prefix)
