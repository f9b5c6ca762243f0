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
            "speed": speed(store),
            "by_generator": _by_generator(store),
        }


RECENT_ANSWERS = 50      # the speed is measured over at most this many of the latest answers ...
SESSION_GAP_S = 600.0    # ... written without a pause longer than this (a stopped and resumed run)


def speed(store: ResultsStore) -> dict | None:
    """Answers per minute over the latest answers of the last session, and the time left at that speed."""
    times = [t for (t,) in store.db.execute(
        "SELECT generated_at FROM tasks WHERE generated_at IS NOT NULL ORDER BY generated_at DESC LIMIT ?",
        (RECENT_ANSWERS,))]
    streak = times[:1]
    for t in times[1:]:
        if streak[-1] - t > SESSION_GAP_S:
            break
        streak.append(t)
    if len(streak) < 2 or streak[0] <= streak[-1]:
        return None
    per_min = (len(streak) - 1) * 60.0 / (streak[0] - streak[-1])
    pending = store.count("pending")
    return {"answers_per_min": round(per_min, 2), "over_answers": len(streak), "pending": pending,
            "eta_s": round(pending * 60.0 / per_min, 1)}


def _by_generator(store: ResultsStore) -> dict[str, int]:
    """Answers per generator process or endpoint that wrote them (runs with several generators)."""
    rows = store.db.execute("SELECT json_extract(generation, '$.generator'), COUNT(*) FROM tasks "
                            "WHERE generation IS NOT NULL AND json_valid(generation) GROUP BY 1 ORDER BY 1")
    return {name: n for name, n in rows if name}


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
