"""The whole judgement of one answer: syntax and semantic checks, ARE, plan-based equivalence.

`Evaluator` holds what is worth keeping between answers (the planner, the reference plan
cache, the verdict cache); the GUI's worker, the CLI and the batch benchmark each own one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from domain_drafter.core.answers import CheckReport, Finding, check_answer
from domain_drafter.core.are import AreReport, action_reconstruction_error
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.core.model import ActionSchema, Literal
from domain_drafter.core.paths import cache_dir
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.equivalence import EquivalenceReport, check_equivalence, equivalence_from_dict
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache


@dataclass(frozen=True)
class EvaluationOptions:
    k: int = 100
    time_limit_s: float = 30.0
    use_verdict_cache: bool = True


@dataclass(frozen=True)
class EvaluationResult:
    """Everything known about one answer, as data. `subclass` is None only when `error` is set."""

    domain: str
    action: str
    answer: str
    subclass: Subclass | None
    message: str
    check: CheckReport
    are: AreReport | None = None
    equivalence: EquivalenceReport | None = None
    error: str | None = None
    cached: bool = False
    timings: dict = field(default_factory=dict, compare=False)
    reference: ActionSchema | None = field(default=None, compare=False)

    @property
    def reference_pddl(self) -> str | None:
        """The reference action the answer was judged against (for side-by-side views)."""
        return self.reference.to_pddl(indent="") if self.reference else None

    @property
    def result_class(self) -> ResultClass | None:
        return self.subclass.result_class if self.subclass else None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.check.findings

    @property
    def generated_pddl(self) -> str | None:
        return self.check.action.to_pddl(indent="") if self.check.action else None

    def to_dict(self) -> dict:
        return {
            "domain": self.domain, "action": self.action,
            "class": self.result_class.value if self.result_class else None,
            "subclass": self.subclass.value if self.subclass else None,
            "message": self.message, "error": self.error, "cached": self.cached,
            "findings": [f.to_dict() for f in self.findings],
            "candidate_span": list(self.check.candidate_span) if self.check.candidate_span else None,
            "generated_pddl": self.generated_pddl,
            "reference_pddl": self.reference_pddl,
            "are": self.are.to_dict() if self.are else None,
            "equivalence": self.equivalence.to_dict() if self.equivalence else None,
            "timings": dict(self.timings),
            "answer": self.answer,
        }


def canonical_action(action: ActionSchema) -> str:
    """A text that is equal for actions differing only in whitespace, conjunct order and parameter names."""
    names = {p.name: f"?p{i}" for i, p in enumerate(action.parameters)}

    def lits(literals) -> list[str]:
        return sorted({str(Literal(l.atom.rename(names), l.positive)) for l in literals})

    params = " ".join(f"{names[p.name]}-{p.type}" for p in action.parameters)
    return f"{action.name}|{params}|{' '.join(lits(action.precondition))}|{' '.join(lits(action.effect))}"


class VerdictCache:
    """Equivalence verdicts in a SQLite file, in front of it a dict for this process."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir() / "verdicts.sqlite"
        self._memory: dict[str, EquivalenceReport] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
                db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, report TEXT NOT NULL)")
                self._db = db
            except sqlite3.Error:
                return None
        return self._db

    def get(self, key: str) -> EquivalenceReport | None:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
            db = self._conn()
            row = None
            if db is not None:
                try:
                    row = db.execute("SELECT report FROM verdicts WHERE key = ?", (key,)).fetchone()
                except sqlite3.Error:
                    row = None
            if row is None:
                return None
            report = equivalence_from_dict(json.loads(row[0]))
            self._memory[key] = report
            return report

    def put(self, key: str, report: EquivalenceReport) -> None:
        if report.subclass is None or report.timed_out:
            return  # errors and time-outs may go differently next time
        with self._lock:
            self._memory[key] = report
            db = self._conn()
            if db is not None:
                try:
                    with db:
                        db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)", (key, json.dumps(report.to_dict())))
                except sqlite3.Error:
                    pass

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class Evaluator:
    """Evaluates answers; keeps the planner, the reference plans and past verdicts between calls.

    Thread-safe: the planner holds no state between calls, and both caches lock their own
    state, so several workers may call `evaluate` on one Evaluator at once.
    """

    def __init__(self, options: EvaluationOptions | None = None, *, planner: KStarPlanner | None = None,
                 plan_cache: PlanCache | None = None, verdicts: VerdictCache | None = None):
        self.options = options or EvaluationOptions()
        self.planner = planner or KStarPlanner(k=self.options.k, time_limit_s=self.options.time_limit_s)
        self.plan_cache = plan_cache or PlanCache(self.planner)
        self.verdicts = verdicts or VerdictCache()

    def __enter__(self) -> "Evaluator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.verdicts.close()

    def verdict_key(self, bundle: DomainBundle, target: str, action: ActionSchema,
                    reference_text: str | None = None) -> str:
        h = hashlib.sha256()
        reference_text = reference_text if reference_text is not None else bundle.domain.to_pddl()
        parts = [reference_text, *(p.text for p in bundle.problems), target, canonical_action(action),
                 str(self.planner.k), self.planner.version]
        for part in parts:
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()

    def evaluate(self, bundle: DomainBundle, action: str, answer: str, *,
                 task: TaskState | None = None) -> EvaluationResult:
        """Classify `answer` for `action` of `bundle` into one of the paper's classes."""
        t0 = time.perf_counter()
        target = bundle.require_action(action)
        check = check_answer(answer, bundle.domain, target)
        t1 = time.perf_counter()
        reference = bundle.domain.action(target)
        are = action_reconstruction_error(reference, check.action) if check.action else None
        t2 = time.perf_counter()
        timings = {"check_s": t1 - t0, "are_s": t2 - t1}
        common = dict(domain=bundle.name, action=target, answer=answer, check=check, are=are, reference=reference)
        if not check.passed:
            return EvaluationResult(subclass=check.subclass, message=check.findings[0].message,
                                    timings=timings, **common)
        assert check.action is not None
        problems = bundle.require_problems()
        reference_text = bundle.domain.to_pddl()
        key = self.verdict_key(bundle, target, check.action, reference_text)
        cached = self.verdicts.get(key) if self.options.use_verdict_cache else None
        if cached is not None:
            report, was_cached = cached, True
        else:
            generated = bundle.domain.with_action(check.action, replacing=target)
            report = check_equivalence(bundle.domain, generated, problems, self.planner, self.plan_cache,
                                       reference_text=reference_text, task=task)
            was_cached = False
            if self.options.use_verdict_cache:
                self.verdicts.put(key, report)
        timings["equivalence_s"] = time.perf_counter() - t2
        timings.update({f"equivalence_{k}": v for k, v in report.timings.items()})
        timings["total_s"] = time.perf_counter() - t0
        return EvaluationResult(subclass=report.subclass, message=report.message, equivalence=report,
                                error=report.error, cached=was_cached, timings=timings, **common)


def evaluate(bundle: DomainBundle, action: str, answer: str, options: EvaluationOptions | None = None,
             *, task: TaskState | None = None) -> EvaluationResult:
    """One-shot evaluation (builds an Evaluator); long-running callers keep their own Evaluator."""
    with Evaluator(options) as evaluator:
        return evaluator.evaluate(bundle, action, answer, task=task)
