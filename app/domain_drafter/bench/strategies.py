"""Strategies at equal cost: how a benchmark task's answer is found, and what it cost.

Every strategy is a search over answers (`drafting/search.py`) with another shape: a preset named
once in `drafting/presets.py` (one-shot, retries, best-of, search, guided-search; what each does is
said there). So all of them spend the same budget of model calls (the spec's `[search] budget`, 16 by
default), are judged by the same proof and stop at the first proven Equivalent. Guided search is
reported apart from search: its feedback is enforced, not only said.
Retries, best-of and search judge a check-failing answer's quick fix too (`repair`, on unless the spec's
[search] table says `repair = false`; core/answer_repair.py): it costs no model call and uses no reference.
One-shot never does, so it stays the paper's protocol.
The answer stored for a task is the best one found (`bench/drafter.py`); its generation record keeps the
whole tree, the calls, tokens and seconds spent, and the call that found the first Equivalent (if any).
"""

from __future__ import annotations

from domain_drafter.bench.spec import STRATEGIES, ExperimentSpec
from domain_drafter.drafting.options import Feedback, SearchOptions
from domain_drafter.drafting.presets import Preset, preset_options

__all__ = ["STRATEGIES", "strategy_options"]


def strategy_options(strategy: str, spec: ExperimentSpec) -> SearchOptions:
    """The search shape that `strategy` stands for (a preset of drafting/presets.py), at the spec's budget."""
    table, defaults = dict(spec.search), SearchOptions()
    try:
        preset = Preset(strategy)
    except ValueError:
        raise ValueError(f"unknown strategy {strategy!r}") from None
    return preset_options(preset, budget=int(table.get("budget", defaults.budget)),
                          feedback=Feedback(table.get("feedback", Feedback.ALL.value)),
                          max_tokens=table.get("max_tokens"), time_limit_s=table.get("time_limit_s"),
                          repair=bool(table.get("repair", defaults.repair)),
                          width=int(table.get("width", defaults.width)),
                          children=int(table.get("children", defaults.children)),
                          temperature=float(table.get("temperature", defaults.temperature)),
                          reheat=float(table.get("reheat", defaults.reheat)),
                          rotate=bool(table.get("rotate", defaults.rotate)),
                          batch_children=bool(table.get("batch_children", defaults.batch_children)),
                          speculate_children=bool(table.get("speculate_children", defaults.speculate_children)))
