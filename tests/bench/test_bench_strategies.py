"""Strategies at equal cost in the benchmark, on the tiny real model: one column per strategy, the cost
rows, the figure, the export naming model and strategy; a bad [search] table points at its line."""

from __future__ import annotations

import json
import sqlite3

import pytest
from bench_helpers import write_spec

from domain_drafter.bench.spec import load_spec, system_name
from domain_drafter.cli import main

STRATEGIES = '''grammar = [true]
strategies = ["one-shot", "search", "retries", "best-of"]
[search]
budget = 3
width = 2
children = 2
feedback = "all"
'''


def test_every_strategy_is_a_column_with_its_cost_and_the_export_names_it(tmp_path, tiny_model, private_cache,
                                                                          capsys):
    spec_path = write_spec(tmp_path / "strategies.toml", tiny_model, domains='["heavy-pack"]', extra=STRATEGIES)
    spec = load_spec(spec_path)
    assert [t.system for t in spec.tasks()][:4] == [system_name("tiny", True, s)
                                                    for s in ("one-shot", "search", "retries", "best-of")]
    out = tmp_path / "strategies.sqlite"
    assert main(["bench", "run", str(spec_path), "--out", str(out), "--plain"]) == 0
    db = sqlite3.connect(out)
    rows = db.execute("SELECT system, action, answer, generation FROM tasks ORDER BY ord").fetchall()
    assert len(rows) == 2 * 4 and all(r[2] is not None for r in rows)
    by = {(system, action): (answer, json.loads(generation)) for system, action, answer, generation in rows}
    for action in ("pack-first", "stack"):
        one_shot, _ = by[("tiny +grammar", action)]
        for strategy in ("search", "retries", "best-of"):
            answer, record = by[(f"tiny +grammar [{strategy}]", action)]
            assert record["strategy"] == strategy and 1 <= record["calls"] <= 3
            nodes = record["search"]["nodes"]
            calls = [n for n in nodes if n["repair_of"] is None]     # a quick fix is a node but not a call
            assert len(calls) == record["calls"] and answer in [n["answer"] for n in nodes]
            assert nodes[0]["answer"] == one_shot       # every strategy's first answer is the one-shot answer
        retries = by[("tiny +grammar [retries]", action)][1]["search"]["nodes"]
        assert [n["parent"] for n in retries] == [None, 0, 1][:len(retries)] or all(
            n["parent"] is not None for n in retries[1:])
        best_of = by[("tiny +grammar [best-of]", action)][1]["search"]["nodes"]
        assert all(n["parent"] is None for n in best_of) and [n["seed"] for n in best_of] == [0, 1, 2][:len(best_of)]
    report = tmp_path / "report"
    assert main(["bench", "report", str(out), "--out", str(report)]) == 0
    table = (report / "strategies.md").read_text()
    for label in ("proven Equivalent %", "of them by a quick fix", "mean score", "model calls per action",
                  "tokens per action", "seconds per action"):
        assert f"| {label} |" in table
    assert "tiny +grammar [search]" in table and (report / "fig-equivalent-vs-calls.png").is_file()
    stats = json.loads((report / "strategies.json").read_text())
    assert {s["strategy"] for s in stats} == {"one-shot", "search", "retries", "best-of"}
    assert "Strategies at equal cost" in (report / "report.html").read_text()
    exported = tmp_path / "answers.jsonl"
    assert main(["bench", "export", str(out), "--out", str(exported)]) == 0
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert {(line["model_name"], line["strategy"]) for line in lines} == {
        ("tiny", s) for s in ("one-shot", "search", "retries", "best-of")}


@pytest.mark.parametrize(("table", "needle", "what"), [
    ("[search]\nbudget = 0\n", "budget = 0", "'budget' must be a whole number of at least 1"),
    ("[search]\nbudget = 4\nwidth = -1\n", "width = -1", "'width' must be a whole number of at least 1"),
    ("[search]\nbudget = 4\nbreadth = 2\n", "breadth = 2", "unknown key(s) breadth"),
    ("[search]\nfeedback = \"hints\"\n", 'feedback = "hints"', "feedback must be one of"),
    ("[search]\ntemperature = \"hot\"\n", 'temperature = "hot"', "'temperature' must be float"),
    ("[search]\nreheat = -0.5\n", "reheat = -0.5", "'reheat' must be 0 or above"),
    ("[search]\nrepair = \"yes\"\n", 'repair = "yes"', "'repair' must be bool"),
    ("[search]\nbatch_children = 1\n", "batch_children = 1", "'batch_children' must be bool"),
])
def test_a_bad_search_table_names_its_line_and_exits_3(tmp_path, tiny_model, table, needle, what, capsys):
    spec = write_spec(tmp_path / "bad.toml", tiny_model, extra="")
    text = spec.read_text().replace("\n[[models]]", "\n" + table + "\n[[models]]", 1)
    spec.write_text(text)
    number = text.splitlines().index(needle) + 1
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    err = capsys.readouterr().err
    assert what in err and f"{spec}:{number}" in err, err


def test_guided_search_on_a_served_model_is_refused_at_its_line(tmp_path, tiny_model, capsys):
    spec = write_spec(tmp_path / "served.toml", tiny_model, extra='strategies = ["search", "guided-search"]\n')
    text = spec.read_text().replace(f'model = "{tiny_model}"', 'endpoint = "http://127.0.0.1:9"')
    spec.write_text(text)
    number = text.splitlines().index('strategies = ["search", "guided-search"]') + 1
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    err = capsys.readouterr().err
    assert "guided-search needs each model loaded in this process" in err and f"{spec}:{number}" in err, err
    assert "compare 'search' on a served model" in err
    spec.write_text(text.replace('"search", "guided-search"', '"search"'))   # the plain search is fine there
    load_spec(spec)


def test_an_unknown_strategy_is_refused_with_the_valid_ones(tmp_path, tiny_model, capsys):
    spec = write_spec(tmp_path / "bad.toml", tiny_model, extra='strategies = ["one-shot", "beam"]\n')
    assert main(["bench", "run", str(spec), "--out", str(tmp_path / "x.sqlite")]) == 3
    err = capsys.readouterr().err
    assert "unknown strategy 'beam'" in err and "best-of" in err and f"{spec}:" in err


def test_a_proven_equivalent_found_by_a_quick_fix_is_counted_as_such():
    from domain_drafter.bench.strategy_table import _best_is_a_quick_fix

    tree = {"search": {"best": 1, "nodes": [{"id": 0, "repair_of": None}, {"id": 1, "repair_of": 0}]}}
    assert _best_is_a_quick_fix(tree)
    tree["search"]["best"] = 0
    assert not _best_is_a_quick_fix(tree)
    assert not _best_is_a_quick_fix({"stats": {}})                   # a one-shot row has no tree
    assert not _best_is_a_quick_fix({"search": {"best": 5, "nodes": []}})


def test_guided_search_is_a_column_in_both_decoding_modes_whose_options_refuse_what_was_judged_or_removed(tmp_path, tiny_model):
    from domain_drafter.bench.strategies import strategy_options

    extra = STRATEGIES.replace("grammar = [true]", "grammar = [true, false]").replace(
        '"best-of"]', '"best-of", "guided-search"]')
    spec = load_spec(write_spec(tmp_path / "guided.toml", tiny_model, domains='["heavy-pack"]', extra=extra))
    systems = {t.system for t in spec.tasks()}
    assert system_name("tiny", True, "guided-search") in systems
    assert system_name("tiny", False, "guided-search") in systems          # free decoding: the answer tabu
    assert system_name("tiny", False, "search") in systems
    assert len(spec.tasks()) == 2 * (5 + 5)
    guided, plain = strategy_options("guided-search", spec), strategy_options("search", spec)
    assert guided.forbid_removed and guided.refuse_judged and not plain.forbid_removed and not plain.refuse_judged
    guided_only = {"forbid_removed", "refuse_judged"}
    assert {k: v for k, v in guided.to_dict().items() if k not in guided_only} == {
        k: v for k, v in plain.to_dict().items() if k not in guided_only}


def test_the_calls_figure_gives_a_strategy_one_colour_and_a_system_one_line():
    """One-shot with and without the grammar often coincide: they share the colour, not the line."""
    from domain_drafter.bench.figures import curve_styles
    from domain_drafter.bench.strategy_table import StrategyStats

    def stats(system, strategy):
        return StrategyStats(system, strategy, tasks=32, proven_equivalent=1, score_sum=0.0, scored=0, calls=32,
                             tokens=0, wall_s=0.0, found_at=(1,))

    styles = curve_styles([stats("m +grammar", "one-shot"), stats("m +grammar [search]", "search"),
                           stats("m", "one-shot"), stats("m [search]", "search")])
    assert styles[0][0] == styles[2][0] and styles[1][0] == styles[3][0] and styles[0][0] != styles[1][0]
    assert styles[0][1] == styles[1][1] and styles[2][1] == styles[3][1] and styles[0][1] != styles[2][1]


@pytest.mark.parametrize("generators", [1, 2])
def test_a_running_search_shows_its_model_calls_as_the_runs_progress_and_each_answer_names_its_cpu(tmp_path, tiny_model, private_cache, generators):
    """Between two answers a strategy spends up to its budget of calls (minutes each with a real model): the
    run's progress says which task and which call, in this process and from generator processes alike."""
    from domain_drafter.bench.runner import run_experiment
    from domain_drafter.llm.amx import cpu_identity

    spec = load_spec(write_spec(tmp_path / "progress.toml", tiny_model, domains='["heavy-pack"]',
                                extra='grammar = [true]\nthreads = 1\nstrategies = ["retries"]\n[search]\nbudget = 3\n'))
    messages: list[str] = []
    summary = run_experiment(spec, tmp_path / "p.sqlite", generators=generators,
                             on_progress=lambda p: messages.append(p.message))
    assert summary.evaluated == summary.total == 2
    with sqlite3.connect(tmp_path / "p.sqlite") as db:       # and each answer names the CPU that wrote it
        cpus = {json.loads(g)["cpu"] for (g,) in db.execute("SELECT generation FROM tasks")}
    assert cpus == {cpu_identity()["cpu"]}
    who = "tiny" if generators == 1 else "generator "
    for action in ("pack-first", "stack"):
        calls = [m for m in messages if f"heavy-pack/{action} retries: model call" in m]
        assert calls and all(m.startswith(who) for m in calls), messages
        assert any("model call 3 of 3; best score so far" in m for m in calls), calls


def test_every_strategy_is_a_preset_named_once_and_guided_maps_to_both_flags_there(tmp_path, tiny_model):
    from domain_drafter.bench.spec import STRATEGIES as SPEC_STRATEGIES
    from domain_drafter.bench.strategies import strategy_options
    from domain_drafter.drafting.presets import PRESETS, Preset, guided_flags, is_guided, preset_options
    from domain_drafter.gui.state.settings import AppSettings

    assert SPEC_STRATEGIES == PRESETS       # the spec validates against the presets' names
    spec = load_spec(write_spec(tmp_path / "s.toml", tiny_model, domains='["heavy-pack"]', extra=STRATEGIES))
    for preset in Preset:
        assert strategy_options(preset.value, spec) == preset_options(preset, budget=3, width=2, children=2)
    assert guided_flags(True) == {"forbid_removed": True, "refuse_judged": True}
    assert not is_guided(preset_options(Preset.SEARCH)) and is_guided(preset_options(Preset.GUIDED_SEARCH))
    settings = AppSettings(search_guided=True)
    assert settings.search_options().forbid_removed and settings.search_options().refuse_judged
    assert preset_options(Preset.ONE_SHOT, repair=True).repair is False      # one-shot stays the paper's protocol


def test_the_search_table_s_batch_children_reaches_the_search_strategies_only(tmp_path, tiny_model):
    from domain_drafter.bench.spec import load_spec
    from domain_drafter.bench.strategies import strategy_options

    spec = write_spec(tmp_path / "s.toml", tiny_model, extra="")
    text = spec.read_text().replace("\n[[models]]", "\n[search]\nbatch_children = true\nspeculate_children = true\n"
                                                     "\n[[models]]", 1)
    spec.write_text(text)
    loaded = load_spec(spec)
    assert strategy_options("guided-search", loaded).batch_children is True
    assert strategy_options("search", loaded).batch_children is True
    assert strategy_options("guided-search", loaded).speculate_children is True
    assert strategy_options("one-shot", loaded).batch_children is False
    assert strategy_options("one-shot", loaded).speculate_children is False
