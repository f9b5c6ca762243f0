"""The Benchmark dialog on the tiny real model: counts grow as verdicts arrive, Stop stops, Start resumes
the same run, it finishes with one row per task, and the report opens from the results file."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

from PySide6.QtCore import Qt

from domain_drafter.bench.runner import machine_cores
from domain_drafter.gui.dialogs.bench_dialog import BenchmarkDialog
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.gui.state.workers import JobOutcome

TIMEOUT_MS = 120_000


def test_dialog_runs_stops_resumes_and_finishes(qtbot, tiny_model, tmp_path):
    results = tmp_path / "gui.sqlite"
    dialog = BenchmarkDialog([("tiny", str(tiny_model))], ["blocksworld", "gripper"], results_path=results,
                             open_externally=False)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.prompts_spin.setValue(3)
    assert dialog.size_label.text().startswith("21 tasks")
    judged: list[int] = []

    def on_progress(p) -> None:
        judged.append(p.evaluated)
        if p.evaluated >= 4 and dialog.start_button.text() == "Start" and not dialog.worker.cancelled:
            dialog.stop()   # from the slot, so the stop lands mid-run however fast the model is

    dialog.relay.progress.connect(on_progress)
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.model_list.isEnabled() and dialog.stop_button.isEnabled()
    assert ended.args == ["stopped"], dialog.last_error
    assert ended.args[0] is JobOutcome.STOPPED   # the one enum of how jobs end, not a word
    stopped = dialog.last_summary
    assert 4 <= stopped.evaluated < 21 and stopped.cancelled
    assert len(set(judged)) >= 4 and judged == sorted(judged)   # the counts grew, one verdict at a time
    assert sum(dialog.bars.counts.values()) == stopped.evaluated
    assert dialog.start_button.text() == "Resume" and dialog.start_button.isEnabled()
    assert dialog.progress_bar.value() == stopped.evaluated and dialog.progress_bar.maximum() == 21

    dialog.relay.progress.disconnect(on_progress)
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["finished"], dialog.last_error
    assert ended.args[0] is JobOutcome.FINISHED
    done = dialog.last_summary
    assert (done.evaluated, done.total) == (21, 21)
    with sqlite3.connect(results) as db:
        generated_before = db.execute("SELECT COUNT(*) FROM tasks WHERE generated_at IS NOT NULL").fetchone()[0]
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM tasks").fetchone() == (21, 21)
    assert generated_before == 21 and done.generated_now <= 21 - stopped.evaluated
    assert sum(dialog.bars.counts.values()) == 21
    assert "Finished: 21 of 21" in dialog.eta_label.text()

    qtbot.waitUntil(lambda: dialog.report_button.isEnabled(), timeout=TIMEOUT_MS)
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.report_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["report"], dialog.last_error
    assert ended.args[0] is JobOutcome.REPORTED
    assert dialog.report_path.is_file() and "tiny" in dialog.report_path.read_text()
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT_MS)


def test_benchmark_menu_opens_the_dialog_and_the_window_stays_usable(window, qtbot):
    action = window.benchmark_action
    assert action.text() == "Run benchmark…"
    assert "Benchmark" in [a.text().replace("&", "") for a in window.menuBar().actions()]
    action.trigger()
    dialog = window.benchmark_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.domain_list.count() == 9 and dialog.model_list.count() >= 1
    assert dialog.runner is not window.runner   # a benchmark never makes the window busy
    assert not dialog.isModal()
    assert dialog.spec().k == window.app_settings.k and dialog.spec().examples == window.app_settings.examples
    dialog.close()
    window.state.update_settings(replace(window.app_settings, examples=2, k=11), save=False)
    action.trigger()                                 # opened again: the run takes the Settings as they are now
    assert window.benchmark_dialog is dialog and (dialog.spec().examples, dialog.spec().k) == (2, 11)
    assert "2 examples" in dialog.options_label.text()
    dialog.close()


def test_dialog_without_models_cannot_start(qtbot, tmp_path):
    dialog = BenchmarkDialog([], ["gripper"], results_path=tmp_path / "x.sqlite", open_externally=False)
    qtbot.addWidget(dialog)
    assert not dialog.start_button.isEnabled()
    dialog.start()
    assert not dialog.running


def test_results_file_follows_the_settings_until_the_user_picks_one(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    dialog = BenchmarkDialog([("m", "default")], ["gripper", "miconic"], open_externally=False)
    qtbot.addWidget(dialog)
    first = dialog.path_edit.text()
    assert first.startswith(str(tmp_path / "results" / "benchmark-")) and first.endswith(".sqlite")
    dialog.prompts_spin.setValue(2)
    second = dialog.path_edit.text()
    assert second != first   # a different experiment gets its own file
    dialog.prompts_spin.setValue(1)
    assert dialog.path_edit.text() == first   # the same settings find the same run again
    qtbot.keyClicks(dialog.path_edit, "x")   # typed by the user: kept from now on
    dialog.prompts_spin.setValue(3)
    assert dialog.path_edit.text() == first + "x"


def test_strategies_chosen_in_the_dialog_run_at_the_settings_budget_and_reach_the_report(qtbot, tiny_model, tmp_path):
    settings = replace(AppSettings(), search_budget=2, search_width=2)
    results = tmp_path / "strategies.sqlite"
    dialog = BenchmarkDialog([("tiny", str(tiny_model))], ["gripper"], results_path=results, open_externally=False,
                             settings=settings)
    qtbot.addWidget(dialog)
    dialog.show()
    assert [n for n, box in dialog.strategy_checks.items() if box.isChecked()] == ["one-shot"]
    one_shot = dialog.spec()
    assert one_shot.strategies == ("one-shot",) and not one_shot.search   # as before strategies were offered
    dialog.strategy_checks["one-shot"].setChecked(False)
    assert not dialog.start_button.isEnabled() and "one strategy" in dialog.size_label.text()
    for name in ("one-shot", "search"):
        dialog.strategy_checks[name].setChecked(True)
    spec = dialog.spec()
    assert spec.strategies == ("one-shot", "search") and spec.search["budget"] == 2 and spec.search["width"] == 2
    assert spec.fingerprint != one_shot.fingerprint                   # another experiment, another results file
    assert dialog.size_label.text().startswith("6 tasks") and "at most 2 model calls" in dialog.options_label.text()
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.strategy_checks["search"].isEnabled()
    assert ended.args == ["finished"], dialog.last_error
    with sqlite3.connect(results) as db:
        rows = db.execute("SELECT system, generation FROM tasks").fetchall()
    assert sorted({system for system, _ in rows}) == ["tiny", "tiny [search]"]
    calls = [json.loads(g)["calls"] for system, g in rows if system == "tiny [search]"]
    assert len(calls) == 3 and all(1 <= c <= 2 for c in calls)         # the Settings' budget, per action
    qtbot.waitUntil(lambda: dialog.report_button.isEnabled(), timeout=TIMEOUT_MS)
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.report_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["report"], dialog.last_error
    assert (dialog.report_path.parent / "strategies.md").is_file()     # one column per strategy
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT_MS)


def test_a_spec_file_loaded_in_the_dialog_is_the_run_and_a_bad_one_changes_nothing(qtbot, tiny_model, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    spec_file = tmp_path / "two-strategies.toml"
    spec_file.write_text(f'''name = "two-strategies"
description = "one-shot and search on gripper, tiny model"
domains = ["gripper"]
strategies = ["one-shot", "search"]
grammar = true
max_tokens = 24

[search]
budget = 2
width = 1

[[models]]
name = "tiny"
model = "{tiny_model}"
''')
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\ndomains = ["gripper"]\n\n[search]\nbudget = 0\n\n[[models]]\nname = "m"\nmodel = "default"\n')
    dialog = BenchmarkDialog([("m", "default")], ["gripper", "miconic"], open_externally=False)
    qtbot.addWidget(dialog)
    from_settings = dialog.spec()
    assert not dialog.clear_spec_button.isEnabled()

    assert dialog.load_spec_file(spec_file)
    spec = dialog.spec()
    assert spec.name == "two-strategies" and spec.strategies == ("one-shot", "search") and spec.domains == ("gripper",)
    assert [m.name for m in spec.models] == ["tiny"] and spec.search["budget"] == 2
    assert dialog.size_label.text().startswith("6 tasks")            # 3 actions x 2 systems
    assert dialog.path_edit.text().endswith(f"benchmark-{spec.fingerprint}.sqlite")
    assert "two-strategies.toml: two-strategies" in dialog.spec_label.text()
    assert not dialog.model_list.isEnabled() and not dialog.strategy_checks["search"].isEnabled()
    assert dialog.start_button.isEnabled() and dialog.clear_spec_button.isEnabled()

    assert not dialog.load_spec_file(bad)                             # file:line and what to do; the spec stays
    assert f"{bad}:5" in dialog.spec_label.text() and "budget" in dialog.spec_label.text()
    assert dialog.spec() is spec and "still: two-strategies" in dialog.spec_label.text()

    dialog.clear_spec()
    assert dialog.spec() == from_settings and dialog.model_list.isEnabled()
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS):   # and a loaded spec runs as the CLI would
        dialog.load_spec_file(spec_file)
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    assert dialog.last_summary is not None and (dialog.last_summary.evaluated, dialog.last_summary.total) == (6, 6)
    with sqlite3.connect(dialog.path_edit.text()) as db:
        systems = {row[0] for row in db.execute("SELECT DISTINCT system FROM tasks")}
    assert len(systems) == 2 and any("[search]" in s for s in systems)


def test_generator_processes_chosen_in_the_dialog_generate_and_do_not_change_the_results_file(qtbot, tiny_model,
                                                                                              tmp_path):
    settings = replace(AppSettings(), threads=1)
    results = tmp_path / "generators.sqlite"
    dialog = BenchmarkDialog([("tiny", str(tiny_model))], ["gripper"], results_path=results, open_externally=False,
                             settings=settings)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.generators_spin.text() == "automatic" and dialog.spec().generators is None
    automatic = dialog.spec()
    assert f"{machine_cores()} generator process(es)" in dialog.size_label.text()   # cores // 1 thread
    dialog.generators_spin.setValue(machine_cores() + 1)
    assert "will share the cores" in dialog.size_label.text() and dialog.start_button.isEnabled()
    dialog.generators_spin.setValue(2)
    assert dialog.spec().generators == 2 and "2 generator process(es)" in dialog.size_label.text()
    assert dialog.spec().fingerprint == automatic.fingerprint   # the same experiment: a run resumes with any count
    with qtbot.waitSignal(dialog.run_ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.generators_spin.isEnabled()
    assert ended.args == ["finished"], dialog.last_error
    with sqlite3.connect(results) as db:
        labels = [g for (g,) in db.execute("SELECT json_extract(generation, '$.generator') FROM tasks")]
    assert len(labels) == 3 and set(labels) <= {"generator 1", "generator 2"}   # written by the two processes
    assert dialog.generators_spin.isEnabled()
