"""The results file: one SQLite database per run, one row per task.

Tables: `runs` (the spec, versions of Domain Drafter, K* and llama.cpp, the machine) and
`tasks` (one row per task key, inserted as 'pending' when the run starts; the generated answer
is committed first with status 'generated', then the verdict with status 'evaluated').
Every write is one transaction, so a process killed at any moment leaves whole rows only,
and `--resume` picks up where it stopped without generating a stored answer again.

Each verdict is stored twice over: `class`/`subclass` are the verdict of the run's equivalence
mode, and `paper_subclass` (METHOD 6, the plan heuristic) and `proof_*` (METHOD 6a) keep both
verdicts side by side. The schema version is SQLite's `user_version`: a file of an older
version gains the new columns when opened (its verdicts were the paper's, and are marked so);
a file of a newer version is refused.
"""

from __future__ import annotations

import json
import platform
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domain_drafter.core.errors import DomainError, UsageError

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,             -- 'run' (generated here) or 'import'
    spec TEXT NOT NULL,             -- the experiment spec as JSON
    fingerprint TEXT NOT NULL,
    versions TEXT NOT NULL,         -- Domain Drafter, K*, llama.cpp, Python
    machine TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    ord INTEGER NOT NULL,
    system TEXT NOT NULL,
    model TEXT NOT NULL,
    grammar INTEGER NOT NULL,
    domain TEXT NOT NULL,
    action TEXT NOT NULL,
    description_class TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',   -- pending -> generated -> evaluated
    answer TEXT,
    prompt TEXT,                    -- JSON: seed, description, examples (domain/action)
    generation TEXT,                -- JSON: generation stats and corrective rounds
    class TEXT,
    subclass TEXT,
    reason TEXT,
    message TEXT,
    error TEXT,
    are_total INTEGER,
    are_pre INTEGER,
    are_add INTEGER,
    are_del INTEGER,
    counterexample TEXT,            -- JSON or NULL
    timings TEXT,                   -- JSON
    result TEXT,                    -- JSON: EvaluationResult.to_dict()
    extra TEXT,                     -- JSON: fields an import line carried beyond the required ones
    generated_at REAL,
    evaluated_at REAL
);
CREATE INDEX IF NOT EXISTS tasks_status ON tasks(status);
"""

SCHEMA_VERSION = 2
# Columns added in schema 2 (proven verdicts), with their types; ALTER TABLE adds them to older files.
PROOF_COLUMNS = (
    ("equivalence_mode", "TEXT"),       # 'proven' or 'paper': which verdict `class`/`subclass` hold
    ("paper_subclass", "TEXT"),         # the paper's heuristic verdict (the check's subclass if it failed)
    ("proof_subclass", "TEXT"),         # the proof's verdict (NULL where no proof ran)
    ("proof_method", "TEXT"),           # shortcut, exploration, planner, heuristic
    ("proof_proven", "INTEGER"),        # 1 proven, 0 the proof did not finish (heuristic fallback)
    ("proof_states", "INTEGER"),        # reachable states compared
    ("proof_counterexample", "TEXT"),   # JSON: the distinguishing state, plan and problem, or NULL
)
# Subclasses decided before any equivalence check: both verdicts are the check's.
_CHECK_SUBCLASSES = {"NoPDDL", "PError", "UToken", "NError", "TError", "PAError", "BPError"}

TASK_COLUMNS = ("key", "run_id", "ord", "system", "model", "grammar", "domain", "action", "description_class",
                "seed", "status", "answer", "prompt", "generation", "class", "subclass", "reason", "message",
                "error", "are_total", "are_pre", "are_add", "are_del", "counterexample", "timings", "result",
                "extra", "generated_at", "evaluated_at") + tuple(name for name, _ in PROOF_COLUMNS)


@dataclass(frozen=True)
class RunInfo:
    id: int
    name: str
    kind: str
    spec: dict
    fingerprint: str
    versions: dict
    machine: dict
    started: float
    finished: float | None


def versions() -> dict[str, str]:
    """Versions that can change a verdict or a generation."""
    from importlib import metadata

    from domain_drafter import __version__

    out = {"domain-drafter": __version__, "python": platform.python_version()}
    for dist, key in (("kstar-planner", "kstar"), ("llama_cpp_python", "llama.cpp"), ("pddl", "pddl")):
        try:
            out[key] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[key] = "not installed"
    return out


def machine() -> dict[str, Any]:
    """Where a run ran: with the CPU's model and kernel flags, since greedy answers can differ between CPUs."""
    import os

    from domain_drafter.llm.amx import cpu_identity

    return {"host": socket.gethostname(), "platform": platform.platform(), "processor": platform.machine(),
            "cpus": os.cpu_count(), **cpu_identity()}


class ResultsStore:
    """A results file. Not thread-safe: the runner writes from one thread."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                self.db.close()
                raise DomainError(f"this results file has schema version {version}, written by a newer Domain "
                                  f"Drafter; this one reads up to version {SCHEMA_VERSION}", where=self.path,
                                  hint="open it with the Domain Drafter that wrote it, or upgrade")
            self.db.executescript(SCHEMA)
            if version < SCHEMA_VERSION:
                self._upgrade()
        except sqlite3.DatabaseError as exc:
            raise DomainError(f"not a results file: {exc}", where=self.path,
                              hint="give a .sqlite file written by `domain-drafter bench`, or a new path") from None

    def _upgrade(self) -> None:
        """Add the schema-2 columns; rows judged before they existed hold the paper's verdict."""
        with self._tx():
            have = {r[1] for r in self.db.execute("PRAGMA table_info(tasks)")}
            for name, kind in PROOF_COLUMNS:
                if name not in have:
                    self.db.execute(f"ALTER TABLE tasks ADD COLUMN {name} {kind}")
            self.db.execute("UPDATE tasks SET equivalence_mode = 'paper', paper_subclass = subclass "
                            "WHERE status = 'evaluated' AND equivalence_mode IS NULL "
                            "AND json_extract(result, '$.equivalence_mode') IS NULL")
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def _tx(self):
        return _Transaction(self.db)

    # --- runs ----------------------------------------------------------------------------
    def runs(self) -> list[RunInfo]:
        rows = self.db.execute("SELECT * FROM runs ORDER BY id").fetchall()
        return [RunInfo(r["id"], r["name"], r["kind"], json.loads(r["spec"]), r["fingerprint"],
                        json.loads(r["versions"]), json.loads(r["machine"]), r["started"], r["finished"])
                for r in rows]

    def start_run(self, name: str, kind: str, spec: dict, fingerprint: str) -> int:
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO runs (name, kind, spec, fingerprint, versions, machine, started) VALUES (?,?,?,?,?,?,?)",
                (name, kind, json.dumps(spec), fingerprint, json.dumps(versions()), json.dumps(machine()),
                 time.time()))
            return int(cur.lastrowid)

    def finish_run(self, run_id: int) -> None:
        with self._tx():
            self.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (time.time(), run_id))

    def run_for(self, fingerprint: str) -> RunInfo | None:
        return next((r for r in self.runs() if r.fingerprint == fingerprint), None)

    # --- tasks ---------------------------------------------------------------------------
    def add_tasks(self, run_id: int, tasks: Iterable[Any]) -> int:
        """Insert tasks as pending (existing keys are left alone); returns how many were new."""
        with self._tx():
            start = self.db.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM tasks").fetchone()[0]
            before = self.count()
            self.db.executemany(
                "INSERT OR IGNORE INTO tasks (key, run_id, ord, system, model, grammar, domain, action, "
                "description_class, seed, extra) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(t.key, run_id, start + i, t.system, t.model, int(t.grammar), t.domain, t.action,
                  t.description_class, t.seed, json.dumps(t.extra) if t.extra else None)
                 for i, t in enumerate(tasks)])
            return self.count() - before

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self.db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM tasks WHERE status = ?", (status,)).fetchone()[0]

    def status_counts(self) -> dict[str, int]:
        rows = self.db.execute("SELECT status, COUNT(*) FROM tasks GROUP BY status").fetchall()
        return {r[0]: r[1] for r in rows}

    def tasks_with_status(self, status: str, keys: set[str] | None = None) -> list[sqlite3.Row]:
        rows = self.db.execute("SELECT * FROM tasks WHERE status = ? ORDER BY ord", (status,)).fetchall()
        return [r for r in rows if keys is None or r["key"] in keys]

    def rows(self, status: str | None = "evaluated") -> Iterator[sqlite3.Row]:
        query = "SELECT * FROM tasks" + (" WHERE status = ?" if status else "") + " ORDER BY ord"
        yield from self.db.execute(query, (status,) if status else ())

    def store_generation(self, key: str, answer: str, prompt: dict | None, generation: dict | None) -> None:
        """Commit the answer before it is judged, so a kill never costs a generation."""
        with self._tx():
            cur = self.db.execute(
                "UPDATE tasks SET status = 'generated', answer = ?, prompt = ?, generation = ?, generated_at = ? "
                "WHERE key = ? AND status = 'pending'",
                (answer, json.dumps(prompt) if prompt is not None else None,
                 json.dumps(generation) if generation is not None else None, time.time(), key))
            if cur.rowcount != 1:
                raise UsageError(f"task {key!r} is not pending in {self.path}")

    def store_evaluation(self, key: str, result: dict) -> None:
        are = result.get("are") or {}
        equivalence = result.get("equivalence") or {}
        findings = result.get("findings") or []
        reason = findings[0].get("reason") if findings else ("time-out" if equivalence.get("timed_out") else None)
        verdicts = _verdicts(result)
        with self._tx():
            self.db.execute(
                "UPDATE tasks SET status = 'evaluated', class = ?, subclass = ?, reason = ?, message = ?, error = ?, "
                "are_total = ?, are_pre = ?, are_add = ?, are_del = ?, counterexample = ?, timings = ?, result = ?, "
                "evaluated_at = ?, " + ", ".join(f"{name} = ?" for name, _ in PROOF_COLUMNS) + " WHERE key = ?",
                (result.get("class"), result.get("subclass"), reason, result.get("message"), result.get("error"),
                 are.get("total"), _term(are, "pre"), _term(are, "add"), _term(are, "del"),
                 json.dumps(equivalence.get("counterexample")) if equivalence.get("counterexample") else None,
                 json.dumps(result.get("timings") or {}), json.dumps(result), time.time(),
                 *(verdicts[name] for name, _ in PROOF_COLUMNS), key))


def _verdicts(result: dict) -> dict[str, Any]:
    """The schema-2 columns of one result dict (`EvaluationResult.to_dict()` or a worker's error)."""
    subclass = result.get("subclass")
    proof = result.get("proof") or {}
    equivalence = result.get("equivalence") or {}
    mode = result.get("equivalence_mode")
    if subclass is None or subclass in _CHECK_SUBCLASSES:
        paper = proven = subclass           # no verdict, or the checks decided before any equivalence
    else:
        paper = equivalence.get("subclass") if equivalence else (subclass if mode == "paper" else None)
        proven = proof.get("subclass") if proof else None
    cx = proof.get("counterexample")
    return {"equivalence_mode": mode, "paper_subclass": paper, "proof_subclass": proven,
            "proof_method": proof.get("method"),
            "proof_proven": int(bool(proof["proven"])) if "proven" in proof else None,
            "proof_states": proof.get("states"), "proof_counterexample": json.dumps(cx) if cx else None}


def _term(are: dict, name: str) -> int | None:
    value = are.get(name)
    if isinstance(value, dict):
        return value.get("value")
    return value


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *exc: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
