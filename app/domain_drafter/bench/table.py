"""The paper's Table 1 from a results file: percent of answers per class and subclass, per system.

A "system" is one column: a model with one decoding mode (or an imported model). Percentages
are of the answers judged so far; the class rows and an "Evaluation error" row (planner
failures, if any) add up to 100 in every column.

Below the class rows, where the file holds proofs (METHOD 6a), the Equivalent answers are
split by how far they hold: by the paper's heuristic, proven, proven different (a column the
paper could not publish) and not decided by the proof (it ran out of budget). The last three
add up to the first over the answers that have both verdicts.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from domain_drafter.bench.store import ResultsStore, RunInfo
from domain_drafter.core.errors import UsageError

# (label, class or subclass value, is a class total)
LAYOUT: tuple[tuple[str, str, bool], ...] = (
    ("Syntax total", "Syntax error", True), ("NoPDDL", "NoPDDL", False), ("PError", "PError", False),
    ("UToken", "UToken", False),
    ("Semantic total", "Semantic error", True), ("PAError", "PAError", False), ("NError", "NError", False),
    ("TError", "TError", False), ("BPError", "BPError", False),
    ("Different total", "Different domain", True), ("NoPlan", "NoPlan", False), ("NPApp", "NPApp", False),
    ("OPApp", "OPApp", False),
    ("Equivalent", "Equivalent", True),
)
ERROR_LABEL = "Evaluation error"
PAPER_EQUIVALENT = "Equivalent (paper heuristic)"
PROVEN_EQUIVALENT = "Equivalent (proven)"
PROVEN_DIFFERENT = "Heuristic Equivalent: proven different"
UNPROVEN = "Heuristic Equivalent: proof unfinished"
PROOF_LABELS = (PAPER_EQUIVALENT, PROVEN_EQUIVALENT, PROVEN_DIFFERENT, UNPROVEN)
_DIFFERENT = ("NoPlan", "NPApp", "OPApp")

# METHOD 8: the paper's Table 1 (percent of answers), columns in the paper's order.
PAPER_SYSTEMS = ("SC", "7b", "7b-C", "13b", "13b-C", "70b", "70b-C")
PAPER_TABLE: dict[str, tuple[float, ...]] = {
    "Syntax total": (2.34, 16.25, 21.09, 0.78, 27.03, 0.31, 10.16),
    "NoPDDL": (0.00, 0.16, 0.00, 0.00, 0.00, 0.00, 0.16),
    "PError": (0.00, 0.00, 0.78, 0.00, 0.00, 0.00, 0.00),
    "UToken": (2.34, 16.09, 20.31, 0.78, 27.03, 0.31, 10.00),
    "Semantic total": (18.28, 20.62, 34.38, 17.19, 21.88, 5.62, 12.03),
    "PAError": (16.56, 16.56, 21.56, 11.41, 15.16, 4.22, 10.78),
    "NError": (0.00, 0.47, 0.62, 0.00, 0.62, 0.00, 0.00),
    "TError": (1.72, 3.59, 12.03, 5.62, 6.09, 1.41, 1.25),
    "BPError": (0.00, 0.00, 0.16, 0.16, 0.00, 0.00, 0.00),
    "Different total": (67.03, 57.97, 39.06, 74.38, 43.12, 69.22, 56.56),
    "NoPlan": (51.41, 47.34, 23.59, 58.59, 26.25, 43.59, 39.22),
    "NPApp": (6.41, 7.34, 10.47, 7.66, 10.78, 12.03, 11.09),
    "OPApp": (9.22, 3.28, 5.00, 8.12, 6.09, 13.59, 6.25),
    "Equivalent": (12.34, 5.16, 5.47, 7.66, 7.97, 24.84, 21.25),
}


@dataclass(frozen=True)
class ResultRow:
    """What the reports need of one judged task."""

    system: str
    model: str
    grammar: bool
    domain: str
    action: str
    description_class: str
    seed: int
    result_class: str | None
    subclass: str | None
    are_total: int | None
    paper_subclass: str | None = None     # METHOD 6's verdict, where it was computed
    proof_subclass: str | None = None     # METHOD 6a's verdict, where a proof ran
    proven: bool | None = None            # the proof finished (None: no proof)

    def proof_labels(self) -> list[str]:
        """The rows of PROOF_LABELS this answer counts in."""
        labels = []
        if self.paper_subclass == "Equivalent":
            labels.append(PAPER_EQUIVALENT)
            if self.proven is False:          # a proof ran and did not finish (its subclass may be unset)
                labels.append(UNPROVEN)
            elif self.proof_subclass in _DIFFERENT:
                labels.append(PROVEN_DIFFERENT)
        if self.proof_subclass == "Equivalent" and self.proven:
            labels.append(PROVEN_EQUIVALENT)
        return labels


@dataclass(frozen=True)
class Results:
    rows: tuple[ResultRow, ...]
    systems: tuple[str, ...]           # in the order the run made them
    sizes: dict                        # system -> model size in billions of parameters, where known
    pending: int                       # tasks without a verdict yet
    formats: dict = field(default_factory=dict)   # system -> prompt format(s) its answers used, where known


def load_results(path: str | Path) -> Results:
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"no such results file: {path}")
    with ResultsStore(path) as store:
        rows = tuple(ResultRow(r["system"], r["model"], bool(r["grammar"]), r["domain"], r["action"],
                               r["description_class"], r["seed"], r["class"], r["subclass"], r["are_total"],
                               r["paper_subclass"], r["proof_subclass"],
                               None if r["proof_proven"] is None else bool(r["proof_proven"]))
                     for r in store.rows("evaluated"))
        systems = tuple(r[0] for r in store.db.execute("SELECT system FROM tasks GROUP BY system ORDER BY MIN(ord)"))
        judged = {row.system for row in rows}
        if judged:   # a system with no verdict yet (e.g. a merge of shards that left it out) gets no empty column
            systems = tuple(s for s in systems if s in judged)
        model_sizes: dict[str, float] = {}
        runs = store.runs()
        for run in runs:
            for m in run.spec.get("models", []):
                if m.get("size_b") is not None:
                    model_sizes[m["name"]] = float(m["size_b"])
        system_model = dict(store.db.execute("SELECT system, model FROM tasks GROUP BY system").fetchall())
        pending = store.count() - store.count("evaluated")
        formats = _prompt_formats(store, runs)
    sizes = {s: model_sizes[m] for s, m in system_model.items() if m in model_sizes}
    return Results(rows, systems, sizes, pending, formats)


def _prompt_formats(store: ResultsStore, runs: list[RunInfo]) -> dict[str, str]:
    """system -> the prompt format its answers were generated with ("completion", "chat", or both
    joined by "+"), read from each answer's generation record; for answers without one (files
    written before it was recorded), the run spec's format for the model; imports: unknown."""
    spec_formats: dict[str, str] = {}
    for run in runs:
        if run.kind == "run":
            for m in run.spec.get("models", []):
                spec_formats.setdefault(m["name"], m.get("prompt_format", "completion"))
    found: dict[str, set[str]] = {}
    for system, model, fmt in store.db.execute(
            "SELECT DISTINCT system, model, CASE WHEN json_valid(generation) "
            "THEN json_extract(generation, '$.prompt_format') END FROM tasks WHERE status = 'evaluated'"):
        fmt = fmt or spec_formats.get(model)
        if fmt:
            found.setdefault(system, set()).add(fmt)
    return {system: "+".join(sorted(fmts)) for system, fmts in found.items()}


@dataclass(frozen=True)
class Table:
    """Counts per (row label, system) and answers per system."""

    systems: tuple[str, ...]
    totals: dict
    counts: dict          # (label, system) -> count
    labels: tuple[str, ...]
    formats: dict = field(default_factory=dict)   # system -> prompt format, where known

    def percent(self, label: str, system: str) -> float:
        n = self.totals.get(system, 0)
        return 100.0 * self.counts.get((label, system), 0) / n if n else 0.0

    def class_labels(self) -> list[str]:
        """The rows that partition the answers (class totals, plus errors if any)."""
        return [label for label, _, total in LAYOUT if total] + ([ERROR_LABEL] if ERROR_LABEL in self.labels else [])

    @property
    def proof_labels(self) -> tuple[str, ...]:
        """The rows below the classes that compare the two verdicts (empty without them)."""
        return tuple(label for label in self.labels if label in PROOF_LABELS)


def build_table(results: Results) -> Table:
    counts: dict[tuple[str, str], int] = {}
    totals = {s: 0 for s in results.systems}
    has_error = False
    for row in results.rows:
        totals[row.system] = totals.get(row.system, 0) + 1
        for label in row.proof_labels():
            counts[(label, row.system)] = counts.get((label, row.system), 0) + 1
        if row.subclass is None:
            has_error = True
            counts[(ERROR_LABEL, row.system)] = counts.get((ERROR_LABEL, row.system), 0) + 1
            continue
        for label, value, _ in LAYOUT:
            if value in (row.result_class, row.subclass):
                counts[(label, row.system)] = counts.get((label, row.system), 0) + 1
    labels = tuple(label for label, _, _ in LAYOUT) + ((ERROR_LABEL,) if has_error else ())
    has_paper = any(r.paper_subclass is not None for r in results.rows)
    has_proof = any(r.proven is not None for r in results.rows)
    if has_paper and has_proof:
        labels += PROOF_LABELS
    elif has_proof:
        labels += (PROVEN_EQUIVALENT,)
    return Table(results.systems, totals, counts, labels, dict(results.formats))


def paper_values(label: str) -> tuple[float, ...] | None:
    """The paper's Table 1 row for `label` (its Equivalent row is the heuristic's), or None."""
    return PAPER_TABLE.get("Equivalent" if label == PAPER_EQUIVALENT else label)


def _header(table: Table, with_paper: bool) -> list[str]:
    return ["class"] + list(table.systems) + ([f"paper {s}" for s in PAPER_SYSTEMS] if with_paper else [])


def to_markdown(table: Table, with_paper: bool = False) -> str:
    header = _header(table, with_paper)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
             "| answers | " + " | ".join(str(table.totals.get(s, 0)) for s in table.systems)
             + (" | " + " | ".join("" for _ in PAPER_SYSTEMS) if with_paper else "") + " |"]
    if table.formats:
        lines.append("| prompt format | " + " | ".join(table.formats.get(s, "") for s in table.systems)
                     + (" | " + " | ".join("" for _ in PAPER_SYSTEMS) if with_paper else "") + " |")
    for label in table.labels:
        name = f"**{label}**" if label in table.class_labels() else label
        cells = [f"{table.percent(label, s):.2f} ({table.counts.get((label, s), 0)})" for s in table.systems]
        if with_paper:
            paper = paper_values(label)
            cells += [f"{v:.2f}" for v in paper] if paper else [""] * len(PAPER_SYSTEMS)
        lines.append("| " + " | ".join([name] + cells) + " |")
    return "\n".join(lines) + "\n"


def to_csv(table: Table, with_paper: bool = False) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["class"]
    for s in table.systems:
        header += [f"{s} %", f"{s} n"]
    if with_paper:
        header += [f"paper {s} %" for s in PAPER_SYSTEMS]
    writer.writerow(header)
    writer.writerow(["answers"] + [x for s in table.systems for x in ("100.00", table.totals.get(s, 0))]
                    + ([""] * len(PAPER_SYSTEMS) if with_paper else []))
    if table.formats:
        writer.writerow(["prompt format"] + [x for s in table.systems for x in (table.formats.get(s, ""), "")]
                        + ([""] * len(PAPER_SYSTEMS) if with_paper else []))
    for label in table.labels:
        row = [label]
        for s in table.systems:
            row += [f"{table.percent(label, s):.2f}", table.counts.get((label, s), 0)]
        if with_paper:
            paper = paper_values(label)
            row += [f"{v:.2f}" for v in paper] if paper else [""] * len(PAPER_SYSTEMS)
        writer.writerow(row)
    return out.getvalue()


def to_json(table: Table) -> str:
    return json.dumps({"systems": list(table.systems), "answers": table.totals, "prompt_formats": table.formats,
                       "rows": {label: {s: {"percent": round(table.percent(label, s), 2),
                                            "count": table.counts.get((label, s), 0)} for s in table.systems}
                                for label in table.labels}}, indent=2)
