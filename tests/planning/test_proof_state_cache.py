"""The reference's reachable states are explored once per machine and read back equal."""

from __future__ import annotations

import dataclasses
import json

import domain_drafter
from domain_drafter.core.classes import Subclass
from domain_drafter.planning.grounding import Grounder
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.state_space import explore

EXPLORE = ProofSettings(shortcuts=False)


def space_of(bundle, problem, budget=100_000):
    grounder = Grounder(bundle.domain, problem.problem, bundle.domain.fluent_predicates)
    space, _ = explore(grounder.ground_domain(bundle.domain), grounder.index, grounder.init_state(), budget=budget)
    return space


def test_a_second_answer_reads_the_states_from_disk_and_pays_only_the_comparison(bundles, tmp_path):
    bundle = bundles["gripper"]
    first_cache = StateCache(tmp_path)
    move = bundle.domain.action("move")
    first = prove_equivalence(bundle.domain, bundle.domain, bundle.problems, actions=["move"], settings=EXPLORE,
                              states=first_cache)
    assert (first_cache.hits, first_cache.misses) == (0, 2)
    other = StateCache(tmp_path)   # another process
    mutant = dataclasses.replace(move, effect=move.effect[:1])
    second = prove_equivalence(bundle.domain, bundle.domain.with_action(mutant), bundle.problems, actions=["move"],
                               states=other)
    assert (other.hits, other.misses) == (2, 0)  # both problems from disk: the score counts on every problem
    third = StateCache(tmp_path)
    prove_equivalence(bundle.domain, bundle.domain.with_action(mutant), bundle.problems, actions=["move"],
                      states=third, settings=dataclasses.replace(EXPLORE, score=False, shortcuts=True))
    assert (third.hits, third.misses) == (1, 0)  # without the score: the difference is on the first problem
    assert second.subclass is Subclass.NP_APP and first.subclass is Subclass.EQUIVALENT
    for problem in bundle.problems:
        stored = other.get(StateCache.key(bundle.domain.to_pddl(), problem.text), 100_000)
        fresh = space_of(bundle, problem)
        assert (stored.states, stored.parent, stored.via, stored.atoms) == \
               (fresh.states, fresh.parent, fresh.via, fresh.atoms)


def test_a_budget_stopped_exploration_serves_any_smaller_budget_exactly(bundles, tmp_path):
    bundle = bundles["trap-newspapers"]
    problem = bundle.problems[1]
    cache = StateCache(tmp_path)
    key = StateCache.key(bundle.domain.to_pddl(), problem.text)
    cache.put(key, space_of(bundle, problem, budget=200))
    served = StateCache(tmp_path).get(key, 50)
    smaller = space_of(bundle, problem, budget=50)
    assert served.states == smaller.states and served.via == smaller.via and not served.complete
    assert StateCache(tmp_path).get(key, 300) is None, "a larger budget explores further"


def test_a_damaged_state_file_is_a_miss(bundles, tmp_path):
    bundle = bundles["blocksworld"]
    problem = bundle.problems[0]
    cache = StateCache(tmp_path)
    key = StateCache.key(bundle.domain.to_pddl(), problem.text)
    cache.put(key, space_of(bundle, problem))
    path = cache._path(key)
    data = json.loads(path.read_text())
    data["via"] = data["via"][:-1]
    path.write_text(json.dumps(data))
    assert StateCache(tmp_path).get(key, 100_000) is None
    path.write_text("\x00 not json")
    assert StateCache(tmp_path).get(key, 100_000) is None


def test_state_cache_key_changes_with_the_domain_drafter_version(monkeypatch):
    before = StateCache.key("(define (domain d))", "(define (problem p))")
    monkeypatch.setattr(domain_drafter, "__version__", "999.0.0")
    assert StateCache.key("(define (domain d))", "(define (problem p))") != before
