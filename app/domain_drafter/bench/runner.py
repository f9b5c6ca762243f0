"""Run an experiment: generate with each model in this process, judge answers in worker processes.

Each model is loaded once and its pending tasks are generated in a row. Every answer is
committed to the results file as soon as it exists, then handed to the executor; verdicts are
stored as they come back. Identical answers to the same action are judged once per run (the
run's verdict memo; the workers' Evaluator adds its on-disk verdict cache on top). A resumed run
first judges the stored answers that have no verdict yet, then generates only what is missing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

from domain_drafter.bench.spec import ExperimentSpec, ModelSpec
from domain_drafter.bench.store import ResultsStore
from domain_drafter.bench.worker import EvaluationJob, evaluate_job
from domain_drafter.core.errors import ModelError, UsageError
from domain_drafter.core.tasks import Cancelled, TaskState

CLASS_NAMES = ("Syntax error", "Semantic error", "Different domain", "Equivalent")


@dataclass(frozen=True)
class Progress:
    """Where a run stands; `counts` are evaluated answers per class (plus 'error')."""

    total: int
    generated: int
    evaluated: int
    counts: dict = field(default_factory=dict)
    elapsed_s: float = 0.0
    message: str = ""
    started_evaluated: int = 0   # evaluated before this session started (resume)

    @property
    def eta_s(self) -> float | None:
        done_now = self.evaluated - self.started_evaluated
        if done_now <= 0 or self.elapsed_s <= 0:
            return None
        return (self.total - self.evaluated) * self.elapsed_s / done_now


@dataclass(frozen=True)
class RunSummary:
    path: Path
    run_id: int
    total: int
    evaluated: int
    generated_now: int
    evaluated_now: int
    cancelled: bool
    counts: dict


def open_backend(model: ModelSpec, spec: ExperimentSpec):
    """The model's backend: llama.cpp in this process, or an OpenAI-compatible server."""
    from domain_drafter.llm.factory import open_backend as open_any

    if model.endpoint:
        key = os.environ.get(model.api_key_env) if model.api_key_env else None
        return open_any(model.endpoint, api_key=key, prompt_format=model.prompt_format)
    return open_any(str(model.model), n_ctx=spec.n_ctx, n_threads=spec.threads,
                    reuse_prompt_cache=spec.reuse_prompt_cache, prompt_format=model.prompt_format)


def prepare_store(spec: ExperimentSpec, out: str | Path, resume: bool) -> tuple[ResultsStore, int]:
    """Open the results file and make sure every task of `spec` has its row (pending if new)."""
    store = ResultsStore(out)
    try:
        existing = store.run_for(spec.fingerprint)
        if existing is not None and not resume:
            raise UsageError(f"{out} already holds this experiment ({store.count('evaluated')} of "
                             f"{store.count()} tasks done)", hint="add --resume to continue it, or give a new --out")
        if existing is None and store.count():
            raise UsageError(f"{out} already holds results of another experiment or an import",
                             hint="give a new --out file (a spec that changed is a new experiment)")
        run_id = existing.id if existing else store.start_run(spec.name, "run", spec.to_dict(), spec.fingerprint)
        store.add_tasks(run_id, spec.tasks())
        return store, run_id
    except BaseException:
        store.close()
        raise


class EvaluationQueue:
    """Hands answers to the executor, shares one verdict among identical answers, stores verdicts."""

    def __init__(self, store: ResultsStore, executor: Executor, k: int, time_limit_s: float, on_stored: Callable,
                 equivalence: str = "proven"):
        self.store, self.executor, self.on_stored = store, executor, on_stored
        self.k, self.time_limit_s, self.equivalence = k, time_limit_s, equivalence
        self._last_harvest = 0.0
        self.inflight: dict[tuple, tuple[Future, list[str]]] = {}
        self.memo: dict[tuple, dict] = {}
        for row in store.rows("evaluated"):
            if row["result"] and not row["error"]:
                self.memo.setdefault((row["domain"], row["action"], row["answer"]), json.loads(row["result"]))

    def submit(self, key: str, domain: str, action: str, answer: str) -> None:
        ident = (domain, action, answer)
        if ident in self.memo:
            self.store_result(key, dict(self.memo[ident], cached=True))
            return
        if ident in self.inflight:
            self.inflight[ident][1].append(key)
            return
        job = EvaluationJob(domain, action, answer, self.k, self.time_limit_s, self.equivalence)
        self.inflight[ident] = (self.executor.submit(evaluate_job, job), [key])

    def harvest(self, timeout: float | None = 0.0) -> None:
        """Store the verdicts that are ready (waiting up to `timeout` for at least one)."""
        if not self.inflight:
            return
        futures = {f: ident for ident, (f, _) in self.inflight.items()}
        done, _ = wait(list(futures), timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            ident = futures[future]
            _, keys = self.inflight.pop(ident)
            if future.cancelled():
                continue   # stopped before it ran: the answers stay 'generated' and are judged on resume
            result = future.result()
            if not result.get("error"):
                self.memo[ident] = result
            for i, key in enumerate(keys):
                self.store_result(key, result if i == 0 else dict(result, cached=True))

    def harvest_now_and_then(self, _piece: str = "") -> None:
        """Store ready verdicts at most every second (called per token while a model writes)."""
        now = time.monotonic()
        if now - self._last_harvest >= 1.0:
            self._last_harvest = now
            self.harvest(0.0)

    def drain(self, task: TaskState | None) -> None:
        while self.inflight:
            if task is not None and task.cancelled:
                for future, _ in self.inflight.values():
                    future.cancel()
                while self.inflight:   # cancelled jobs drop out at once; running ones finish and are kept
                    self.harvest(None)
                return
            self.harvest(0.5)

    def store_result(self, key: str, result: dict) -> None:
        self.store.store_evaluation(key, result)
        self.on_stored(result)


def run_experiment(spec: ExperimentSpec, out: str | Path, *, resume: bool = False, executor: str | None = None,
                   workers: int | None = None, task: TaskState | None = None,
                   on_progress: Callable[[Progress], None] | None = None) -> RunSummary:
    """Run (or continue) `spec` into the results file `out`; returns what was done. Cancel via `task`."""
    from domain_drafter.bench.executors import open_executor

    store, run_id = prepare_store(spec, out, resume)
    t0 = time.perf_counter()
    with store:
        total = store.count()
        counts = _class_counts(store)
        state = {"generated": total - store.count("pending"), "evaluated": store.count("evaluated"),
                 "generated_now": 0, "evaluated_now": 0}
        started_evaluated = state["evaluated"]

        def report(message: str = "") -> None:
            if on_progress is not None:
                on_progress(Progress(total, state["generated"], state["evaluated"], dict(counts),
                                     time.perf_counter() - t0, message, started_evaluated))

        def on_stored(result: dict) -> None:
            cls = result.get("class") or "error"
            counts[cls] = counts.get(cls, 0) + 1
            state["evaluated"] += 1
            state["evaluated_now"] += 1
            report()

        cancelled = False
        report("starting")
        with open_executor(executor, workers or spec.workers) as pool:
            evaluations = EvaluationQueue(store, pool, spec.k, spec.time_limit_s, on_stored, spec.equivalence)
            for row in store.tasks_with_status("generated"):
                evaluations.submit(row["key"], row["domain"], row["action"], row["answer"] or "")
            try:
                for model in spec.models:
                    pending = [r for r in store.tasks_with_status("pending") if r["model"] == model.name]
                    if not pending:
                        continue
                    report(f"loading {model.name}")
                    _generate_model(spec, model, pending, store, evaluations, state, report, task)
                report("judging the last answers")
                evaluations.drain(task)
            except Cancelled:
                cancelled = True
                evaluations.drain(task)
            except ModelError as exc:   # e.g. an endpoint still failing after its retries
                evaluations.drain(task)
                report("stopped: the model failed")
                raise ModelError(exc.what, where=exc.where,
                                 hint=(exc.hint + "; " if exc.hint else "") + "the answers so far are kept and "
                                 "the remaining tasks are pending: fix the cause, then run again with --resume") from exc
            cancelled = cancelled or bool(task and task.cancelled)
        if not cancelled and store.count("evaluated") == total:
            store.finish_run(run_id)
        report("stopped" if cancelled else "finished")
        return RunSummary(Path(out), run_id, total, store.count("evaluated"), state["generated_now"],
                          state["evaluated_now"], cancelled, dict(counts))


def _class_counts(store: ResultsStore) -> dict[str, int]:
    rows = store.db.execute("SELECT COALESCE(class, 'error'), COUNT(*) FROM tasks WHERE status = 'evaluated' "
                            "GROUP BY 1").fetchall()
    return {r[0]: r[1] for r in rows}


def _generate_model(spec, model, pending, store, evaluations, state, report, task) -> None:
    """Load `model` once and write the answers of its pending tasks: `spec.batch` in flight at a time
    where the backend decodes batches (llama.cpp), else in a row."""
    from domain_drafter.core.bundle import load_bundle, load_bundled
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.core.prompt import build_prompt, load_template
    from domain_drafter.llm.backend import DecodingOptions
    from domain_drafter.llm.grammar import ActionGrammar

    template = load_template()
    bundles = {name: load_bundle(name) for name in {r["domain"] for r in pending}}
    pool = list({b.name: b for b in [*load_bundled(), *bundles.values()]}.values())
    grammars: dict[tuple[str, str], str] = {}

    def prepared(row):
        """The row's prompt and decoding options."""
        bundle = bundles[row["domain"]]
        cls = DescriptionClass.parse(row["description_class"])
        decoding = DecodingOptions(max_tokens=spec.max_tokens, seed=row["seed"])
        prompt = build_prompt(bundle, row["action"], pool, cls, row["seed"], spec.examples, template)
        if row["grammar"]:
            ident = (bundle.name, row["action"])
            if ident not in grammars:
                grammars[ident] = ActionGrammar(bundle.domain, row["action"], lock_signature=True).to_gbnf()
            decoding = replace(decoding, grammar=grammars[ident])
        return prompt, decoding

    def store_answer(row, prompt, generation, backend, batch: int) -> None:
        store.store_generation(row["key"], generation.text, _prompt_record(prompt),
                               {"backend": backend.name, "prompt_format": model.prompt_format, "batch": batch,
                                "stats": generation.stats.__dict__})
        evaluations.submit(row["key"], row["domain"], row["action"], generation.text)
        written(row)

    def written(row) -> None:
        state["generated"] += 1
        state["generated_now"] += 1
        evaluations.harvest(0.0)
        report(f"{model.name}: {row['domain']}/{row['action']}")

    corrective = _CorrectiveDrafts(spec, pool, template) if spec.retries > 0 else None
    strategy_of = spec.strategy_of()
    searched = [r for r in pending if strategy_of.get(r["system"], "one-shot") != "one-shot"]
    strategies = None
    if searched:
        from domain_drafter.bench.strategies import StrategyDrafts

        strategies = StrategyDrafts(spec, pool, template)
    with open_backend(model, spec) as backend:
        try:
            if corrective is None and strategies is None and spec.batch > 1 and hasattr(backend, "generate_stream"):
                _generate_batched(backend, spec.batch, pending, prepared, store_answer, evaluations, task)
                return
            for row in pending:
                if task is not None:
                    task.check_cancelled()
                strategy = strategy_of.get(row["system"], "one-shot")
                if strategies is not None and strategy != "one-shot":
                    bundle = bundles[row["domain"]]
                    cls = DescriptionClass.parse(row["description_class"])
                    decoding = DecodingOptions(max_tokens=spec.max_tokens, seed=row["seed"])
                    strategies.run(row, strategy, bundle, cls, decoding, backend, store, evaluations, task)
                    written(row)
                    continue
                if corrective is not None:
                    bundle = bundles[row["domain"]]
                    cls = DescriptionClass.parse(row["description_class"])
                    decoding = DecodingOptions(max_tokens=spec.max_tokens, seed=row["seed"])
                    corrective.run(row, bundle, cls, decoding, backend, store, evaluations, task)
                    written(row)
                    continue
                prompt, decoding = prepared(row)
                generation = backend.generate(prompt.text, decoding, task=task,
                                              on_token=evaluations.harvest_now_and_then)
                if generation.stats.stop_reason == "cancelled":
                    raise Cancelled()
                store_answer(row, prompt, generation, backend, 1)
        finally:
            if corrective is not None:
                corrective.close()
            if strategies is not None:
                strategies.close()


def _generate_batched(backend, batch, pending, prepared, store_answer, evaluations, task) -> None:
    """`batch` answers in flight in one llama.cpp batch; a finished slot takes the next task at once.
    Answers cut off by a cancel are not stored: their tasks stay pending for --resume."""
    from domain_drafter.llm.batch import BatchRequest

    def requests():
        for row in pending:
            prompt, decoding = prepared(row)
            yield BatchRequest(prompt.text, decoding, (row, prompt), None, evaluations.harvest_now_and_then)

    def on_done(request, generation) -> None:
        if generation.stats.stop_reason != "cancelled":
            row, prompt = request.tag
            store_answer(row, prompt, generation, backend, batch)

    backend.generate_stream(requests(), on_done, n_slots=batch, task=task)
    if task is not None:
        task.check_cancelled()


class _CorrectiveDrafts:
    """Tasks with retries: each verdict is needed before the next prompt, so they are judged here."""

    def __init__(self, spec, pool, template):
        from domain_drafter.bench.worker import bench_options
        from domain_drafter.planning.evaluate import Evaluator

        self.spec, self.pool, self.template = spec, pool, template
        self.evaluator = Evaluator(bench_options(spec.k, spec.time_limit_s, spec.equivalence))

    def run(self, row, bundle, cls, decoding, backend, store, evaluations, task) -> None:
        from domain_drafter.drafting.loop import DraftOptions, Feedback, draft_action

        options = DraftOptions(description_class=cls, seed=row["seed"], examples=self.spec.examples,
                               decoding=decoding, grammar=bool(row["grammar"]), retries=self.spec.retries,
                               feedback=Feedback(self.spec.feedback))
        draft = draft_action(bundle, row["action"], backend, self.evaluator, self.pool, options,
                             template=self.template, task=task)
        final = draft.rounds[-1]
        store.store_generation(row["key"], final.generation.text, _prompt_record(draft.prompt),
                               {"backend": backend.name, "rounds": [r.to_dict() for r in draft.rounds]})
        evaluations.store_result(row["key"], final.evaluation.to_dict())

    def close(self) -> None:
        self.evaluator.close()


def _prompt_record(prompt) -> dict:
    data = prompt.to_dict()
    data.pop("text", None)   # rebuilt exactly from the seed; keeps the file small
    return data
