"""The defects a user met walking through the app (issue 23), one test each through the real widgets.

Real parts: the real main, authoring and Benchmark windows offscreen, the tiny real GGUF, the real engine.
"""

from __future__ import annotations

import shutil
from dataclasses import replace

from gui_helpers import JOB_TIMEOUT_MS, open_main_window, select
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.window import AuthoringWindow
from domain_drafter.gui.dialogs.bench_dialog import BenchmarkDialog
from domain_drafter.gui.dialogs.bench_session import KEEP_RUNNING, KEEP_WORKING, STOP_AND_CLOSE, STOP_AND_QUIT
from domain_drafter.gui.panels.answer_panel import IDLE_PLACEHOLDER
from domain_drafter.gui.panels.result_panel import COUNTEREXAMPLE_TAB, ResultPanel
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.gui.state.workers import JobOutcome
from domain_drafter.llm.models import ModelEntry
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator


def test_the_verdict_tab_has_one_name_on_every_verdict(qtbot, bundles):
    bundle = bundles["blocksworld"]
    answer = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
              ":effect (and (ontable ?x) (handempty) (not (holding ?x))))")   # a paper counterexample plan
    with Evaluator(EvaluationOptions(equivalence="paper", use_verdict_cache=False)) as judge:
        result = judge.evaluate(bundle, "put-down", answer)
    assert result.proof is None and result.equivalence.counterexample is not None
    panel = ResultPanel()
    qtbot.addWidget(panel)
    assert panel.tabs.tabText(COUNTEREXAMPLE_TAB) == "Distinguishing state"
    panel.show_result(result, bundle.domain.action("put-down"))
    assert panel.tabs.tabText(COUNTEREXAMPLE_TAB) == "Distinguishing state"   # was "Counterexample"


def test_a_running_generation_hides_the_instructions(qtbot, window, tiny_model):
    window.state.update_settings(replace(window.app_settings, max_new_tokens=40), save=False)
    select(qtbot, window, "gripper", "drop")
    window.add_model_file(tiny_model)
    result, answer = window.result_panel, window.answer_panel
    assert result.hint.isVisible() and answer.editor.placeholderText() == IDLE_PLACEHOLDER
    seen: list[tuple[str, bool, str]] = []
    window.progress_bar.valueChanged.connect(
        lambda _v: seen.append((result.message.text(), result.hint.isVisible(), answer.editor.placeholderText())))
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS):
        window.generate_action.trigger()
        assert result.message.text().startswith("Generating with ")
        assert not result.hint.isVisible()                                    # the how-to was shown under it
        assert answer.editor.placeholderText().startswith("Waiting for ")
    assert seen and not any(hint for _m, hint, _p in seen if _m.startswith("Generating with "))
    assert answer.editor.placeholderText() == IDLE_PLACEHOLDER               # back once the job ended


def test_the_draft_all_bar_advances_per_action(qtbot, bundles, tiny_model, tmp_path):
    state = AppState(AppSettings(preload_model=False, max_new_tokens=40))
    state.set_model(ModelEntry("tiny", tiny_model, tiny_model.stat().st_size, "path"))
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "bw")                                     # saved as it goes: closing asks nothing
    win = AuthoringWindow(copy, state)
    qtbot.addWidget(win)
    win.show()
    shown: list[tuple[int, int]] = []
    win.progress.valueChanged.connect(lambda v: shown.append((v, win.progress.maximum())))
    with qtbot.waitSignal(win.job_ended, timeout=JOB_TIMEOUT_MS, check_params_cb=lambda k, _o: k == "draft-all"):
        win.draft_all_button.click()
    drafting = shown[[most for _v, most in shown].index(5):]       # once the model is loaded
    assert {most for _v, most in drafting} == {5}                  # one scale: four actions, then judging D'
    steps = [v for v, _most in drafting]
    assert steps == sorted(steps) and set(steps) >= {1, 2, 3, 4}  # never back to 0 of a draft's own rounds
    qtbot.waitUntil(lambda: not win.saver.busy and not copy.dirty, timeout=JOB_TIMEOUT_MS)
    win.close()
    state.close()


def test_a_long_model_name_is_elided_in_the_status_bar_and_whole_in_its_tooltip(qtbot, private_homes, tiny_model,
                                                                                 tmp_path):
    name = "a-model-with-a-very-long-name-" * 6 + "q4_k_m"
    model = tmp_path / f"{name}.gguf"
    shutil.copyfile(tiny_model, model)
    window = open_main_window(qtbot, AppSettings(model=str(model)))
    status = window.model_status
    qtbot.waitUntil(lambda: status.loaded_model is not None and not status.busy, timeout=JOB_TIMEOUT_MS)
    label, bar = status.model_label, window.statusBar()
    assert label.width() < bar.width() // 2                        # the rest of the status bar stays in view
    assert label.geometry().right() <= bar.contentsRect().right()
    assert name not in label.text() and "…" in label.text() and "loaded in" in label.text()
    assert label.toolTip().splitlines()[0] == model.name           # the whole name
    window.close()


def _answer(qtbot, dialog, text: str) -> None:
    qtbot.waitUntil(lambda: dialog.close_box is not None and dialog.close_box.isVisible())
    box = dialog.close_box
    assert box.windowModality() == Qt.WindowModality.WindowModal
    assert sorted(b.text() for b in box.buttons()) == sorted([STOP_AND_CLOSE, KEEP_RUNNING])
    next(b for b in box.buttons() if b.text() == text).click()


def test_closing_the_benchmark_mid_run_asks_first(qtbot, tiny_model, tmp_path):
    dialog = BenchmarkDialog([("tiny", str(tiny_model))], ["blocksworld"], results_path=tmp_path / "b.sqlite",
                             open_externally=False)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.prompts_spin.setValue(50)                               # long enough to be closed mid-run
    dialog.start_button.click()
    assert dialog.running
    dialog.close()
    assert isinstance(dialog.close_box, QMessageBox)
    _answer(qtbot, dialog, KEEP_RUNNING)
    assert dialog.isVisible() and dialog.running and not dialog.worker.cancelled   # the run was not stopped
    qtbot.waitUntil(lambda: dialog.close_box is None)
    # the run is under way (a run stopped before it starts ends as "cancelled", with no summary)
    qtbot.waitUntil(lambda: dialog.last_progress is not None and dialog.last_progress.generated > 0,
                    timeout=JOB_TIMEOUT_MS)
    with qtbot.waitSignal(dialog.run_ended, timeout=JOB_TIMEOUT_MS) as ended:
        dialog.close()
        _answer(qtbot, dialog, STOP_AND_CLOSE)
        assert not dialog.isVisible()
    assert ended.args == ["stopped"] and dialog.last_summary.evaluated < dialog.last_summary.total


def _answer_quit(qtbot, window, text: str) -> None:
    qtbot.waitUntil(lambda: window.quit_box is not None and window.quit_box.isVisible())
    box = window.quit_box
    assert box.parent() is window and box.windowModality() == Qt.WindowModality.WindowModal
    assert sorted(b.text() for b in box.buttons()) == sorted([STOP_AND_QUIT, KEEP_WORKING])
    assert "resumes it" in box.text()
    next(b for b in box.buttons() if b.text() == text).click()


def test_quitting_the_app_mid_benchmark_asks_first(qtbot, window, tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))   # the run's results file goes there
    window.add_model_file(tiny_model)
    window.benchmark_action.trigger()                                    # Benchmark > Run benchmark…
    dialog = window.benchmark_dialog
    for row in range(dialog.model_list.count()):                         # the tiny model only, one domain
        item = dialog.model_list.item(row)
        item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) == str(tiny_model)
                           else Qt.CheckState.Unchecked)
    dialog.findChild(type(dialog.start_button), "domainsNone").click()
    dialog.domain_list.findItems("blocksworld", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Checked)
    dialog.prompts_spin.setValue(50)                                     # long enough to be quit mid-run
    assert dialog.spec().domains == ("blocksworld",) and [m.model for m in dialog.spec().models] == [str(tiny_model)]
    dialog.start_button.click()
    qtbot.waitUntil(lambda: dialog.last_progress is not None and dialog.last_progress.generated > 0,
                    timeout=JOB_TIMEOUT_MS)                              # the run is under way: its first answer

    assert not window.close()                                            # the window's close: refused, and asked
    _answer_quit(qtbot, window, KEEP_WORKING)
    assert window.isVisible() and not window.closing
    assert dialog.run_going_on and not dialog.worker.cancelled          # the run was not stopped
    qtbot.waitUntil(lambda: window.quit_box is None)

    quit_action = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "Quit")
    with qtbot.waitSignal(dialog.run_ended, timeout=JOB_TIMEOUT_MS) as ended:
        quit_action.trigger()                                            # File > Quit asks the same
        assert window.isVisible()
        _answer_quit(qtbot, window, STOP_AND_QUIT)
        qtbot.waitUntil(lambda: not window.isVisible())                  # then the window closes: the app quits
    assert window.closing and ended.args[0] is JobOutcome.STOPPED       # stopped after the current answer, kept
    assert dialog.worker is None     # the run's worker is let go with the run (it outlived it, found by the soak)
    summary = dialog.last_summary
    assert summary.cancelled and summary.evaluated < summary.total
    assert window.quit_box is None


def test_the_benchmark_dialog_remembers_its_domains(qtbot, tmp_path):
    domains = ["blocksworld", "gripper", "miconic"]
    first = BenchmarkDialog([("tiny", "tiny.gguf")], domains, results_path=tmp_path / "b.sqlite")
    qtbot.addWidget(first)
    assert first.spec().domains == tuple(domains)                  # all, the first time
    first.findChild(type(first.start_button), "domainsNone").click()
    first.domain_list.item(1).setCheckState(Qt.CheckState.Checked)
    first.close()
    again = BenchmarkDialog([("tiny", "tiny.gguf")], domains, results_path=tmp_path / "b.sqlite")
    qtbot.addWidget(again)
    assert again.spec().domains == ("gripper",)
