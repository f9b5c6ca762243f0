"""Issue 37's measurement of acceptance by agreement (tests/perf/measure_agreement.py): over every answer models
wrote here, the share of wrong answers among those accepted without tests, by the plain rule and by agreement."""

from __future__ import annotations

from tests.perf.conftest import report
from tests.perf.measure_agreement import measure


def test_agreement_accepts_far_fewer_wrong_answers_than_the_plain_rule():
    c = measure()["counts"]
    plain, agreement = c["pass_wrong"] / c["pass"], c["agreed_wrong"] / c["agreed"]
    report("acceptance without tests, over resources/results (answers deduplicated per action)", [
        ("answers", f"{c['answers']} ({c['answers right']} right)"),
        ("plain rule: accepted, wrong", f"{c['pass']}, {c['pass_wrong']} ({plain:.0%})"),
        ("agreement: accepted, wrong", f"{c['agreed']}, {c['agreed_wrong']} ({agreement:.0%})"),
        ("actions with a right answer accepted: plain, agreement",
         f"{c['actions where plain accepts a right one']}, {c['actions where agreement accepts a right one']}"),
    ])
    assert c["answers right"] == c["pass"] - c["pass_wrong"]      # no right answer is refused by the plain rule
    assert agreement <= plain / 1.5
