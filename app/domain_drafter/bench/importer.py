"""Import answers produced elsewhere (a JSONL file) and judge them like generated ones.

Each line is `{"domain", "action", "class", "model", "output"}`; `domain` is a bundled name
or a folder with domain.pddl and problems/. Other fields (`id`, `seed`, ...) are kept with the
row. A line that is not JSON, misses a field, or names an unknown domain, action or class is
reported with its line number and skipped; the other lines go on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.bench.jsonl import read_json_lines
from domain_drafter.bench.runner import EvaluationQueue, Progress
from domain_drafter.bench.spec import BenchTask
from domain_drafter.bench.store import ResultsStore
from domain_drafter.core.errors import DrafterError, UsageError
from domain_drafter.core.tasks import TaskState

REQUIRED = ("domain", "action", "class", "model", "output")


@dataclass(frozen=True)
class LineProblem:
    line: int
    message: str


@dataclass(frozen=True)
class ImportSummary:
    path: Path
    stored: int
    problems: tuple[LineProblem, ...]


def read_answers(source: Path) -> tuple[list[BenchTask], list[LineProblem]]:
    """Parse and check the JSONL; tasks carry the answer in `extra['output']`."""
    from domain_drafter.core.bundle import load_bundle
    from domain_drafter.core.descriptions import DescriptionClass

    tasks, problems = [], []
    for line in read_json_lines(source):   # a bad line is reported and skipped; the others go on
        number, record = line.number, line.record
        if record is None:
            problems.append(LineProblem(number, line.problem or "unreadable"))
            continue
        missing = [f for f in REQUIRED if f not in record]
        wrong = [f for f in REQUIRED if f in record and not isinstance(record[f], str)]
        if missing or wrong:
            problems.append(LineProblem(number, (f"missing field(s) {', '.join(missing)}" if missing else "")
                                        + ("; " if missing and wrong else "")
                                        + (f"field(s) {', '.join(wrong)} must be strings" if wrong else "")))
            continue
        try:
            bundle = load_bundle(record["domain"])
            action = bundle.require_action(record["action"])
            cls = DescriptionClass.parse(record["class"]).value
            bundle.require_problems()
        except DrafterError as err:
            problems.append(LineProblem(number, err.what + (f" ({err.hint})" if err.hint else "")))
            continue
        seed = record.get("seed", 0)
        extra = {k: v for k, v in record.items() if k not in REQUIRED}
        extra.update({"output": record["output"], "line": number, "source": source.name})
        ident = str(record.get("id", f"line{number}"))
        task = BenchTask(record["model"], record["model"], False, record["domain"], action, cls,
                         seed if isinstance(seed, int) and not isinstance(seed, bool) else 0, extra)
        tasks.append(_Keyed(task, f"{source.name}|{ident}|{task.key}"))
    return tasks, problems


class _Keyed:
    """A BenchTask with a key of the import's choosing (file, id or line, task)."""

    def __init__(self, task: BenchTask, key: str):
        self._task, self.key = task, key

    def __getattr__(self, name: str):
        return getattr(self._task, name)


def import_answers(source: str | Path, out: str | Path, *, k: int = 100, time_limit_s: float = 30.0,
                   executor: str | None = None, workers: int = 1, task: TaskState | None = None,
                   on_progress: Callable[[Progress], None] | None = None,
                   equivalence: str = "proven") -> ImportSummary:
    """Judge every good line of `source` into the results file `out`; lines already imported are kept.

    `equivalence` ("proven" or "paper") picks the verdict stored as the class; the other is kept beside it.
    """
    from domain_drafter.bench.executors import open_executor

    source = Path(source)
    tasks, problems = read_answers(source)
    t0 = time.perf_counter()
    with ResultsStore(out) as store:
        if any(r.kind == "run" for r in store.runs()):
            raise UsageError(f"{out} holds a generated run; keep imports in their own file", hint="give a new --out")
        spec = {"source": str(source), "k": k, "time_limit_s": time_limit_s, "lines": len(tasks) + len(problems),
                "equivalence": equivalence}
        run_id = store.start_run(source.stem, "import", spec, f"import:{source.name}")
        outputs = {t.key: t.extra.pop("output") for t in tasks}   # the answer has its own column
        store.add_tasks(run_id, tasks)
        pending = store.tasks_with_status("pending", set(outputs))
        for row in pending:
            store.store_generation(row["key"], outputs[row["key"]], None, {"source": "import"})
        state = {"evaluated": 0}
        counts: dict[str, int] = {}
        rows = store.tasks_with_status("generated", set(outputs))
        total = len(rows)

        def on_stored(result: dict) -> None:
            state["evaluated"] += 1
            cls = result.get("class") or "error"
            counts[cls] = counts.get(cls, 0) + 1
            if on_progress is not None:
                on_progress(Progress(total, total, state["evaluated"], dict(counts), time.perf_counter() - t0))

        with open_executor(executor, workers) as pool:
            queue = EvaluationQueue(store, pool, k, time_limit_s, on_stored, equivalence)
            for row in rows:
                queue.submit(row["key"], row["domain"], row["action"], row["answer"])
            queue.drain(task)
        store.finish_run(run_id)
        return ImportSummary(Path(out), state["evaluated"], tuple(problems))
