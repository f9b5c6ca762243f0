"""The benchmark's figures (METHOD 8) with matplotlib's Agg backend, each as PNG and SVG.

class shares per system; Different-domain subclasses per system; class shares vs model size;
classes per description class per system; ARE histogram split by class per system; and, where
the file holds proofs, Equivalent by the paper's heuristic beside proven (and proven different).
"""

from __future__ import annotations

from pathlib import Path

from domain_drafter.bench.spec import STRATEGIES
from domain_drafter.bench.table import (
    ERROR_LABEL,
    PAPER_EQUIVALENT,
    PROVEN_DIFFERENT,
    PROVEN_EQUIVALENT,
    UNPROVEN,
    Results,
    Table,
    build_table,
)

CLASSES = ("Syntax error", "Semantic error", "Different domain", "Equivalent")
TOTAL_LABEL = {"Syntax error": "Syntax total", "Semantic error": "Semantic total",
               "Different domain": "Different total", "Equivalent": "Equivalent"}
COLOURS = {"Syntax error": "#c0392b", "Semantic error": "#e67e22", "Different domain": "#2e86c1",
           "Equivalent": "#27ae60", ERROR_LABEL: "#7f8c8d",
           "NoPlan": "#1b4f72", "NPApp": "#2e86c1", "OPApp": "#85c1e9"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)   # files only: never a window, safe in worker threads
    import matplotlib.pyplot as plt

    return plt


def _save(fig, out: Path, stem: str) -> list[Path]:
    paths = []
    for ext in ("png", "svg"):
        path = out / f"{stem}.{ext}"
        fig.savefig(path, dpi=120, bbox_inches="tight", metadata={"Date": None} if ext == "svg" else None)
        paths.append(path)
    _pyplot().close(fig)
    return paths


def class_shares(table: Table, out: Path) -> list[Path]:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(table.systems), 4))
    bottom = [0.0] * len(table.systems)
    for cls in (*CLASSES, ERROR_LABEL):
        label = TOTAL_LABEL.get(cls, cls)
        values = [table.percent(label, s) for s in table.systems]
        if cls == ERROR_LABEL and not any(values):
            continue
        ax.bar(table.systems, values, bottom=bottom, color=COLOURS[cls], label=cls)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylabel("% of answers")
    ax.set_ylim(0, 100)
    ax.set_title("Result classes per model")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1), frameon=False)
    ax.tick_params(axis="x", rotation=20)
    return _save(fig, out, "fig-class-shares")


def different_subclasses(table: Table, out: Path) -> list[Path]:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(table.systems), 4))
    subs = ("NoPlan", "NPApp", "OPApp")
    width = 0.8 / len(subs)
    for i, sub in enumerate(subs):
        xs = [j + (i - 1) * width for j in range(len(table.systems))]
        ax.bar(xs, [table.percent(sub, s) for s in table.systems], width, color=COLOURS[sub], label=sub)
    ax.set_xticks(range(len(table.systems)), table.systems, rotation=20)
    ax.set_ylabel("% of answers")
    ax.set_title("Different-domain subclasses per model")
    ax.legend(frameon=False)
    return _save(fig, out, "fig-different-subclasses")


def shares_vs_size(table: Table, sizes: dict, out: Path) -> list[Path]:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    known = sorted((sizes[s], s) for s in table.systems if s in sizes)
    if known:
        for cls in CLASSES:
            ax.plot([x for x, _ in known], [table.percent(TOTAL_LABEL[cls], s) for _, s in known], "o-",
                    color=COLOURS[cls], label=cls)
        ax.set_xscale("log")
        ax.legend(frameon=False)
    else:
        ax.text(0.5, 0.5, "no model sizes known\n(set size_b for each model in the spec)", ha="center",
                va="center", transform=ax.transAxes)
    ax.set_xlabel("model size (billions of parameters)")
    ax.set_ylabel("% of answers")
    ax.set_title("Result classes vs model size")
    return _save(fig, out, "fig-classes-vs-size")


def per_description_class(results: Results, out: Path) -> list[Path]:
    plt = _pyplot()
    groups = []   # (system, description class, {class: percent})
    for system in results.systems:
        for dclass in ("base", "flipped", "random"):
            rows = [r for r in results.rows if r.system == system and r.description_class == dclass]
            if rows:
                shares = {cls: 100.0 * sum(r.result_class == cls for r in rows) / len(rows) for cls in CLASSES}
                groups.append((system, dclass, shares))
    fig, ax = plt.subplots(figsize=(1.6 + 0.8 * max(1, len(groups)), 4))
    labels = [f"{s}\n{d}" for s, d, _ in groups]
    bottom = [0.0] * len(groups)
    for cls in CLASSES:
        values = [g[2][cls] for g in groups]
        ax.bar(labels, values, bottom=bottom, color=COLOURS[cls], label=cls)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of answers")
    ax.set_title("Result classes per description class")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1), frameon=False)
    ax.tick_params(axis="x", labelsize=8)
    return _save(fig, out, "fig-description-classes")


def are_histogram(results: Results, out: Path) -> list[Path]:
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    n = max(1, len(results.systems))
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.4), squeeze=False, sharey=True)
    for ax, system in zip(axes[0], results.systems or ("(none)",)):
        rows = [r for r in results.rows if r.system == system and r.are_total is not None]
        top = max([r.are_total for r in rows], default=0)
        bins = list(range(0, top + 2))
        data = [[r.are_total for r in rows if r.result_class == cls] for cls in CLASSES]
        if rows:
            ax.hist(data, bins=bins, stacked=True, color=[COLOURS[c] for c in CLASSES], label=list(CLASSES),
                    align="left")
        else:
            ax.text(0.5, 0.5, "no answer parsed", ha="center", va="center", transform=ax.transAxes)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{system} ({len(rows)} parsed)", fontsize=9)
        ax.set_xlabel("ARE")
    axes[0][0].set_ylabel("answers")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[c]) for c in CLASSES[1:]]   # syntax errors have no ARE
    axes[0][-1].legend(handles, list(CLASSES[1:]), loc="upper left", bbox_to_anchor=(1, 1), frameon=False,
                       fontsize=8)
    fig.suptitle("Action Reconstruction Error by result class")
    return _save(fig, out, "fig-are-histogram")


PROOF_COLOURS = {PAPER_EQUIVALENT: "#a9dfbf", PROVEN_EQUIVALENT: "#27ae60", PROVEN_DIFFERENT: "#c0392b",
                 UNPROVEN: "#7f8c8d"}


def equivalence_proof(table: Table, out: Path) -> list[Path]:
    """Per system: Equivalent by the paper's heuristic, proven, and heuristic ones proven different."""
    plt = _pyplot()
    labels = [label for label in PROOF_COLOURS if label in table.proof_labels]
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(table.systems), 4))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(table.systems))]
        values = [table.percent(label, s) for s in table.systems]
        bars = ax.bar(xs, values, width, color=PROOF_COLOURS[label], label=label)
        ax.bar_label(bars, [str(table.counts.get((label, s), 0)) for s in table.systems], fontsize=7)
    ax.set_xticks(range(len(table.systems)), table.systems, rotation=20)
    ax.set_ylabel("% of answers (count on the bars)")
    ax.set_title("Equivalent: the paper's heuristic vs the proof")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1), frameon=False, fontsize=8)
    return _save(fig, out, "fig-equivalence-proof")


_LINE_STYLES = ("-", "--", ":", "-.")


def _base_system(stats) -> str:
    """The system a strategy ran on: 'qwen +grammar [search]' -> 'qwen +grammar'."""
    suffix = f" [{stats.strategy}]"
    return stats.system[:-len(suffix)] if stats.system.endswith(suffix) else stats.system


def curve_styles(stats) -> list[tuple[int, str]]:
    """Per strategy's stats, (colour number, line style): the colour names the strategy, the line the system it
    ran on (a model, with or without the grammar)."""
    systems = list(dict.fromkeys(_base_system(s) for s in stats))
    return [(STRATEGIES.index(s.strategy) if s.strategy in STRATEGIES else len(STRATEGIES),
             _LINE_STYLES[systems.index(_base_system(s)) % len(_LINE_STYLES)]) for s in stats]


def equivalent_vs_calls(stats, out: Path) -> list[Path]:
    """Proven Equivalent (% of actions) against the model calls spent, one curve per strategy (system)."""
    plt = _pyplot()
    budget = max([max(s.found_at, default=1) for s in stats] + [round(s.per_action(s.calls)) for s in stats]
                 + [1])
    fig, ax = plt.subplots(figsize=(6.4, 4))
    # The colour names the strategy and the line the system it runs on (a model, with or without the grammar),
    # so that curves which coincide (one-shot with and without the grammar, often) stay apart.
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for s, (colour, line) in zip(stats, curve_styles(stats)):
        points = s.curve(budget)
        ax.step([x for x, _ in points], [y for _, y in points], where="post", label=s.system, marker=".",
                color=colours[colour % len(colours)], linestyle=line)
    ax.set_xlabel("model calls per action")
    ax.set_ylabel("% of actions proven Equivalent")
    ax.set_xlim(0.5, budget + 0.5)
    ax.set_ylim(0, 100)
    ax.set_title("Proven Equivalent against model calls spent")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1), frameon=False, fontsize=8)
    return _save(fig, out, "fig-equivalent-vs-calls")


def write_figures(results: Results, out: Path, table: Table | None = None, strategies=None) -> list[Path]:
    """The five figures (six with proofs) as PNG and SVG in `out`; returns the files."""
    table = table or build_table(results)
    out.mkdir(parents=True, exist_ok=True)
    files = [*class_shares(table, out), *different_subclasses(table, out), *shares_vs_size(table, results.sizes, out),
             *per_description_class(results, out), *are_histogram(results, out)]
    if table.proof_labels:
        files += equivalence_proof(table, out)
    if strategies:
        files += equivalent_vs_calls(strategies, out)
    return files
