"""The evaluation job that worker processes run: one answer in, its verdict as a plain dict out.

The same function runs in a local process pool and on Dask workers, so everything it takes
and returns pickles as plain data. Each process keeps one Evaluator (planner, reference-plan
cache, verdict cache) and the domains it has loaded, for as long as it lives.

The benchmark always computes the paper's heuristic verdict (`paper_too`), so both verdicts of
every answer are stored whichever one the experiment reports as its class.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domain_drafter.core.errors import ErrorRecord

_evaluators: dict[tuple, Any] = {}
_bundles: dict[str, Any] = {}


@dataclass(frozen=True)
class EvaluationJob:
    """What a worker needs to judge one answer."""

    domain: str          # a bundled name or a folder path (must exist on the worker too)
    action: str
    answer: str
    k: int = 100
    time_limit_s: float = 30.0
    equivalence: str = "proven"   # "proven" (METHOD 6a, with the paper's verdict beside it) or "paper"


def _bundle(spec: str):
    from domain_drafter.core.bundle import load_bundle

    bundle = _bundles.get(spec)
    if bundle is None:
        bundle = _bundles[spec] = load_bundle(spec)
    return bundle


def bench_options(k: int, time_limit_s: float, equivalence: str = "proven"):
    """How the benchmark judges: the experiment's mode, with the paper's heuristic always beside it."""
    from domain_drafter.planning.evaluate import EquivalenceMode, EvaluationOptions

    return EvaluationOptions(k=k, time_limit_s=time_limit_s, equivalence=EquivalenceMode(equivalence),
                             paper_too=True)


def _evaluator(k: int, time_limit_s: float, equivalence: str):
    from domain_drafter.planning.evaluate import Evaluator

    key = (k, time_limit_s, equivalence, os.environ.get("DOMAIN_DRAFTER_CACHE"))
    evaluator = _evaluators.get(key)
    if evaluator is None:
        evaluator = _evaluators[key] = Evaluator(bench_options(k, time_limit_s, equivalence))
    return evaluator


def evaluate_job(job: EvaluationJob) -> dict[str, Any]:
    """Judge one answer; never raises for a bad answer or a planner failure (they become the verdict)."""
    from domain_drafter.core.errors import DrafterError, ErrorRecord

    try:
        result = _evaluator(job.k, job.time_limit_s, job.equivalence).evaluate(_bundle(job.domain), job.action, job.answer)
    except DrafterError as err:
        return _error(job, err.what, ErrorRecord.of(err))
    except Exception as err:
        return _error(job, "internal error while judging this answer", ErrorRecord.of(err))
    data = result.to_dict()
    data["worker_pid"] = os.getpid()
    return data


def _error(job: EvaluationJob, message: str, error: ErrorRecord) -> dict[str, Any]:
    """A verdict-less result: it shows in the tables as "Evaluation error", with the reason (an ErrorRecord)."""
    from domain_drafter.core.errors import error_fields

    return {"domain": job.domain, "action": job.action, "class": None, "subclass": None, "message": message,
            **error_fields(error), "answer": job.answer, "findings": [], "timings": {}, "worker_pid": os.getpid(),
            "equivalence_mode": job.equivalence}


def warm_up() -> int:
    """Import the engine in a fresh worker before the first job; returns its pid."""
    import importlib

    importlib.import_module("domain_drafter.planning.evaluate")
    return os.getpid()
