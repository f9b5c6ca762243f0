"""How many answers the invariant findings flag, over the committed resources/results/*/answers.jsonl (issue 37).

Answers are deduplicated per action (equal up to renaming and order: `canonical_action`); the verdict is the
one stored in the row (`subclass_here`, the proof's at the commit the row was judged). Only answers that pass
the checks count (the syntax and semantic classes are caught before any invariant). Prints, per finding kind,
the Different answers it flags and the Equivalent ones it flags (which must be none), and any Equivalent answer
flagged, with its finding. Run: PYTHONPATH=app python tests/perf/measure_invariants.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.model import canonical_action
from domain_drafter.planning.invariant_findings import FindingKind, judge_action

ROOT = Path(__file__).resolve().parents[2]
DIFFERENT = {"NoPlan", "NPApp", "OPApp"}


def answers(root: Path = ROOT) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(domain, action, canonical answer) -> (verdict, answer text), over every committed answers.jsonl."""
    out: dict[tuple[str, str, str], tuple[str, str]] = {}
    bundles = {}
    for path in sorted((root / "resources" / "results").rglob("answers.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            verdict = row.get("subclass_here")
            if verdict not in DIFFERENT and verdict != "Equivalent":
                continue
            bundle = bundles.get(row["domain"]) or bundles.setdefault(row["domain"], load_bundle(row["domain"]))
            check = check_answer(row["output"], bundle.domain, row["action"])
            if not check.passed or check.action is None:
                continue
            key = (row["domain"], row["action"], canonical_action(check.action))
            out.setdefault(key, (verdict, row["output"]))
    return out


def measure(root: Path = ROOT) -> dict:
    rows = answers(root)
    flagged: dict[str, Counter] = {"Different": Counter(), "Equivalent": Counter()}
    totals: Counter = Counter()
    by_subclass: dict[str, Counter] = {}
    false_alarms = []
    started = time.perf_counter()
    bundles = {}
    for (domain, action, _), (verdict, text) in sorted(rows.items()):
        side = "Equivalent" if verdict == "Equivalent" else "Different"
        totals[side] += 1
        bundle = bundles.get(domain) or bundles.setdefault(domain, load_bundle(domain))
        check = check_answer(text, bundle.domain, action)
        report = judge_action(bundle.domain, [p.problem for p in bundle.problems], action, check.action)
        kinds = {f.kind for f in report.findings}
        per = by_subclass.setdefault(verdict, Counter())
        per["answers"] += 1
        per["flagged"] += bool(kinds)
        for kind in kinds:
            flagged[side][kind.value] += 1
        if kinds:
            flagged[side]["any"] += 1
            if side == "Equivalent":
                false_alarms.append({"domain": domain, "action": action, "answer": text,
                                     "findings": [f.message for f in report.findings]})
    return {"answers": dict(totals), "flagged": {k: dict(v) for k, v in flagged.items()},
            "by_subclass": {k: dict(v) for k, v in sorted(by_subclass.items())},
            "share_of_different_flagged": flagged["Different"]["any"] / max(totals["Different"], 1),
            "equivalent_flagged": flagged["Equivalent"]["any"], "false_alarms": false_alarms,
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args(argv)
    out = measure()
    total_d, total_e = out["answers"].get("Different", 0), out["answers"].get("Equivalent", 0)
    print(f"distinct answers that pass the checks: {total_d} Different, {total_e} Equivalent")
    for kind in [k.value for k in FindingKind] + ["any"]:
        d = out["flagged"]["Different"].get(kind, 0)
        e = out["flagged"]["Equivalent"].get(kind, 0)
        print(f"  {kind:17} flags {d:4} Different ({d / max(total_d, 1):6.1%})  {e} Equivalent")
    for verdict, counts in out["by_subclass"].items():
        print(f"  {verdict:10} {counts['flagged']:4} of {counts['answers']:4} flagged")
    for alarm in out["false_alarms"]:
        print(f"  Equivalent flagged: {alarm['domain']} {alarm['action']}: {alarm['findings'][0]}")
    print(f"({out['seconds']} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
