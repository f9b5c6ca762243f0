"""Table 1 from result rows: class rows partition the answers (with evaluation errors as their own row),
subclass rows add up to their class, and the paper's columns sit beside ours."""

from __future__ import annotations

import csv
import io

from domain_drafter.bench.table import (
    ERROR_LABEL,
    LAYOUT,
    PAPER_TABLE,
    ResultRow,
    Results,
    build_table,
    to_csv,
    to_markdown,
)
from domain_drafter.core.classes import Subclass


def rows(system: str, subclasses: list[str | None]) -> list[ResultRow]:
    out = []
    for i, sub in enumerate(subclasses):
        cls = Subclass.from_name(sub).result_class.value if sub else None
        out.append(ResultRow(system, system, False, "gripper", "move", "base", i, cls, sub, 3 if sub else None))
    return out


def test_class_rows_partition_the_answers_and_subclasses_add_up():
    data = rows("a", ["PError", "UToken", "UToken", "TError", "NoPlan", "OPApp", "Equivalent", None]) + \
        rows("b", ["Equivalent"] * 3)
    table = build_table(Results(tuple(data), ("a", "b"), {}, 0))
    assert table.totals == {"a": 8, "b": 3}
    assert ERROR_LABEL in table.labels
    for system in ("a", "b"):
        assert abs(sum(table.percent(label, system) for label in table.class_labels()) - 100.0) < 1e-9
    assert table.counts[("Syntax total", "a")] == 3 and table.counts[("UToken", "a")] == 2
    assert table.counts[("Different total", "a")] == 2 and table.counts[(ERROR_LABEL, "a")] == 1
    assert table.percent("Equivalent", "b") == 100.0
    subclasses = {"Syntax total": ("NoPDDL", "PError", "UToken"), "Semantic total": ("PAError", "NError", "TError",
                  "BPError"), "Different total": ("NoPlan", "NPApp", "OPApp")}
    for total, subs in subclasses.items():
        assert table.counts.get((total, "a"), 0) == sum(table.counts.get((s, "a"), 0) for s in subs)


def test_paper_columns_follow_ours_in_markdown_and_csv():
    table = build_table(Results(tuple(rows("ours", ["Equivalent", "NoPlan"])), ("ours",), {}, 0))
    markdown = to_markdown(table, with_paper=True)
    assert markdown.splitlines()[0].startswith("| class | ours | paper SC | paper 7b |")
    assert "| **Equivalent** | 50.00 (1) | 12.34 | 5.16 |" in markdown
    lines = list(csv.reader(io.StringIO(to_csv(table, with_paper=True))))
    assert lines[0][:4] == ["class", "ours %", "ours n", "paper SC %"]
    by_label = {line[0]: line for line in lines}
    assert by_label["NoPlan"][1:4] == ["50.00", "1", f"{PAPER_TABLE['NoPlan'][0]:.2f}"]
    assert [label for label, _, _ in LAYOUT] == [line[0] for line in lines[2:]]
