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
from dataclasses import dataclass, field
from pathlib import Path

from domain_drafter.bench.generators import open_backend
from domain_drafter.bench.spec import ExperimentSpec, ModelSpec
from domain_drafter.bench.store import ResultsStore
from domain_drafter.bench.worker import EvaluationJob, evaluate_job
from domain_drafter.core.errors import ModelError, UsageError
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.llm.amx import cpu_identity

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
    generated_now: int = 0       # answers written in this session

    @property
    def answers_per_min(self) -> float | None:
        """Answers written per minute in this session (None before the first)."""
        if self.generated_now <= 0 or self.elapsed_s <= 0:
            return None
        return self.generated_now * 60.0 / self.elapsed_s

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
                   workers: int | None = None, generators: int | None = None, task: TaskState | None = None,
                   on_progress: Callable[[Progress], None] | None = None) -> RunSummary:
    """Run (or continue) `spec` into the results file `out`; returns what was done. Cancel via `task`.

    generators: processes that generate with a local model (default: the spec's, else cores // threads).
    A model with endpoints is served by `parallel` requests per endpoint instead; with a Dask `executor`
    those requests (and the judging) run on the cluster."""
    from domain_drafter.bench.executors import DASK_PREFIX, open_executor

    n_generators, _ = generator_count(spec, generators)
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
                                     time.perf_counter() - t0, message, started_evaluated, state["generated_now"]))

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
                    _generate_model(spec, model, pending, store, evaluations, state, report, task,
                                    generators=n_generators, executor=pool,
                                    on_dask=bool(executor and executor.startswith(DASK_PREFIX)))
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


def machine_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # macOS, Windows
        return os.cpu_count() or 1


def generator_count(spec: ExperimentSpec, requested: int | None = None) -> tuple[int, str | None]:
    """How many generator processes a local model gets, and a warning when that oversubscribes the cores.

    `requested` (the CLI's --generators) wins over the spec's `generators`; the default fills the machine,
    cores // threads (one when `threads` is left to llama.cpp, which then takes half the cores itself)."""
    cores = machine_cores()
    n = requested if requested is not None else spec.generators
    if n is None:
        n = max(1, cores // spec.threads) if spec.threads else 1
    if n < 1:
        raise UsageError(f"--generators must be at least 1, got {n}")
    if n > 1 and spec.batch > 1:
        raise UsageError("--generators and --batch cannot be combined: a batch decodes its answers in one "
                         "llama.cpp context of one process", hint="use one of them (--batch 1 is the default)")
    threads = spec.threads or 1
    warning = (f"{n} generators x {threads} thread(s) on {cores} core(s): they will share the cores and be slower "
               f"than {max(1, cores // threads)}") if n * threads > cores else None
    return n, warning


def _generate_model(spec, model, pending, store, evaluations, state, report, task, *, generators: int = 1,
                    executor=None, on_dask: bool = False) -> None:
    """Write the answers of `model`'s pending tasks. In this process (one local generator, or one endpoint with
    one request at a time), else through generator slots (`generator_slots`), handed one task at a time."""
    from domain_drafter.bench.dispatch import draft_in_parallel
    from domain_drafter.bench.drafter import TaskDrafter, row_dict

    rows = {r["key"]: row_dict(r) for r in pending}
    # The CPU that wrote each answer of a model run here (greedy answers can differ between CPUs, and a run
    # resumed on another machine goes on in the same file); a served model's answers come from its server's.
    here = {} if model.endpoint else cpu_identity()

    def store_drafted(drafted) -> None:
        row = rows[drafted.key]
        store.store_generation(drafted.key, drafted.answer, drafted.prompt, {**drafted.generation, **here})
        if drafted.evaluation is None:
            evaluations.submit(drafted.key, row["domain"], row["action"], drafted.answer)
        else:
            evaluations.store_result(drafted.key, drafted.evaluation)
        state["generated"] += 1
        state["generated_now"] += 1
        evaluations.harvest(0.0)
        report(f"{drafted.generation.get('generator') or model.name}: {row['domain']}/{row['action']}")

    slots, endpoints = generator_slots(spec, model, generators, executor if on_dask else None)
    if slots:
        draft_in_parallel(slots, list(rows.values()), store_drafted, task=task, idle=lambda: evaluations.harvest(0.0),
                          endpoints=endpoints, on_note=report, on_progress=report)
        return
    drafter = TaskDrafter(spec, model)
    doing = (task or TaskState()).reporting_to(lambda _done, _total, text: report(f"{model.name}: {text}"))
    searching = spec.retries > 0 or any(s != "one-shot" for s in spec.strategies)
    with open_backend(model, spec) as backend:
        try:
            if not searching and spec.batch > 1 and hasattr(backend, "generate_stream"):
                _generate_batched(backend, spec.batch, list(rows.values()), drafter, store_drafted,
                                  evaluations, task)
                return
            for row in rows.values():
                if task is not None:
                    task.check_cancelled()
                store_drafted(drafter.draft(row, backend, doing, on_token=evaluations.harvest_now_and_then))
        finally:
            drafter.close()


def generator_slots(spec: ExperimentSpec, model: ModelSpec, generators: int, dask_executor=None):
    """The generator slots of `model` and its endpoints' health records; ([], []) means: in this process."""
    from domain_drafter.bench.generators import DaskGenerator, Endpoint, EndpointGenerator, ProcessGenerator

    if model.endpoint:
        endpoints = [Endpoint(url) for url in model.endpoints]
        if dask_executor is not None:
            return [DaskGenerator(dask_executor, spec, model, e, s + 1) for e in endpoints
                    for s in range(model.parallel)], endpoints
        if len(endpoints) == 1 and model.parallel == 1:
            return [], []
        return [EndpointGenerator(spec, model, e, s + 1, many=True) for e in endpoints
                for s in range(model.parallel)], endpoints
    if generators <= 1:
        return [], []
    return [ProcessGenerator(spec, model, i + 1) for i in range(generators)], []


def _generate_batched(backend, batch, rows, drafter, store_drafted, evaluations, task) -> None:
    """`batch` answers in flight in one llama.cpp batch; a finished slot takes the next task at once.
    Answers cut off by a cancel are not stored: their tasks stay pending for --resume."""
    from domain_drafter.bench.drafter import Drafted, prompt_record
    from domain_drafter.llm.batch import BatchRequest

    def requests():
        for row in rows:
            prompt, decoding = drafter.prepared(row)
            yield BatchRequest(prompt.text, decoding, (row, prompt), None, evaluations.harvest_now_and_then)

    def on_done(request, generation) -> None:
        if generation.stats.stop_reason != "cancelled":
            row, prompt = request.tag
            store_drafted(Drafted(row["key"], generation.text, prompt_record(prompt),
                                  {"backend": backend.name, "prompt_format": drafter.model.prompt_format,
                                   "batch": batch, "stats": generation.stats.__dict__}))

    backend.generate_stream(requests(), on_done, n_slots=batch, task=task)
    if task is not None:
        task.check_cancelled()
