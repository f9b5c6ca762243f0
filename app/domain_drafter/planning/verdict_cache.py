"""Equivalence verdicts (the paper's report, the proof, or both) in a SQLite file, so a repeated answer costs about a millisecond.

Keys are built by the Evaluator from everything a verdict depends on, plus a schema version
and the Domain Drafter and K* versions. A row that does not decode (written by another
version, or damaged) is a miss and is replaced by the next verdict; never an exception.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.paths import cache_dir, private_dir
from domain_drafter.planning.equivalence import EquivalenceReport, equivalence_from_dict
from domain_drafter.planning.proof_types import ProofReport, proof_from_dict

SCHEMA = "verdicts-7"   # 5: a counterexample's issues name the edit ("add it to the precondition"); 6: and its removals;
# 7: an answer is judged with itself in place (issue 43: its own deletes make fluents), untyped domains proven


@dataclass(frozen=True)
class CachedVerdict:
    """A remembered verdict: the paper's heuristic report (PAPER mode, or computed beside a proof) and the proof."""

    equivalence: EquivalenceReport | None = None
    proof: ProofReport | None = None

    def to_json(self) -> str:
        if self.proof is None and self.equivalence is not None:
            return json.dumps(self.equivalence.to_dict())  # a paper-mode row: the report itself
        return json.dumps({"proof": self.proof.to_dict() if self.proof else None,
                           "equivalence": self.equivalence.to_dict() if self.equivalence else None})

    @property
    def rememberable(self) -> bool:
        """Errors, time-outs and unfinished proofs may go differently next time."""
        if self.equivalence is not None and (self.equivalence.subclass is None or self.equivalence.timed_out):
            return False
        if self.proof is not None and (self.proof.subclass is None or not self.proof.proven):
            return False
        return self.proof is not None or self.equivalence is not None


class VerdictCache:
    """Equivalence verdicts in a SQLite file, in front of it a dict for this process."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir() / "verdicts.sqlite"
        self._memory: dict[str, CachedVerdict] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None:
            try:
                private_dir(self.path.parent)
                db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
                db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, report TEXT NOT NULL)")
                self._db = db
            except (sqlite3.Error, OSError):
                return None
        return self._db

    def get(self, key: str) -> CachedVerdict | None:
        """The stored verdict, or None if there is none or it does not decode."""
        with self._lock:
            if key in self._memory:
                return self._memory[key]
            db = self._conn()
            if db is None:
                return None
            try:
                row = db.execute("SELECT report FROM verdicts WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error:
                return None
            if row is None:
                return None
            report = _decode(row[0])
            if report is not None:
                self._memory[key] = report
            return report

    def put(self, key: str, report: EquivalenceReport | CachedVerdict) -> None:
        if isinstance(report, EquivalenceReport):
            report = CachedVerdict(equivalence=report)
        if not report.rememberable:
            return
        with self._lock:
            self._memory[key] = report
            db = self._conn()
            if db is not None:
                try:
                    with db:
                        db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)", (key, report.to_json()))
                except sqlite3.Error:
                    pass  # a cache that cannot be written only costs time

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _decode(text: object) -> CachedVerdict | None:
    try:
        data = json.loads(text)  # type: ignore[arg-type]
        if not isinstance(data, dict):
            return None
        if set(data) == {"proof", "equivalence"}:
            return CachedVerdict(equivalence_from_dict(data["equivalence"]) if data["equivalence"] else None,
                                 proof_from_dict(data["proof"]) if data["proof"] else None)
        return CachedVerdict(equivalence=equivalence_from_dict(data))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        return None
