"""Strategies at equal cost: how a benchmark task's answer is found, and what it cost.

Every strategy is a search over answers (`drafting/search.py`) with another shape, so all of
them spend the same budget of model calls (the spec's `[search] budget`, 16 by default), are
judged by the same proof and stop at the first proven Equivalent:
- one-shot: the paper's protocol, one greedy answer (budget 1);
- retries: linear corrective rounds, each re-prompted with the last answer and its feedback,
  decoded greedily as the paper does (the baseline the search is measured against);
- best-of: one greedy answer per prompt seed (seed, seed+1, ...), the best kept;
- search: best-first over answers and their feedback (width roots, children sampled per expansion).
The answer stored for a task is the best one found; its generation record keeps the whole tree,
the calls, tokens and seconds spent, and the call that found the first Equivalent (if any).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain_drafter.bench.spec import STRATEGIES, ExperimentSpec
from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.drafting.options import DraftOptions, Feedback, SearchOptions

__all__ = ["STRATEGIES", "StrategyDrafts", "strategy_options"]


def strategy_options(strategy: str, spec: ExperimentSpec) -> SearchOptions:
    """The search shape that `strategy` stands for, at the spec's budget."""
    table = dict(spec.search)
    budget = int(table.get("budget", SearchOptions().budget))
    feedback = Feedback(table.get("feedback", Feedback.ALL.value))
    common = dict(feedback=feedback, max_tokens=table.get("max_tokens"), time_limit_s=table.get("time_limit_s"))
    if strategy == "one-shot":
        return SearchOptions(budget=1, width=1, children=1, **common)
    if strategy == "retries":
        return SearchOptions(budget=budget, width=1, children=1, policy="linear", temperature=0.0, **common)
    if strategy == "best-of":
        return SearchOptions(budget=budget, width=budget, children=1, **common)
    if strategy == "search":
        defaults = SearchOptions()
        return SearchOptions(budget=budget, width=int(table.get("width", defaults.width)),
                             children=int(table.get("children", defaults.children)),
                             temperature=float(table.get("temperature", defaults.temperature)), **common)
    raise ValueError(f"unknown strategy {strategy!r}")


@dataclass
class StrategyDrafts:
    """Runs the tasks of the strategies other than one-shot: each verdict steers the next call, so they are
    judged here, in the generating process (the one-shot tasks go to the evaluation workers as before)."""

    spec: ExperimentSpec
    pool: list
    template: object

    def __post_init__(self) -> None:
        from domain_drafter.bench.worker import bench_options
        from domain_drafter.planning.evaluate import Evaluator

        self.evaluator = Evaluator(bench_options(self.spec.k, self.spec.time_limit_s, self.spec.equivalence))

    def run(self, row, strategy: str, bundle, cls, decoding, backend, store, evaluations,
            task: TaskState | None) -> None:
        """Search for the row's answer, store the best with its tree. Cancelled or a model failure: nothing is
        stored (the task stays pending for --resume; the search is deterministic, so it is found again)."""
        from domain_drafter.drafting.search import search_action

        options = strategy_options(strategy, self.spec)
        draft = DraftOptions(description_class=cls, seed=row["seed"], examples=self.spec.examples,
                             decoding=decoding, grammar=bool(row["grammar"]))
        result = search_action(bundle, row["action"], backend, self.evaluator, self.pool, draft, options,
                               template=self.template, reference=True, task=task)
        if result.stopped == "cancelled":
            raise Cancelled()
        if result.stopped == "error":
            raise ModelError(f"the model failed during the {strategy} of {row['domain']}/{row['action']} "
                             f"after {result.calls} calls: {result.error}")
        best = result.best
        assert best is not None and best.judgement.evaluation is not None
        record = {"backend": backend.name, "strategy": strategy, "prompt_format": getattr(backend, "prompt_format",
                                                                                           "completion"),
                  "calls": result.calls, "generated_tokens": result.generated_tokens,
                  "prompt_tokens": result.prompt_tokens, "wall_s": result.wall_s,
                  "equivalent_at": result.equivalent_at, "search": result.to_dict()}
        prompt = result.prompt.to_dict()
        prompt.pop("text", None)
        store.store_generation(row["key"], best.answer, prompt, record)
        evaluations.store_result(row["key"], best.judgement.evaluation.to_dict())

    def close(self) -> None:
        self.evaluator.close()
