"""Write a results file's report: Table 1 as Markdown, CSV and JSON, the figures, and one HTML page.

The HTML page is self-contained (the table, the runs' versions and the figures as embedded
PNGs), so it can be mailed or attached as it is.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from domain_drafter.bench.table import (
    PAPER_SYSTEMS,
    PROVEN_DIFFERENT,
    Results,
    Table,
    build_table,
    load_results,
    paper_values,
    to_csv,
    to_json,
    to_markdown,
)

__all__ = ["load_results", "write_report"]


def write_report(results_path: Path, out: Path, *, with_paper: bool = False, figures: bool = True) -> list[Path]:
    """Write table1.md / .csv / .json, the figures (PNG and SVG) and report.html into `out`."""
    results = load_results(results_path)
    table = build_table(results)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    markdown = to_markdown(table, with_paper)
    if results.pending:
        markdown += (f"\nPartial: {len(results.rows)} of {len(results.rows) + results.pending} tasks judged; "
                     "percentages are of the judged ones.\n")
    for name, text in (("table1.md", markdown), ("table1.csv", to_csv(table, with_paper)),
                       ("table1.json", to_json(table))):
        (out / name).write_text(text, encoding="utf-8")
        files.append(out / name)
    from domain_drafter.bench.strategy_table import (
        has_strategies,
        load_strategy_stats,
        strategies_json,
        strategies_markdown,
    )

    stats = load_strategy_stats(results_path)
    stats = stats if has_strategies(stats) else []
    if stats:
        for name, text in (("strategies.md", strategies_markdown(stats)), ("strategies.json", strategies_json(stats))):
            (out / name).write_text(text, encoding="utf-8")
            files.append(out / name)
    figure_files: list[Path] = []
    if figures:
        from domain_drafter.bench.figures import write_figures

        figure_files = write_figures(results, out, table, stats)
        files += figure_files
    page = out / "report.html"
    page.write_text(_html(results_path, results, table, with_paper,
                          [p for p in figure_files if p.suffix == ".png"], stats), encoding="utf-8")
    files.append(page)
    return files


def _strategies_html(stats) -> str:
    if not stats:
        return ""
    from domain_drafter.bench.strategy_table import rows_of

    head = "<tr><th>strategy</th>" + "".join(f"<th>{html.escape(s.system)}</th>" for s in stats) + "</tr>"
    body = "".join("<tr><td>" + html.escape(label) + "</td>" + "".join(f"<td>{html.escape(cell(s))}</td>"
                                                                         for s in stats) + "</tr>"
                   for label, cell in rows_of(stats))
    return ("<h2>Strategies at equal cost</h2><p>Each strategy stops at the first proven Equivalent answer or when "
            "its budget of model calls is spent; the stored answer is the best one it found. Mean score: the "
            "agreement score (METHOD 6b) of that answer (syntax and semantic errors count 0).</p>"
            f"<table>{head}{body}</table>")


def _html(source: Path, results: Results, table: Table, with_paper: bool, pngs: list[Path], stats=()) -> str:
    from domain_drafter.bench.store import ResultsStore

    with ResultsStore(source) as store:
        runs = store.runs()
    head = ["class", *table.systems] + ([f"paper {s}" for s in PAPER_SYSTEMS] if with_paper else [])
    rows = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>",
            "<tr><td>answers</td>" + "".join(f"<td>{table.totals.get(s, 0)}</td>" for s in table.systems)
            + ("<td></td>" * len(PAPER_SYSTEMS) if with_paper else "") + "</tr>"]
    if table.formats:
        rows.append("<tr><td>prompt format</td>" + "".join(f"<td>{html.escape(table.formats.get(s, ''))}</td>"
                                                          for s in table.systems)
                    + ("<td></td>" * len(PAPER_SYSTEMS) if with_paper else "") + "</tr>")
    for label in table.labels:
        cls = (' class="total"' if label in table.class_labels() else
               ' class="proof first"' if table.proof_labels and label == table.proof_labels[0] else
               ' class="proof"' if label in table.proof_labels else "")
        cells = "".join(f"<td>{table.percent(label, s):.2f} <small>({table.counts.get((label, s), 0)})</small></td>"
                        for s in table.systems)
        if with_paper:
            paper = paper_values(label)
            cells += ("".join(f'<td class="paper">{v:.2f}</td>' for v in paper) if paper
                      else "<td></td>" * len(PAPER_SYSTEMS))
        rows.append(f"<tr{cls}><td>{html.escape(label)}</td>{cells}</tr>")
    run_lines = "".join(
        f"<li>{html.escape(r.kind)} <b>{html.escape(r.name)}</b>: "
        + html.escape(", ".join(f"{k} {v}" for k, v in r.versions.items()))
        + f"; {html.escape(str(r.machine.get('platform', '')))}, {r.machine.get('cpus')} CPUs"
        + (f" ({html.escape(str(r.machine['cpu']))}: {html.escape(' '.join(r.machine.get('kernel_flags', [])))})"
           if r.machine.get("cpu") else "")
        + ("" if r.finished else " <i>(not finished)</i>") + "</li>" for r in runs)
    images = "".join(
        f'<figure><img alt="{html.escape(p.stem)}" src="data:image/png;base64,'
        f'{base64.b64encode(p.read_bytes()).decode()}"><figcaption>{html.escape(p.stem)}</figcaption></figure>'
        for p in pngs)
    pending = f"<p><b>{results.pending} task(s) have no verdict yet.</b></p>" if results.pending else ""
    proof_note = (f"<p>The rows under Equivalent compare the two verdicts of each answer: the paper's plan heuristic "
                  "(METHOD 6) and the proof on the problems' reachable states (METHOD 6a). "
                  f"<b>{html.escape(PROVEN_DIFFERENT)}</b> counts answers the paper's protocol accepts as Equivalent "
                  "that a validated counterexample shows to be a different domain.</p>" if table.proof_labels else "")
    paper_note = ("<p>Paper columns: METHOD 8, Table 1 (StarCoder, LLaMA-2 7b/13b/70b and their chat "
                  "variants).</p>" if with_paper else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Domain Drafter benchmark: {html.escape(source.name)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }} tr.total td {{ font-weight: bold; background: #f4f4f4; }}
td.paper {{ color: #777; }} tr.proof td {{ font-style: italic; }}
tr.proof.first td {{ border-top: 2px solid #888; }} small {{ color: #777; }} figure {{ display: inline-block; margin: 1em; }}
img {{ max-width: 640px; }}
</style></head><body>
<h1>Benchmark results: {html.escape(source.name)}</h1>
<p>Percent of judged answers per class and subclass (count in brackets), in the layout of the paper's Table 1.</p>
{pending}<table>{''.join(rows)}</table>{proof_note}{paper_note}
{_strategies_html(stats)}
<h2>Runs</h2><ul>{run_lines}</ul>
<h2>Figures</h2>{images}
</body></html>
"""
