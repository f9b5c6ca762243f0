"""Search in feedback space on a real (tiny) llama.cpp model: budget, determinism, merging, Stop, a failing model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import UsageError
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.judges import reference_judge
from domain_drafter.drafting.options import DraftOptions, Feedback, SearchOptions
from domain_drafter.drafting.records import SearchNode
from domain_drafter.drafting.search import never_applies, search_action
from domain_drafter.llm.backend import DecodingOptions, GenerationStats

SHORT = DecodingOptions(max_tokens=48)


def run(bundles, backend, evaluator, options, *, domain="blocksworld", action="put-down", draft=None, **kw):
    draft = draft or DraftOptions(decoding=SHORT, grammar=True)
    return search_action(bundles[domain], action, backend, evaluator, load_bundled(), draft, options, **kw)


def test_search_spends_its_budget_and_is_deterministic_for_a_seed(tiny_backend, evaluator, bundles):
    options = SearchOptions(budget=6, width=2, children=2, feedback=Feedback.ALL)
    first = run(bundles, tiny_backend, evaluator, options)
    again = run(bundles, tiny_backend, evaluator, options)
    written = [n for n in first.nodes if n.repair_of is None]   # the others are quick fixes (no model call)
    assert first.stopped == "budget" and first.calls == 6 == len(written)
    assert [n.answer for n in first.nodes] == [n.answer for n in again.nodes]
    assert [n.parent for n in first.nodes] == [n.parent for n in again.nodes]
    roots = [n for n in written if n.parent is None]
    assert [n.seed for n in roots] == [0, 1]
    for n in written[2:]:                                      # children of an earlier node, one level deeper
        assert n.parent is not None and n.parent < n.id and n.depth == first.nodes[n.parent].depth + 1
        assert n.decoding_seed != first.nodes[n.parent].decoding_seed
    # the best is the smallest key, and every non-equivalent node carries the feedback its children got
    best = first.best
    assert best is not None and all(best.judgement.key <= n.judgement.key for n in first.nodes)
    assert all(n.feedback for n in first.nodes if not n.judgement.equivalent)
    assert first.best_scores == sorted(first.best_scores)
    other = run(bundles, tiny_backend, evaluator, options, draft=DraftOptions(decoding=SHORT, grammar=True, seed=3))
    assert [n.seed for n in other.nodes if n.parent is None] == [3, 4]


def test_equal_answers_are_merged_and_judged_once(tiny_backend, evaluator, bundles):
    # no context examples and base descriptions: every prompt seed gives the same prompt, so the same greedy answer
    draft = DraftOptions(decoding=SHORT, grammar=True, examples=0)
    result = run(bundles, tiny_backend, evaluator, SearchOptions(budget=3, width=3, children=1), draft=draft)
    assert [n.duplicate_of for n in result.nodes] == [None, 0, 0]
    assert result.nodes[1].judgement is result.nodes[0].judgement


def test_search_stops_at_the_first_proven_equivalent(tiny_backend, evaluator, bundles):
    reference = bundles["blocksworld"].domain.action("put-down").to_pddl(indent="")
    literal = '"' + reference.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    forced = DecodingOptions(max_tokens=200, grammar=f"root ::= {literal}")   # the model can only write the reference
    result = run(bundles, tiny_backend, evaluator, SearchOptions(budget=8, width=2),
                 draft=DraftOptions(decoding=forced))
    assert result.stopped == "equivalent" and result.calls == 1 and result.equivalent_at == 1
    assert result.best.judgement.subclass is Subclass.EQUIVALENT and result.best.score == 1.0


def test_stop_ends_the_search_at_once_and_keeps_the_tree(tiny_backend, evaluator, bundles):
    task = TaskState()

    def on_node(node):
        if node.id == 1:
            task.cancel()

    result = run(bundles, tiny_backend, evaluator, SearchOptions(budget=10, width=2), on_node=on_node, task=task)
    assert result.stopped == "cancelled" and len(result.nodes) == 2 and result.best is not None


def test_a_model_that_fails_mid_search_keeps_the_tree_so_far(tiny_model, evaluator, bundles):
    from domain_drafter.llm.llama import LlamaCppBackend

    backend = LlamaCppBackend(tiny_model, n_ctx=2048)

    def on_node(node):
        if node.id == 1:
            backend.close()     # a real fault: the next call meets a closed model

    result = run(bundles, backend, evaluator, SearchOptions(budget=6, width=2), on_node=on_node)
    assert result.stopped == "error" and "closed" in result.error
    assert len(result.nodes) == 2 and result.to_dict()["nodes"][1]["answer"] == result.nodes[1].answer


def test_without_a_reference_the_judge_is_the_checks_and_the_problems(tiny_backend, evaluator, bundles):
    result = run(bundles, tiny_backend, evaluator, SearchOptions(budget=3, width=1, children=2), reference=False)
    assert result.calls == 3
    assert all(n.judgement.evaluation is None for n in result.nodes)
    for n in result.nodes:      # the checks, then (when they pass) every problem tried and every test case run
        j = n.judgement
        expected = len(bundles["blocksworld"].problems) if j.check.passed else 0
        assert len(j.solvable) == expected
        assert (j.tests_total > 0) == j.check.passed        # blocksworld ships a tests.toml
        assert n.score == ((j.solvable.count(True) + j.tests_passed) / (expected + j.tests_total)
                           if expected else 0.0)
        if j.check.passed and j.tests_passed < j.tests_total:
            assert "Test '" in n.feedback                    # the failing cases are the feedback


def test_without_a_reference_passing_every_test_and_problem_ends_the_search(tiny_backend, evaluator, bundles):
    reference = bundles["blocksworld"].domain.action("put-down").to_pddl(indent="")
    literal = '"' + reference.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    forced = DecodingOptions(max_tokens=200, grammar=f"root ::= {literal}")
    result = run(bundles, tiny_backend, evaluator, SearchOptions(budget=5, width=2),
                 draft=DraftOptions(decoding=forced), reference=False)
    assert result.stopped == "equivalent" and result.calls == 1
    j = result.best.judgement
    assert j.evaluation is None and j.tests_passed == j.tests_total > 0 and all(j.solvable)


@pytest.mark.parametrize("field", ["budget", "width", "children"])
@pytest.mark.parametrize("value", [0, -3])
def test_a_budget_of_zero_or_below_is_refused_clearly(field, value):
    with pytest.raises(UsageError) as info:
        SearchOptions(**{field: value})
    assert f"'{field}'" in info.value.what and "at least 1" in info.value.what


def forced_answer(text: str) -> DraftOptions:
    """Decoding whose grammar lets the real model write only `text`."""
    literal = '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return DraftOptions(decoding=DecodingOptions(max_tokens=200, grammar=f"root ::= {literal}"))


DRIVE_IN_CITY = ("(:action drive :parameters (?truck - truck ?from - place ?to - place) "
                 ":precondition (and (at ?truck ?from) (in-city ?from ?city) (in-city ?to ?city)) "
                 ":effect (and (not (at ?truck ?from)) (at ?truck ?to)))")


def test_a_check_failing_answer_s_quick_fix_is_judged_and_can_end_the_search(tiny_backend, evaluator, bundles):
    """logistics' in-city in a depot answer (as Qwen2.5-Coder 1.5B wrote it): its quick fix is proven Equivalent,
    at no model call of its own."""
    result = run(bundles, tiny_backend, evaluator, SearchOptions(budget=4, width=2), domain="depot", action="drive",
                 draft=forced_answer(DRIVE_IN_CITY))
    assert result.stopped == "equivalent" and result.calls == 1 and result.equivalent_at == 1
    answer, fix = result.nodes
    assert answer.judgement.subclass is Subclass.PA_ERROR and fix.repair_of == answer.id and fix.call == 1
    assert result.best is fix and fix.judgement.evaluation.proof.proven and "in-city" not in fix.answer
    assert fix.to_dict()["repairs"][0].startswith("dropped (in-city ?from ?city)")
    without = run(bundles, tiny_backend, evaluator, SearchOptions(budget=4, width=2, repair=False), domain="depot",
                  action="drive", draft=forced_answer(DRIVE_IN_CITY))
    assert without.stopped != "equivalent" and all(n.repair_of is None for n in without.nodes)


def test_a_node_that_only_repeats_itself_is_tried_again_hotter_until_the_temperature_tops_out(
        tiny_backend, evaluator, bundles):
    wrong = bundles["blocksworld"].domain.action("put-down").to_pddl(indent="").replace("(handempty)", "", 1)
    options = SearchOptions(budget=16, width=1, children=2, temperature=0.8, reheat=0.2)
    result = run(bundles, tiny_backend, evaluator, options, draft=forced_answer(wrong))
    children = [n for n in result.nodes if n.parent is not None]
    assert all(n.duplicate_of == 0 for n in children)
    temperatures = sorted({round(n.temperature, 6) for n in children})
    assert temperatures == [0.8, 1.0, 1.2, 1.4, 1.5]          # then hotter is not possible: it gives up
    # within an expansion too: a child after a sibling that repeated is asked hotter
    assert [round(n.temperature, 6) for n in children[:4]] == [0.8, 1.0, 1.0, 1.2]
    assert options.child_temperature(1, repeats=2) == pytest.approx(1.4) and options.child_temperature(9, 9) == 1.5
    assert result.stopped == "exhausted" and result.calls == 1 + 2 * len(temperatures)
    assert options.child_temperature(0) == 0.8 and SearchOptions(temperature=0.0).child_temperature(5) == 0.0


def test_an_expansion_s_children_are_asked_after_the_roots_prompts_in_turn(tiny_backend, evaluator, bundles):
    """The first child after its parent's own root prompt, the next after the other roots' (other examples)."""
    options = SearchOptions(budget=5, width=2, children=3)
    result = run(bundles, tiny_backend, evaluator, options)
    roots = [n for n in result.nodes if n.parent is None and n.repair_of is None]
    children = [n for n in result.nodes if n.parent is not None and n.repair_of is None]
    assert [n.seed for n in roots] == [0, 1] and len(children) == 3
    own = result.nodes[children[0].parent].seed
    assert [n.seed for n in children] == [own, (own + 1) % 2, own]
    fixed = run(bundles, tiny_backend, evaluator, replace(options, rotate=False))
    assert {n.seed for n in fixed.nodes if n.parent is not None} == {fixed.nodes[fixed.nodes[2].parent].seed}


def test_guided_children_never_write_what_their_parent_was_told_to_take_out(tiny_backend, evaluator, bundles):
    """forbid_removed: a child of a node whose distinguishing state says "extra ...: remove it" does not hold
    that literal in that section; the plain search's children do write some of them (so the guard is why).
    (depot drive: on the tiny model, its live answers come first and some of them are told to take one out.)"""
    def held(answer: str) -> dict[str, set[str]]:
        found = check_answer(answer, bundles["depot"].domain, "drive").action
        if found is None:
            return {"precondition": set(), "effect": set()}
        return {"precondition": {str(lit) for lit in found.precondition}, "effect": {str(lit) for lit in found.effect}}

    def removals(node) -> tuple:
        ev = node.judgement.evaluation
        cx = ev.proof.counterexample if ev is not None and ev.proof is not None else None
        return cx.state.removals if cx is not None else ()

    options = SearchOptions(budget=12, width=2, children=3, feedback=Feedback.ALL)
    draft = DraftOptions(decoding=DecodingOptions(max_tokens=200), grammar=True)
    kept = {}
    for guided in (False, True):
        result = run(bundles, tiny_backend, evaluator, replace(options, forbid_removed=guided), draft=draft,
                     domain="depot", action="drive")
        told = [(n, removals(result.nodes[n.parent])) for n in result.nodes
                if n.parent is not None and n.repair_of is None and removals(result.nodes[n.parent])]
        assert told, "no child of a node told to take a literal out: the test proves nothing"
        kept[guided] = sum(lit in held(n.answer)[section] for n, rs in told for section, lit in rs)
    assert kept[True] == 0 and kept[False] > 0


def test_refusing_judged_answers_spends_no_call_on_a_repeat(tiny_backend, evaluator, bundles):
    """refuse_judged: under the grammar no model call (roots included) writes an answer judged before, where the
    same search without it writes repeats (so the guard is why). A quick fix is judged, so it counts as tried."""
    options = SearchOptions(budget=12, width=3, children=3, feedback=Feedback.ALL)
    draft = DraftOptions(decoding=DecodingOptions(max_tokens=200), grammar=True)
    repeats = {}
    for refuse in (False, True):
        result = run(bundles, tiny_backend, evaluator, replace(options, refuse_judged=refuse), draft=draft,
                     domain="logistics", action="load-truck")
        assert result.calls == 12
        repeats[refuse] = sum(n.duplicate_of is not None for n in result.nodes if n.repair_of is None)
    assert repeats[True] == 0 and repeats[False] > 0


@pytest.mark.parametrize("guided", [{"refuse_judged": True}, {"forbid_removed": True}])
def test_a_guided_search_on_a_served_model_is_refused_before_any_call(tiny_backend, evaluator, bundles, guided):
    """A server samples its own logits, so the guided refusals cannot act there: the search says so and asks
    nothing (it used to run as the plain search under the guided name). A model in this process is guided."""
    from domain_drafter.llm.backend import steers_tokens
    from domain_drafter.llm.http import OpenAICompletionsBackend

    served = OpenAICompletionsBackend("http://127.0.0.1:9", retries=0)   # nothing listens: no call may be made
    options = SearchOptions(budget=2, width=1, children=1, **guided)
    with pytest.raises(UsageError) as refused:
        run(bundles, served, evaluator, options)
    assert "needs the model loaded in this process" in refused.value.message and "plain search" in refused.value.hint
    assert served.attempts == 0 and not steers_tokens(served) and steers_tokens(tiny_backend)
    assert run(bundles, tiny_backend, evaluator, options).calls == 2


def test_an_answer_whose_action_never_applies_goes_after_a_live_one_whatever_its_score(evaluator, bundles):
    """blocksworld put-down: holding a block that is on the table never happens (dead, yet it agrees wherever
    the reference does not apply: a high score); put down whenever the block is clear, it applies (live, where
    the reference does not: a lower score). The frontier takes the live one first; the best answer stays the one the proof scores higher."""
    bundle = bundles["blocksworld"]
    judge = reference_judge(bundle, "put-down", evaluator)
    dead = judge("(:action put-down :parameters (?x - block) :precondition (and (holding ?x) (ontable ?x)) "
                 ":effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))")
    live = judge("(:action put-down :parameters (?x - block) :precondition (and (clear ?x)) "
                 ":effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))")
    assert dead.subclass is Subclass.NO_PLAN and live.subclass.result_class is dead.subclass.result_class
    assert never_applies(bundle, "put-down", dead) and not never_applies(bundle, "put-down", live)
    assert dead.score > live.score and dead.key < live.key
    stats = GenerationStats(0, 0, 0.0, 0.0, 0.0, "eos")
    nodes = [SearchNode(i, None, 0, 1, 0, 0, "", stats, j, dead=never_applies(bundle, "put-down", j))
             for i, j in enumerate((dead, live))]
    assert nodes[1].frontier_key < nodes[0].frontier_key
    reference = judge(bundle.domain.action("put-down").to_pddl(indent=""))
    assert not never_applies(bundle, "put-down", reference)     # Equivalent: never called dead


def test_an_expansion_s_children_written_together_start_from_their_roots_states(tiny_backend, evaluator, bundles):
    """batch_children: an expansion's children in one llama.cpp batch, each slot starting from its root prompt's
    kept state; the tree has the same shape as one at a time (roots, then children after the roots in turn), every
    child at the expansion's first temperature, and the search is deterministic for a seed."""
    options = SearchOptions(budget=6, width=2, children=3, batch_children=True)
    before = tiny_backend._batcher.restored if tiny_backend._batcher is not None else 0
    result = run(bundles, tiny_backend, evaluator, options)
    again = run(bundles, tiny_backend, evaluator, options)
    written = [n for n in result.nodes if n.repair_of is None]
    assert result.stopped == "budget" and result.calls == 6 == len(written)
    assert [n.answer for n in result.nodes] == [n.answer for n in again.nodes]
    roots = [n for n in written if n.parent is None]
    children = [n for n in written if n.parent is not None]
    assert [n.seed for n in roots] == [0, 1] and len(children) == 4
    first = [n for n in children if n.parent == children[0].parent][:3]
    own = result.nodes[first[0].parent].seed
    assert [n.seed for n in first] == [own, (own + 1) % 2, own]
    assert {n.temperature for n in first} == {options.child_temperature(0)}
    assert tiny_backend._batcher.restored - before >= 3            # each child read only its new turns
    assert result.to_dict()["options"]["batch_children"] is True


def test_speculating_children_leaves_the_greedy_roots_as_they_were(tiny_backend, evaluator, bundles):
    """speculate_children: the sampled children guess tokens from their prompt (the speculator checks guesses),
    the greedy roots decode as without it, so the roots' answers are the same; deterministic for a seed."""
    options = SearchOptions(budget=6, width=2, children=2)
    plain = run(bundles, tiny_backend, evaluator, options)
    spec = tiny_backend._speculator
    before = spec.guessed if spec is not None else 0
    fast = run(bundles, tiny_backend, evaluator, replace(options, speculate_children=True))
    again = run(bundles, tiny_backend, evaluator, replace(options, speculate_children=True))
    assert tiny_backend._speculator is not None and tiny_backend._speculator.guessed > before
    roots = [[n.answer for n in r.nodes if n.parent is None and n.repair_of is None] for r in (plain, fast)]
    assert roots[0] == roots[1] and len(roots[0]) == 2
    assert [n.answer for n in fast.nodes] == [n.answer for n in again.nodes]
    assert fast.to_dict()["options"]["speculate_children"] is True
