"""Draft N candidates: ranking without a reference (real parser, exploration and K*), and N judged
answers of the tiny real model in one batch (prompt seeds and sampled)."""

from __future__ import annotations

import dataclasses

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import ActionSchema
from domain_drafter.drafting.candidates import (
    Candidate,
    draft_candidates,
    judge_candidate,
    rank_candidates,
)
from domain_drafter.drafting.judges import checks_judge, has_reference, problems_solvable
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.llm.backend import DecodingOptions, Generation, make_stats
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator
from domain_drafter.planning.kstar import KStarPlanner

DROP = """(:action drop
  :parameters (?obj - ball ?room - room ?g - gripper)
  :precondition (and (carry ?obj ?g) (at-robby ?room))
  :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g))))"""
# the same action: other parameter names, other conjunct order
DROP_RENAMED = """(:action drop
  :parameters (?b - ball ?r - room ?h - gripper)
  :precondition (and (at-robby ?r) (carry ?b ?h))
  :effect (and (not (carry ?b ?h)) (free ?h) (at ?b ?r)))"""
# passes the checks, but a carried ball's gripper is never free: no ball is ever put down
DROP_NEVER = DROP.replace("(carry ?obj ?g) (at-robby ?room)", "(carry ?obj ?g) (free ?g) (at-robby ?room)")
DROP_UNDEFINED = DROP.replace("(free ?g)", "(empty ?g)")      # semantic error
DROP_BROKEN = DROP.replace(":effect (and", ":effect (and (")  # syntax error


def generation(text: str) -> Generation:
    return Generation(text, make_stats(prompt_tokens=10, generated_tokens=20, t_start=0.0, t_first=0.1, t_end=0.2,
                                       stop_reason="stop"))


@pytest.fixture
def without_drop(bundles):
    """Gripper whose drop is a bare placeholder (a user's domain without the action): no reference."""
    bundle = bundles["gripper"]
    placeholder = ActionSchema("drop", bundle.domain.action("drop").parameters)
    return dataclasses.replace(bundle, domain=bundle.domain.with_action(placeholder))


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory):
    with Evaluator(EvaluationOptions(time_limit_s=20.0, use_verdict_cache=False)) as judge:
        yield judge


def judged(bundle, texts, evaluator, reference):
    judge = None if reference else checks_judge(bundle, "drop", evaluator)   # one judge for the batch
    return [judge_candidate(bundle, "drop", j, j, False, generation(t), evaluator, reference, judge=judge)
            for j, t in enumerate(texts)]


def test_without_a_reference_checks_then_solvable_problems_then_agreement(without_drop, evaluator, bundles):
    assert not has_reference(without_drop, "drop") and has_reference(bundles["gripper"], "drop")
    texts = [DROP_BROKEN, DROP_NEVER, DROP_UNDEFINED, DROP_RENAMED, DROP]
    ranked = rank_candidates(judged(without_drop, texts, evaluator, reference=False))
    assert [c.index for c in ranked] == [3, 4, 1, 2, 0]
    assert [c.rank for c in ranked] == [1, 2, 3, 4, 5]
    best, second, never, undefined, broken = ranked
    assert best.evaluation is None and best.solvable == (True, True) and best.agreement == 2
    assert second.agreement == 2 and second.canonical == best.canonical
    assert never.passed_checks and never.solvable == (False, False) and never.agreement == 1
    assert "0/2 problems solvable" in never.verdict
    assert undefined.subclass is Subclass.PA_ERROR and undefined.agreement == 1   # parsed, so counted
    assert broken.agreement == 0   # nothing parsed
    assert broken.subclass.result_class.rank == 0 and broken.solvable == ()
    assert best.to_dict()["solvable"] == [True, True] and best.to_dict()["rank"] == 1


DROP_ANY_ROOM = DROP.replace(" (at-robby ?room)", "")             # solves every problem, fails one test
DROP_KEEPS_CARRYING = DROP.replace(" (not (carry ?obj ?g))", "")   # solves every problem, fails nine tests


def test_without_a_reference_the_domains_tests_rank_the_candidates_and_say_what_fails(without_drop, evaluator):
    texts = [DROP_KEEPS_CARRYING, DROP_ANY_ROOM, DROP]
    ranked = rank_candidates(judged(without_drop, texts, evaluator, reference=False))
    assert [c.index for c in ranked] == [2, 1, 0]   # every one solves both problems: the tests decide
    assert all(c.solvable == (True, True) and c.tests_total == 20 for c in ranked)
    best, any_room, keeps = ranked
    assert (best.tests_passed, any_room.tests_passed, keeps.tests_passed) == (20, 19, 11)
    assert best.verdict == "passed the checks, 2/2 problems solvable, tests: 20 of 20 pass"
    assert best.message == best.verdict and best.tests_words == ()
    assert any_room.tests == "tests: 19 of 20 pass"
    assert any_room.message.startswith(any_room.verdict + ". Test 'drop-needs-the-robot-there' (not_applicable) fails")
    assert "the plan (pick ball1 rooma left) (drop ball1 roomb left) shows it" in any_room.message
    assert any_room.to_dict()["tests_passed"] == 19


def test_solvability_falls_back_to_kstar_when_the_exploration_cannot_finish(without_drop):
    problems = without_drop.problems
    good = without_drop.domain.with_action(judged_action(without_drop, DROP))
    never = without_drop.domain.with_action(judged_action(without_drop, DROP_NEVER))
    assert problems_solvable(never, problems) == (False, False)             # every state explored
    assert problems_solvable(never, problems, budget=3) == (None, None)    # stopped early, no planner
    planner = KStarPlanner(k=1, time_limit_s=20.0)
    assert problems_solvable(good, problems, budget=3, planner=planner) == (True, True)
    assert problems_solvable(never, problems, budget=3, planner=planner) == (False, False)


def judged_action(bundle, text):
    from domain_drafter.core.answers import check_answer

    report = check_answer(text, bundle.domain, "drop")
    assert report.passed, report.findings
    return report.action


def test_with_a_reference_equivalent_first_then_class_order_then_are(bundles, evaluator):
    texts = [DROP_BROKEN, DROP_NEVER, DROP_UNDEFINED, DROP_RENAMED]
    ranked = rank_candidates(judged(bundles["gripper"], texts, evaluator, reference=True))
    assert [c.subclass for c in ranked] == [Subclass.EQUIVALENT, Subclass.NO_PLAN, Subclass.PA_ERROR,
                                            Subclass.P_ERROR]
    assert all(c.evaluation is not None for c in ranked)
    assert ranked[0].evaluation.are.total == 0 and ranked[1].evaluation.are.total == 1


def test_are_orders_answers_of_one_class(bundles, evaluator):
    one_more = DROP.replace("(at-robby ?room))", "(at-robby ?room) (free left))")   # one extra effect
    two_more = DROP.replace("(at-robby ?room))", "(at-robby ?room) (free left) (free right))")
    ranked = rank_candidates(judged(bundles["gripper"], [two_more, one_more], evaluator, reference=True))
    assert [c.index for c in ranked] == [1, 0]
    assert ranked[0].evaluation.result_class is ranked[1].evaluation.result_class
    assert ranked[0].evaluation.are.total < ranked[1].evaluation.are.total


def test_three_prompt_seeds_of_the_tiny_model_in_one_batch(bundles, tiny_backend, evaluator):
    seen: list[Candidate] = []
    options = DraftOptions(seed=5, decoding=DecodingOptions(max_tokens=40))
    ranked = draft_candidates(bundles["gripper"], "drop", tiny_backend, evaluator, load_bundled(), options, 3,
                              on_candidate=seen.append)
    assert sorted(c.seed for c in ranked) == [5, 6, 7] and [c.rank for c in ranked] == [1, 2, 3]
    assert [c.index for c in seen] == [0, 1, 2] and all(c.evaluation is not None for c in ranked)
    assert [c.rank_key for c in ranked] == sorted(c.rank_key for c in ranked)
    # each is the answer one greedy generation of its own prompt gives
    from domain_drafter.core.prompt import build_prompt

    first = next(c for c in ranked if c.seed == 5)
    alone = tiny_backend.generate(build_prompt(bundles["gripper"], "drop", load_bundled(), seed=5).text,
                                  options.decoding)
    assert first.answer == alone.text


def test_three_sampled_candidates_read_one_prompt_with_three_decoding_seeds(bundles, tiny_backend, evaluator):
    options = DraftOptions(seed=2, grammar=True, decoding=DecodingOptions(max_tokens=60))
    ranked = draft_candidates(bundles["gripper"], "drop", tiny_backend, evaluator, load_bundled(), options, 3,
                              sampled=True, temperature=1.0)
    assert sorted(c.seed for c in ranked) == [2, 3, 4] and all(c.sampled for c in ranked)
    assert all(c.answer.lstrip().startswith("(:action drop") for c in ranked)   # the grammar held in each
    assert len({c.answer for c in ranked}) > 1
    assert all(c.stats.prompt_tokens == ranked[0].stats.prompt_tokens for c in ranked)


def test_a_wrong_number_of_candidates_is_refused(bundles, tiny_backend, evaluator):
    with pytest.raises(ValueError, match=r"1\.\.8"):
        draft_candidates(bundles["gripper"], "drop", tiny_backend, evaluator, load_bundled(), DraftOptions(), 0)


def test_generate_candidates_on_the_command_line(tiny_model, capsys, monkeypatch, tmp_path):
    import json

    from domain_drafter.cli.main import main

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    code = main(["generate", "gripper", "drop", "--model", str(tiny_model), "--candidates", "3", "--seed", "3",
                 "--max-tokens", "40"])
    out = capsys.readouterr().out
    assert code == 1 and "3 candidates for gripper/drop (greedy, prompt seeds 3..5)" in out
    assert out.count("-- candidate ") == 3 and "ranked, best first:" in out and "#3  candidate" in out
    code = main(["generate", "gripper", "drop", "--model", str(tiny_model), "--candidates", "3", "--sample",
                 "--grammar", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [d["rank"] for d in data] == [1, 2, 3] and sorted(d["seed"] for d in data) == [0, 1, 2]
    assert all(d["sampled"] and d["evaluation"]["action"] == "drop" for d in data)
    assert code == (0 if data[0]["subclass"] == "Equivalent" else 1)


def test_a_backend_without_batching_writes_the_candidates_one_at_a_time(bundles, tiny_model, evaluator, tmp_path):
    """The HTTP backend (a real llama_cpp.server on the tiny model) has neither generate_batch nor
    generate_candidates: each candidate is one request, the same answer a single request gives."""
    from llama_server import serve_llama

    from domain_drafter.core.prompt import build_prompt
    from domain_drafter.llm.grammar import ActionGrammar
    from domain_drafter.llm.http import OpenAICompletionsBackend

    options = DraftOptions(seed=1, grammar=True, decoding=DecodingOptions(max_tokens=40))
    with serve_llama(tiny_model, tmp_path / "server.log", timeout_s=30) as url, OpenAICompletionsBackend(url) as http:
        assert not hasattr(http, "generate_batch") and not hasattr(http, "generate_candidates")
        ranked = draft_candidates(bundles["gripper"], "drop", http, evaluator, load_bundled(), options, 3)
        grammar = ActionGrammar(bundles["gripper"].domain, "drop").to_gbnf()
        decoding = dataclasses.replace(options.decoding, grammar=grammar)
        by_seed = {c.seed: c for c in ranked}
        alone = http.generate(build_prompt(bundles["gripper"], "drop", load_bundled(), seed=2).text, decoding)
    assert sorted(by_seed) == [1, 2, 3] and all(c.evaluation is not None for c in ranked)
    assert alone.text.strip() and by_seed[2].answer == alone.text


def test_a_domain_without_problems_ranks_by_the_checks_and_agreement(bundles, evaluator):
    bare = dataclasses.replace(bundles["gripper"], problems=())   # a bare domain.pddl: nothing to plan
    assert not has_reference(bare, "drop")
    ranked = rank_candidates(judged(bare, [DROP_UNDEFINED, DROP, DROP_NEVER, DROP_RENAMED], evaluator, False))
    assert [c.index for c in ranked] == [1, 3, 2, 0]          # passed (2 agree), passed (alone), PAError
    assert all(c.solvable == () and c.evaluation is None for c in ranked)
    assert ranked[0].verdict == "passed the checks"
