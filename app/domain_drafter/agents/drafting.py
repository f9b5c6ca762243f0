"""The one place the MCP server calls the drafting API (the lead re-points `draft` if that API changes).

Models stay loaded between calls (one per model/endpoint), and one lock lets one generation run at a time
on a model: a cancelled call's generation stops at its next token, and the next call waits for that.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from domain_drafter.agents.engine import Result, WarmEngine
from domain_drafter.core.errors import UsageError
from domain_drafter.core.tasks import TaskState

MAX_BUDGET = 64


class Models:
    """Loaded backends by (model, endpoint), each with its lock."""

    def __init__(self) -> None:
        self._backends: dict[tuple, tuple[object, threading.Lock]] = {}
        self._lock = threading.Lock()

    def get(self, model: str, endpoint: str | None, n_ctx: int | None):
        from domain_drafter.llm.factory import open_backend, resolve_prompt_format

        key = (model, endpoint, n_ctx)
        with self._lock:
            found = self._backends.get(key)
            if found is None:
                if endpoint:
                    backend = open_backend(endpoint, remote_model=None if model == "default" else model,
                                           prompt_format=resolve_prompt_format(endpoint, "auto"))
                else:
                    backend = open_backend(model, n_ctx=n_ctx, prompt_format=resolve_prompt_format(model, "auto"))
                found = self._backends[key] = (backend, threading.Lock())
            return found

    def close(self) -> None:
        with self._lock:
            for backend, _ in self._backends.values():
                backend.close()
            self._backends.clear()


def draft(engine: WarmEngine, models: Models, args: Mapping, on_progress: Callable[[int, int, str], None],
          task: TaskState) -> Result:
    """Search for an answer the engine proves right, within `budget` model calls (drafting.search)."""
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.drafting.options import DraftOptions, SearchOptions
    from domain_drafter.drafting.search import search_action
    from domain_drafter.llm.backend import DecodingOptions

    bundle = engine.bundle(args)
    action = bundle.require_action(args["action"])
    bundle.require_descriptions()
    budget = args.get("budget") or 4
    if not 1 <= budget <= MAX_BUDGET:
        raise UsageError(f"budget {budget} is out of range", where="budget", hint=f"1 to {MAX_BUDGET} model calls")
    seed = args.get("seed") or 0
    options = DraftOptions(description_class=DescriptionClass.parse(args.get("description_class") or "base"),
                           seed=seed, decoding=DecodingOptions(max_tokens=args.get("max_tokens") or 300, seed=seed),
                           grammar=bool(args.get("grammar")))
    search = SearchOptions(budget=budget, width=min(budget, 4), time_limit_s=args.get("time_limit"))
    backend, lock = models.get(args.get("model") or "default", args.get("endpoint"), args.get("n_ctx"))

    def on_node(node) -> None:
        on_progress(node.call, budget, f"call {node.call}/{budget}: {node.judgement.verdict}, score {node.score:.0%}")

    on_progress(0, budget, f"drafting {bundle.name}/{action} with {getattr(backend, 'name', 'the model')}")
    with lock:
        task.check_cancelled()
        from domain_drafter.core.bundle import load_bundled

        result = search_action(bundle, action, backend, engine.evaluator, load_bundled(), options, search,
                               on_node=on_node, task=task)
    task.check_cancelled()
    best = result.best
    evaluation = best.judgement.evaluation if best is not None else None
    out = {"stopped": result.stopped, "error": result.error, "calls": result.calls,
           "generated_tokens": result.generated_tokens, "equivalent_at": result.equivalent_at,
           "best_answer": best.answer if best else None,
           "best_verdict": str(best.judgement.verdict) if best else None,
           "best_score": best.score if best else None,
           "best_evaluation": evaluation.to_dict() if evaluation is not None else None,
           "answers": [{"call": n.call, "verdict": str(n.judgement.verdict), "score": n.score, "answer": n.answer}
                       for n in result.nodes]}
    if out["best_evaluation"]:
        out["best_evaluation"].pop("answer", None)
    text = (f"search stopped ({result.stopped}) after {result.calls} model calls; best: "
            f"{out['best_verdict']}" + (f"\n{best.answer.strip()}" if best else ""))
    return out, text
