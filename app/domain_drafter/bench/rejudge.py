"""Judge a run's stored answers again, without generating any: e.g. to add proven verdicts to old results.

The answers come from a results file written by `bench run` (its spec is read from the file),
or from an answers JSONL whose `id` is the task key (as in `resources/results/*/answers.jsonl`),
together with the experiment spec that made them. The new results file holds the same tasks
under the same keys, each answer stored as generated and then judged like a fresh one; a run
stopped part-way continues when called again with the same arguments.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from domain_drafter.bench.jsonl import read_json_lines
from domain_drafter.bench.runner import EvaluationQueue, Progress, prepare_store
from domain_drafter.bench.spec import ExperimentSpec, spec_from_dict
from domain_drafter.bench.store import ResultsStore
from domain_drafter.core.errors import DrafterError, UsageError
from domain_drafter.core.tasks import TaskState

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class StoredAnswer:
    answer: str
    prompt: dict | None = None
    generation: dict | None = None


@dataclass(frozen=True)
class RejudgeSummary:
    path: Path
    total: int
    evaluated: int
    judged_now: int
    missing: tuple[str, ...]       # tasks of the spec with no stored answer (left pending)
    unknown: tuple[str, ...]       # stored answers whose key is no task of the spec (skipped)
    cancelled: bool
    counts: dict = field(default_factory=dict)


def stored_answers(source: Path) -> tuple[dict[str, StoredAnswer], ExperimentSpec | None]:
    """The answers of `source` by task key, and the spec that made them (None for a JSONL)."""
    try:
        with source.open("rb") as f:
            magic = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise UsageError(f"cannot read the answers: {exc.strerror}", where=source) from None
    if magic == SQLITE_MAGIC:
        return _from_results(source)
    return _from_jsonl(source), None


def _from_results(source: Path) -> tuple[dict[str, StoredAnswer], ExperimentSpec]:
    with ResultsStore(source) as store:
        runs = [r for r in store.runs() if r.kind == "run"]
        if len(runs) != 1:
            raise UsageError(f"{source} holds {len(runs)} generated runs; re-judging needs exactly one",
                             hint="an import is re-judged by importing its JSONL again with `bench import`")
        answers = {r["key"]: StoredAnswer(r["answer"], _json(r["prompt"]), _json(r["generation"]))
                   for r in store.rows(None) if r["status"] != "pending" and r["answer"] is not None}
    try:
        spec = spec_from_dict(runs[0].spec, where=source)
    except DrafterError as err:
        raise UsageError(f"the run's spec in {source} cannot be read by this version: {err.what}",
                         hint="give the experiment spec (.toml) that made it") from None
    return answers, spec


def _from_jsonl(source: Path) -> dict[str, StoredAnswer]:
    answers: dict[str, StoredAnswer] = {}
    for line in read_json_lines(source):
        record = line.record
        if record is None:   # re-judging must match the spec's tasks exactly: stop at a bad line
            raise UsageError(f"line {line.number} is {line.problem}", where=source)
        if not isinstance(record.get("id"), str) or not isinstance(record.get("output"), str):
            raise UsageError(f"line {line.number} needs string fields 'id' (the task key) and 'output'",
                             where=source, hint="answers written by `bench run` results carry both")
        if record["id"] in answers:
            raise UsageError(f"line {line.number} repeats the task key {record['id']!r}", where=source)
        answers[record["id"]] = StoredAnswer(record["output"])
    return answers


def _json(text: str | None) -> dict | None:
    return json.loads(text) if text else None


def rejudge(source: str | Path, out: str | Path, *, spec: ExperimentSpec | None = None,
            equivalence: str = "proven", executor: str | None = None, workers: int | None = None,
            task: TaskState | None = None, on_progress: Callable[[Progress], None] | None = None) -> RejudgeSummary:
    """Judge the answers stored in `source` again into the new results file `out` (no generation).

    `spec` is required for a JSONL source (and overrides a results file's own). `equivalence`
    picks the verdict stored as the class; the benchmark always stores the paper's beside it.
    """
    from domain_drafter.bench.executors import open_executor

    source, out = Path(source), Path(out)
    if out.exists() and source.resolve() == out.resolve():
        raise UsageError("the re-judged results need a file of their own", where=out, hint="give a new --out")
    answers, found = stored_answers(source)
    spec = spec or found
    if spec is None:
        raise UsageError(f"{source} holds answers but not the experiment that made them",
                         hint="give the experiment spec (.toml) with the same overrides as the run")
    spec = spec.with_overrides(equivalence=equivalence)
    t0 = time.perf_counter()
    store, run_id = prepare_store(spec, out, resume=True)
    with store:
        keys = {r["key"] for r in store.rows(None)}
        unknown = tuple(sorted(set(answers) - keys))
        for row in store.tasks_with_status("pending"):
            stored = answers.get(row["key"])
            if stored is not None:
                store.store_generation(row["key"], stored.answer, stored.prompt,
                                       dict(stored.generation or {}, rejudged_from=source.name))
        missing = tuple(r["key"] for r in store.tasks_with_status("pending"))
        rows = store.tasks_with_status("generated")
        total, before = store.count(), store.count("evaluated")
        state, counts = {"now": 0}, {}

        def on_stored(result: dict) -> None:
            state["now"] += 1
            cls = result.get("class") or "error"
            counts[cls] = counts.get(cls, 0) + 1
            if on_progress is not None:
                on_progress(Progress(total, total - len(missing), before + state["now"], dict(counts),
                                     time.perf_counter() - t0, "re-judging", before))

        with open_executor(executor, workers or spec.workers) as pool:
            queue = EvaluationQueue(store, pool, spec.k, spec.time_limit_s, on_stored, spec.equivalence)
            for row in rows:
                queue.submit(row["key"], row["domain"], row["action"], row["answer"] or "")
            queue.drain(task)
        cancelled = bool(task and task.cancelled)
        evaluated = store.count("evaluated")
        if evaluated == total:
            store.finish_run(run_id)
        return RejudgeSummary(out, total, evaluated, state["now"], missing, unknown, cancelled, counts)
