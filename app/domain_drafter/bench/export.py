"""Write a results file's judged answers as JSON Lines, one task per line.

The lines are what `bench import` reads (domain, action, class, model, output) and what
`bench rejudge` reads (`id` = the task key), with the run's verdicts beside them:
`subclass_here` (the run's equivalence mode), `paper_subclass_here` (METHOD 6),
`proof_method_here` (METHOD 6a) and `are_here` (the ARE total, where defined).
"""

from __future__ import annotations

import json
from pathlib import Path

from domain_drafter.bench.store import ResultsStore
from domain_drafter.core.errors import UsageError
from domain_drafter.core.paths import atomic_write_bytes


def answer_lines(results: Path) -> list[dict]:
    """One record per judged task of `results`, in the run's order."""
    if not Path(results).is_file():
        raise UsageError(f"no such results file: {results}")
    with ResultsStore(results) as store:
        rows = sorted(store.rows("evaluated"), key=lambda r: r["ord"])
        return [{"id": r["key"], "domain": r["domain"], "action": r["action"], "class": r["description_class"],
                 "model": r["system"], "seed": r["seed"], "grammar": bool(r["grammar"]), "output": r["answer"] or "",
                 "subclass_here": r["subclass"], "paper_subclass_here": r["paper_subclass"],
                 "proof_method_here": r["proof_method"], "are_here": r["are_total"],
                 "model_name": r["model"], "strategy": _strategy(r["generation"])} for r in rows]


def _strategy(generation: str | None) -> str:
    try:
        return str((json.loads(generation) if generation else {}).get("strategy", "one-shot"))
    except ValueError:
        return "one-shot"


def export_answers(results: str | Path, out: str | Path) -> int:
    """Write the answers of `results` to `out` (written whole, or not at all); the number of lines."""
    lines = answer_lines(Path(results))
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    atomic_write_bytes(Path(out), text.encode("utf-8"))
    return len(lines)
