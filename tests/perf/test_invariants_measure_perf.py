"""Issue 37's measurement: the invariant findings alone, over the committed answers (tests/perf/measure_invariants.py).

Done when they flag at least 60% of the distinct Different answers that pass the checks, and no Equivalent one.
"""

from __future__ import annotations

from tests.perf.conftest import report
from tests.perf.measure_invariants import measure


def test_invariant_findings_flag_most_different_answers_and_no_equivalent_one():
    out = measure()
    different, equivalent = out["answers"]["Different"], out["answers"]["Equivalent"]
    rows = [("answers (distinct, pass the checks)", f"{different} Different, {equivalent} Equivalent")]
    for kind, count in sorted(out["flagged"]["Different"].items()):
        rows.append((f"Different flagged: {kind}", f"{count} ({count / different:.1%})"))
    rows.append(("Equivalent flagged", str(out["equivalent_flagged"])))
    rows.append(("seconds", str(out["seconds"])))
    report("invariant findings over resources/results/*/answers.jsonl", rows)
    assert different >= 350 and equivalent >= 30    # the committed results, deduplicated per action (378 and 31)
    assert out["share_of_different_flagged"] >= 0.60
    assert out["equivalent_flagged"] == 0, out["false_alarms"]
