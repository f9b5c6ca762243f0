"""Acceptance by agreement, measured over answers models wrote here (issue 37: the blind judge without tests).

Without a tests file the blind judge accepts an answer that passes the checks, keeps every problem solvable
and breaks no invariant. That accepted 10 wrong answers of 17 in the Qwen blind run. Acceptance by agreement
asks one thing more: another answer that passes too, written by another call, must be proven equivalent to
it (drafting/judges.agrees: one candidate against the other, no reference). This script measures both rules
over a pool of answers per action, independent of any search order:

- the pool: every committed resources/results/*/answers.jsonl row, and every answer of the blind runs' search
  trees (resources/results/blind-*/runs/*.sqlite.gz), deduplicated per action up to renaming and order;
- each answer judged blind without tests (drafting/blind.blind_setup, `use_tests=False`) and by the reference
  (the proof, for the count only);
- plain rule: the answers that pass; agreement: those with an equivalent peer that passes too.

Run: PYTHONPATH=app python tests/perf/measure_agreement.py [--json OUT] [--domains a,b]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.model import canonical_action
from domain_drafter.drafting.blind import blind_setup
from domain_drafter.drafting.judges import Judgement, agrees
from domain_drafter.drafting.options import SearchOptions
from domain_drafter.planning.evaluate import Evaluator

ROOT = Path(__file__).resolve().parents[2]


def pool(root: Path = ROOT, domains: set[str] | None = None) -> dict[tuple[str, str], list[str]]:
    """(domain, action) -> the answer texts written for it, committed answers first, then the blind trees'."""
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted((root / "resources" / "results").rglob("answers.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[row["domain"], row["action"]].append(row["output"])
    for path in sorted((root / "resources" / "results").glob("blind-*/runs/*.sqlite.gz")):
        with tempfile.NamedTemporaryFile(suffix=".sqlite") as tmp:
            tmp.write(gzip.decompress(path.read_bytes()))
            tmp.flush()
            with sqlite3.connect(tmp.name) as db:
                for domain, action, generation in db.execute("select domain, action, generation from tasks"):
                    for node in (json.loads(generation or "{}").get("search") or {}).get("nodes", []):
                        out[domain, action].append(node["answer"])
    return {k: v for k, v in out.items() if domains is None or k[0] in domains}


def measure(root: Path = ROOT, domains: set[str] | None = None) -> dict:
    started = time.perf_counter()
    counts: Counter = Counter()
    per_action = []
    with Evaluator() as evaluator:
        for (domain, action), texts in sorted(pool(root, domains).items()):
            bundle = load_bundle(domain)
            setup = blind_setup(bundle, action, evaluator, SearchOptions(), use_tests=False)
            distinct: dict[str, str] = {}
            for text in texts:
                check = check_answer(text, setup.bundle.domain, action)
                if check.passed and check.action is not None:
                    distinct.setdefault(canonical_action(check.action), text)
            passing = []                      # (text, check, right)
            for text in distinct.values():
                judgement = setup.judge(text)
                right = Judgement(*_reference(evaluator, bundle, action, text)).equivalent
                counts["answers"] += 1
                counts["answers right"] += right
                if judgement.passes:          # accepted by the plain rule (the judge awaits agreement)
                    passing.append((text, judgement.check, right))
            agreed = set()
            for i, (text, check, _) in enumerate(passing):
                for j in range(i):
                    if j in agreed and i in agreed:
                        continue
                    if agrees(setup.bundle, action, evaluator, passing[j][1], text, check):
                        agreed.update((i, j))
            row = {"domain": domain, "action": action, "answers": len(distinct), "pass": len(passing),
                   "pass_wrong": sum(1 for p in passing if not p[2]), "agreed": len(agreed),
                   "agreed_wrong": sum(1 for i in agreed if not passing[i][2]),
                   "wrong_agreed_answers": [passing[i][0] for i in sorted(agreed) if not passing[i][2]]}
            per_action.append(row)
            for k in ("pass", "pass_wrong", "agreed", "agreed_wrong"):
                counts[k] += row[k]
            counts["actions"] += 1
            counts["actions where plain accepts only wrong"] += row["pass"] > 0 and row["pass"] == row["pass_wrong"]
            counts["actions where agreement accepts only wrong"] += (row["agreed"] > 0
                                                                   and row["agreed"] == row["agreed_wrong"])
            counts["actions where agreement accepts a right one"] += row["agreed"] > row["agreed_wrong"]
            counts["actions where plain accepts a right one"] += row["pass"] > row["pass_wrong"]
    return {"counts": dict(counts), "per_action": per_action, "seconds": round(time.perf_counter() - started, 1)}


def _reference(evaluator: Evaluator, bundle, action: str, text: str):
    result = evaluator.evaluate(bundle, action, text)
    return result.check, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the numbers to this file")
    parser.add_argument("--domains", help="only these domains (comma-separated)")
    args = parser.parse_args(argv)
    out = measure(domains=set(args.domains.split(",")) if args.domains else None)
    for row in out["per_action"]:
        print(f"{row['domain']:16} {row['action']:20} {row['answers']:3} answers, pass {row['pass']:3} "
              f"({row['pass_wrong']} wrong), agreed {row['agreed']:3} ({row['agreed_wrong']} wrong)", flush=True)
    c = out["counts"]
    print(f"plain: {c['pass']} accepted, {c['pass_wrong']} wrong ({c['pass_wrong'] / max(c['pass'], 1):.0%}); "
          f"agreement: {c['agreed']} accepted, {c['agreed_wrong']} wrong "
          f"({c['agreed_wrong'] / max(c['agreed'], 1):.0%})")
    for k, v in c.items():
        print(f"  {k}: {v}")
    print(f"({out['seconds']} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
