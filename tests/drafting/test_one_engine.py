"""Draft N and New action run as presets of the one search: what each front end gets (answers, verdicts, messages,
seeds, ranks, feedback) is pinned to what the two loops gave before they were folded in (issue 39).

The expected values were written by the loops (drafting/candidates.draft_candidates and
drafting/new_action.write_new_action as they stood before the fold) on the tiny real model, into
`one_engine_expected.json`. To write them again after a deliberate change of behaviour:
`DOMAIN_DRAFTER_WRITE_EXPECTED=1 pytest tests/drafting/test_one_engine.py`, and read the diff.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.model import TypedName
from domain_drafter.drafting.candidates import draft_candidates, ranked_nodes
from domain_drafter.drafting.judges import checks_judge
from domain_drafter.drafting.new_action import new_action_prompt, provisional_bundle, write_new_action
from domain_drafter.drafting.options import DraftOptions, SearchOptions
from domain_drafter.drafting.search import search_action
from domain_drafter.drafting.workspace import NewActionSpec, WorkingCopy
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator

EXPECTED = Path(__file__).with_name("one_engine_expected.json")
WRITE = os.environ.get("DOMAIN_DRAFTER_WRITE_EXPECTED") == "1"

DROP = """(:action drop
  :parameters (?obj - ball ?room - room ?g - gripper)
  :precondition (and (carry ?obj ?g) (at-robby ?room))
  :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g))))"""
DROP_NEVER = DROP.replace("(carry ?obj ?g) (at-robby ?room)", "(carry ?obj ?g) (free ?g) (at-robby ?room)")
DROP_UNDEFINED = DROP.replace("(free ?g)", "(empty ?g)")
TRANSFER = NewActionSpec(
    "transfer", (TypedName("?obj", "ball"), TypedName("?from", "room"), TypedName("?to", "room"),
                 TypedName("?g", "gripper")),
    "The robot carries ball {obj} in gripper {g} from room {from} to room {to} and puts it down there.",
    conditions="The robot must be in room {from}.")
TRANSFER_PDDL = """(:action transfer
  :parameters (?obj - ball ?from - room ?to - room ?g - gripper)
  :precondition (and (at-robby ?from) (carry ?obj ?g))
  :effect (and (at-robby ?to) (not (at-robby ?from)) (at ?obj ?to) (free ?g) (not (carry ?obj ?g))))"""
TRANSFER_STAYS = TRANSFER_PDDL.replace(" (not (at-robby ?from))", "")


def forced(*texts: str, temperature: float = 0.0, seed: int = 0, **draft) -> DraftOptions:
    """Decoding whose grammar lets the real model write only one of `texts`."""
    literals = " | ".join('"' + t.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
                          for t in texts)
    return DraftOptions(decoding=DecodingOptions(max_tokens=200, grammar=f"root ::= {literals}",
                                                 temperature=temperature, seed=seed), **draft)


def candidate_print(c) -> dict:
    """What the candidates list, `generate --candidates` and its --json show of one candidate."""
    ev = c.evaluation
    return {"rank": c.rank, "index": c.index, "seed": c.seed, "sampled": c.sampled, "agreement": c.agreement,
            "answer": c.answer, "verdict": c.verdict, "message": c.message, "score": c.score, "origin": c.origin,
            "are": ev.are.total if ev is not None and ev.are is not None else None,
            "solvable": list(c.solvable), "tests": [c.tests_passed, c.tests_total], "words": list(c.tests_words),
            "tokens": c.stats.generated_tokens, "rank_key": [str(k) for k in c.rank_key]}


def round_print(r) -> dict:
    """What the authoring window records and shows of one New action round."""
    return {"prompt": hashlib.sha256(str(r.prompt_text).encode()).hexdigest()[:16], "answer": r.answer, "verdict": r.verdict, "message": r.message,
            "feedback": r.feedback, "judged": r.judgement is not None, "passed": r.check.passed,
            "tokens": r.stats.generated_tokens, "dict": {k: v for k, v in r.to_dict().items() if k != "stats"}}


@pytest.fixture(scope="module")
def evaluator():
    with Evaluator(EvaluationOptions(time_limit_s=20.0, use_verdict_cache=False)) as judge:
        yield judge


@pytest.fixture(scope="module")
def expected() -> dict:
    return {} if WRITE else json.loads(EXPECTED.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def written():
    out: dict = {}
    yield out
    if WRITE:
        old = json.loads(EXPECTED.read_text(encoding="utf-8")) if EXPECTED.exists() else {}
        EXPECTED.write_text(json.dumps(old | out, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def same(name: str, got, expected: dict, written: dict) -> None:
    got = json.loads(json.dumps(got))
    written[name] = got
    if not WRITE:
        assert got == expected[name]


@pytest.fixture
def copy(bundles, tmp_path):
    copy = WorkingCopy.from_bundle(bundles["gripper"])
    copy.save(tmp_path / "gripper-plus")
    copy.add_action(TRANSFER)
    return copy


DRAFT_N = {   # name: (action, draft options, n, sampled, temperature, reference)
    "prompt-seeds": ("drop", DraftOptions(seed=5, decoding=DecodingOptions(max_tokens=40)), 3, False, 0.8, None),
    "sampled-grammar": ("drop", DraftOptions(seed=2, grammar=True, decoding=DecodingOptions(max_tokens=60)), 3, True,
                        1.0, None),
    "no-reference": ("drop", forced(DROP, DROP_NEVER, DROP_UNDEFINED, temperature=1.0, seed=3), 5, True, 1.0, False),
    "all-equivalent": ("drop", forced(DROP), 2, False, 0.8, None),
    "forced-reference": ("drop", forced(DROP, DROP_NEVER, DROP_UNDEFINED, temperature=1.0, seed=1), 4, True, 1.0,
                         None),
}


@pytest.mark.parametrize("name", sorted(DRAFT_N))
def test_draft_n_gives_what_it_gave_before_the_fold(name, bundles, tiny_backend, evaluator, expected, written):
    action, options, n, sampled, temperature, reference = DRAFT_N[name]
    seen = []
    ranked = draft_candidates(bundles["gripper"], action, tiny_backend, evaluator, load_bundled(), options, n,
                              sampled=sampled, temperature=temperature, reference=reference, on_candidate=seen.append)
    same(f"draft-n/{name}", {"ranked": [candidate_print(c) for c in ranked],
                             "seen": [candidate_print(c) for c in seen]}, expected, written)


def test_draft_until_proven_lists_what_it_listed_before_the_fold(bundles, tiny_backend, evaluator, expected,
                                                                   written):
    options = forced(DROP_NEVER, DROP_UNDEFINED, DROP, temperature=1.0, seed=2)
    result = search_action(bundles["gripper"], "drop", tiny_backend, evaluator, load_bundled(), options,
                           SearchOptions(budget=5, width=2, children=2))
    same("search/ranked", [candidate_print(c) for c in ranked_nodes(result)], expected, written)


NEW_ACTION = {   # name: (draft options, with the tests judge, rounds)
    "grammar-checks-only": (DraftOptions(grammar=True), False, None),
    "free-checks-only": (DraftOptions(), False, None),
    "grammar-judged": (DraftOptions(grammar=True), True, 1),
    "fails-a-test": (forced(TRANSFER_STAYS), True, None),
    "passes": (forced(TRANSFER_PDDL), True, None),
    "undeclared": (forced(TRANSFER_PDDL.replace("(free ?g)", "(empty ?g)")), True, None),
    "sampled-wrong-then-right": (forced(TRANSFER_STAYS, TRANSFER_PDDL, temperature=1.0, seed=1), True, 5),
    "retries-say-more": (forced(TRANSFER_STAYS, retries=4), True, None),
}


@pytest.mark.parametrize("name", sorted(NEW_ACTION))
def test_new_action_gives_what_it_gave_before_the_fold(name, copy, tiny_backend, evaluator, expected, written):
    options, judged, rounds = NEW_ACTION[name]
    bundle = provisional_bundle(copy)
    judge = checks_judge(bundle, "transfer", evaluator) if judged else None
    prompt = new_action_prompt(copy, "transfer", load_bundled(), options)
    answer = write_new_action(prompt, bundle, "transfer", tiny_backend, options, judge=judge, rounds=rounds)
    same(f"new-action/{name}", {"rounds": [round_print(r) for r in answer.rounds], "error": answer.error,
                                "verdict": answer.verdict, "message": answer.message}, expected, written)
