"""Per answer, the search parses once and explores once: the real parser and exploration, counted on the way
(a search on the tiny real model, with merged repeats and quick fixes among its answers)."""

from __future__ import annotations

from collections import Counter

import pytest

from domain_drafter.core import answers
from domain_drafter.core.bundle import load_bundled
from domain_drafter.drafting import feedback, judges, search
from domain_drafter.drafting.options import DraftOptions, Feedback, SearchOptions
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.planning import diagnosis, evaluate
from domain_drafter.planning.evaluate import Evaluator, VerdictCache
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache


@pytest.fixture()
def counted(monkeypatch):
    """Every parse (check_answer, by answer text) and every exploration of an answer's domain (reachability, by
    the domain's text) that the search's modules make."""
    parsed: Counter[str] = Counter()
    explored: Counter[str] = Counter()
    real_check, real_reach = answers.check_answer, diagnosis.reachability

    def check_answer(text, *args, **kw):
        parsed[text] += 1
        return real_check(text, *args, **kw)

    def reachability(domain, *args, **kw):
        explored[domain.to_pddl()] += 1
        return real_reach(domain, *args, **kw)

    for module in (search, judges, evaluate):
        monkeypatch.setattr(module, "check_answer", check_answer, raising=False)
    monkeypatch.setattr(feedback, "reachability", reachability)
    return parsed, explored


def test_the_search_parses_each_answer_once_and_explores_each_answers_domain_once(tiny_backend, bundles, tmp_path,
                                                                                   counted):
    parsed, explored = counted
    planner = KStarPlanner()
    options = SearchOptions(budget=8, width=2, children=2, feedback=Feedback.ALL)
    draft = DraftOptions(decoding=DecodingOptions(max_tokens=48), grammar=True)
    with Evaluator(planner=planner, plan_cache=PlanCache(planner, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as evaluator:
        result = search.search_action(bundles["blocksworld"], "put-down", tiny_backend, evaluator, load_bundled(),
                                      draft, options)
    assert result.calls == 8
    answers_by_text = Counter(n.answer for n in result.nodes)
    assert parsed == answers_by_text              # every answer (a repeat too: it is merged by its parse) parsed once
    reached = [n for n in result.nodes if n.duplicate_of is None and n.judgement.reach is not None]
    assert reached, "no answer of this search needed its domain explored: the count would prove nothing"
    assert all(count == 1 for count in explored.values())   # no domain explored twice (feedback, then dead or not)
    assert sum(explored.values()) == len(reached)            # and only those the judgement carries
    assert all(n.feedback for n in reached)                  # the feedback was written from that one exploration
