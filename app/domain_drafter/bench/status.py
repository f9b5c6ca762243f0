"""How far a results file is: its runs, its tasks per status and per system, and both verdicts' Equivalents."""

from __future__ import annotations

from pathlib import Path

from domain_drafter.bench.store import ResultsStore
from domain_drafter.core.errors import UsageError


def run_status(path: Path) -> dict:
    """Runs (with versions and machine), task counts per status, and per system per class."""
    if not Path(path).is_file():
        raise UsageError(f"no such results file: {path}")
    with ResultsStore(path) as store:
        by_system: dict[str, dict[str, int]] = {}
        for system, status, cls, n in store.db.execute(
                "SELECT system, status, COALESCE(class, ''), COUNT(*) FROM tasks GROUP BY 1, 2, 3 ORDER BY MIN(ord)"):
            label = cls if status == "evaluated" and cls else ("error" if status == "evaluated" else status)
            by_system.setdefault(system, {})
            by_system[system][label] = by_system[system].get(label, 0) + n
        return {
            "path": str(path),
            "runs": [{"id": r.id, "name": r.name, "kind": r.kind, "finished": r.finished is not None,
                      "versions": r.versions, "machine": r.machine} for r in store.runs()],
            "total": store.count(),
            "by_status": store.status_counts(),
            "by_system": by_system,
            "equivalents": _equivalents(store),
        }


def _equivalents(store: ResultsStore) -> dict[str, dict[str, int]]:
    """Per system, Equivalent by the paper's heuristic, proven, and heuristic ones proven different."""
    out: dict[str, dict[str, int]] = {}
    for system, paper, proven, different, unfinished in store.db.execute(
            "SELECT system, SUM(paper_subclass = 'Equivalent'), "
            "SUM(proof_subclass = 'Equivalent' AND proof_proven = 1), "
            "SUM(paper_subclass = 'Equivalent' AND proof_subclass IN ('NoPlan', 'NPApp', 'OPApp')), "
            "SUM(paper_subclass = 'Equivalent' AND proof_proven = 0) "
            "FROM tasks WHERE status = 'evaluated' GROUP BY system ORDER BY MIN(ord)"):
        out[system] = {"paper heuristic": paper or 0, "proven": proven or 0, "proven different": different or 0,
                       "proof unfinished": unfinished or 0}
    return out
