"""Strategies at equal cost: how a benchmark task's answer is found, and what it cost.

Every strategy is a search over answers (`drafting/search.py`) with another shape, so all of
them spend the same budget of model calls (the spec's `[search] budget`, 16 by default), are
judged by the same proof and stop at the first proven Equivalent:
- one-shot: the paper's protocol, one greedy answer (budget 1);
- retries: linear corrective rounds, each re-prompted with the last answer and its feedback,
  decoded greedily as the paper does (the baseline the search is measured against);
- best-of: one greedy answer per prompt seed (seed, seed+1, ...), the best kept;
- search: best-first over answers and their feedback (width roots, children sampled per expansion);
- guided-search: the same search, but no call may write an answer judged before (the effect is not closed
  into one: a call that would repeat writes another literal instead; under the grammar the literal guard does
  it, without it llm/answer_tabu.py), and under the grammar a child may not write a literal its parent's
  feedback told it to take out (the distinguishing state's extra precondition or effect, so it uses the
  reference). The feedback is enforced, not only said; it is reported apart from search for that reason.
Retries, best-of and search judge a check-failing answer's quick fix too (`repair`, on unless the spec's
[search] table says `repair = false`; core/answer_repair.py): it costs no model call and uses no reference.
One-shot never does, so it stays the paper's protocol.
The answer stored for a task is the best one found (`bench/drafter.py`); its generation record keeps the
whole tree, the calls, tokens and seconds spent, and the call that found the first Equivalent (if any).
"""

from __future__ import annotations

from domain_drafter.bench.spec import STRATEGIES, ExperimentSpec
from domain_drafter.drafting.options import Feedback, SearchOptions

__all__ = ["STRATEGIES", "strategy_options"]


def strategy_options(strategy: str, spec: ExperimentSpec) -> SearchOptions:
    """The search shape that `strategy` stands for, at the spec's budget."""
    table, defaults = dict(spec.search), SearchOptions()
    budget = int(table.get("budget", defaults.budget))
    feedback = Feedback(table.get("feedback", Feedback.ALL.value))
    common = dict(feedback=feedback, max_tokens=table.get("max_tokens"), time_limit_s=table.get("time_limit_s"),
                  repair=bool(table.get("repair", defaults.repair)))
    if strategy == "one-shot":
        return SearchOptions(budget=1, width=1, children=1, **{**common, "repair": False})
    if strategy == "retries":
        return SearchOptions(budget=budget, width=1, children=1, policy="linear", temperature=0.0, **common)
    if strategy == "best-of":
        return SearchOptions(budget=budget, width=budget, children=1, **common)
    if strategy in ("search", "guided-search"):
        return SearchOptions(budget=budget, width=int(table.get("width", defaults.width)),
                             children=int(table.get("children", defaults.children)),
                             temperature=float(table.get("temperature", defaults.temperature)),
                             reheat=float(table.get("reheat", defaults.reheat)),
                             rotate=bool(table.get("rotate", defaults.rotate)),
                             forbid_removed=strategy == "guided-search",
                             refuse_judged=strategy == "guided-search", **common)
    raise ValueError(f"unknown strategy {strategy!r}")
