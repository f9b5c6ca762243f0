"""The small defects a user met walking through the app (issue 15), one test each where a test can see it.

Real parts: the real main, authoring and Benchmark windows offscreen, the tiny real GGUF, real files.
"""

from __future__ import annotations

from dataclasses import replace

from gui_helpers import JOB_TIMEOUT_MS, run_job, select
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

from domain_drafter.core.bundle import load_bundle_path
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.dialogs import chosen_folder, folder_dialog
from domain_drafter.gui.authoring.tables import attempt_label
from domain_drafter.gui.authoring.window import AuthoringWindow
from domain_drafter.gui.dialogs.bench_dialog import BenchmarkDialog
from domain_drafter.gui.main.model_status import threads_text
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.llm.models import ModelEntry

LONG_MESSAGE = "the atom (on ?x ?y) of the precondition uses ?y, which is not a parameter of the action " * 3


def test_the_model_selector_shows_its_whole_label(window):
    selector = window.model_selector
    option = QStyleOptionComboBox()
    selector.initStyleOption(option)
    field = selector.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, selector)
    assert "(default, " in selector.currentText()
    assert field.width() >= selector.fontMetrics().horizontalAdvance(selector.currentText())


def test_a_generation_shows_progress_and_plain_words(qtbot, window, tiny_model):
    window.state.update_settings(replace(window.app_settings, max_new_tokens=120), save=False)
    select(qtbot, window, "gripper", "drop")
    window.add_model_file(tiny_model)
    values: list[tuple[int, int]] = []
    window.progress_bar.valueChanged.connect(lambda v: values.append((v, window.progress_bar.maximum())))
    assert run_job(qtbot, window, window.generate_action.trigger) == ("generate", "finished")
    assert any(v > 0 and most == 120 for v, most in values)          # the box filled as tokens came
    status = window.status_label.text()
    assert status.startswith("Wrote ") and "tokens/s" in status and "verdict:" in status
    assert "(length)" not in status and "(stop)" not in status
    assert threads_text(1) == "1 thread" and threads_text(4) == "4 threads"


def test_save_domain_as_takes_a_new_folder_name_and_says_saved(qtbot, bundles, tmp_path):
    dialog = folder_dialog(None, "Save domain as")
    qtbot.addWidget(dialog)
    dialog.setDirectory(str(tmp_path))
    dialog.selectFile("my-new-domain")
    dialog.accept()
    folder = chosen_folder(dialog)
    assert folder == tmp_path / "my-new-domain" and folder.is_dir()
    win = AuthoringWindow(WorkingCopy.from_bundle(bundles["blocksworld"]))
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.saved, timeout=JOB_TIMEOUT_MS):
        win.save_to(folder)
    assert win.status.text() == f"Saved to {folder}" and not win.windowTitle().startswith("*")
    assert load_bundle_path(folder).name == "my-new-domain"
    win.close()


def test_the_authoring_window_ends_a_draft_with_its_verdict_and_keeps_whole_history_lines(qtbot, bundles,
                                                                                          tiny_model, tmp_path):
    state = AppState(AppSettings(preload_model=False, max_new_tokens=40))
    state.set_model(ModelEntry("tiny", tiny_model, tiny_model.stat().st_size, "path"))
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "bw")
    win = AuthoringWindow(copy, state)
    qtbot.addWidget(win)
    win.select("stack")
    with qtbot.waitSignal(win.job_ended, timeout=JOB_TIMEOUT_MS, check_params_cb=lambda k, _o: k == "draft"):
        win.draft_selected()
    assert win.status.text().startswith("Drafted stack: ")                  # not "round 1: generating"
    attempt = copy.add_attempt("stack", "(:action stack)", source="model", subclass="PAError",
                               message=LONG_MESSAGE)
    assert attempt_label(attempt).endswith(LONG_MESSAGE) and win.history.wordWrap()
    win.close()
    state.close()


def test_an_accepted_action_is_saved_formatted_like_the_others(qtbot, bundles, tmp_path):
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "bw")
    win = AuthoringWindow(copy)
    qtbot.addWidget(win)
    win.select("put-down")
    one_line = " ".join(bundles["blocksworld"].domain.action("put-down").to_pddl(indent="").split())
    win.editor.setPlainText(one_line)
    with qtbot.waitSignal(win.saved, timeout=JOB_TIMEOUT_MS):
        assert win.accept_selected()
    saved = (tmp_path / "bw" / "domain.pddl").read_text()
    start = saved.index("(:action put-down")
    block = saved[start:saved.index("(:action", start + 1)]
    assert block.count("\n") >= 4 and ":precondition" in block.splitlines()[1] + block.splitlines()[2]
    assert one_line not in saved
    win.close()


def test_the_benchmark_dialog_offers_all_and_none_and_shows_its_lists_and_baseline_whole(qtbot, tmp_path):
    domains = ["blocksworld", "gripper", "heavy-pack", "hiking", "logistics", "depot", "miconic",
               "track-building", "trap-newspapers"]
    dialog = BenchmarkDialog([("tiny", "tiny.gguf")], domains, results_path=tmp_path / "b.sqlite",
                             open_externally=False, settings=AppSettings(examples=2, k=9))
    qtbot.addWidget(dialog)
    dialog.resize(1280, 800)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.domain_list.verticalScrollBar().maximum() == 0           # all nine rows in view
    dialog.findChild(type(dialog.start_button), "domainsNone").click()
    assert dialog.spec().domains == () and not dialog.start_button.isEnabled()
    dialog.findChild(type(dialog.start_button), "domainsAll").click()
    assert dialog.spec().domains == tuple(domains)
    assert dialog.spec().examples == 2 and dialog.spec().k == 9              # the Settings' options
    assert dialog.baseline.viewport().height() >= 200
    assert dialog.baseline.horizontalScrollBar().maximum() == 0


def test_open_report_says_where_the_report_is_when_no_browser_starts(qtbot, tmp_path, monkeypatch):
    from PySide6.QtGui import QDesktopServices

    # a fake, for a fault a test cannot cause otherwise on a machine that has a browser launcher
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda _url: False))
    dialog = BenchmarkDialog([("tiny", "tiny.gguf")], ["blocksworld"], results_path=tmp_path / "b.sqlite")
    qtbot.addWidget(dialog)
    page = tmp_path / "b-report" / "report.html"
    dialog._on_report(page)
    assert str(page) in dialog.eta_label.text() and "open that file yourself" in dialog.eta_label.text()
    assert dialog.eta_label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse


def test_a_refused_accept_changes_nothing_and_loses_nothing(qtbot, bundles, tmp_path):
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "bw")
    win = AuthoringWindow(copy)
    qtbot.addWidget(win)
    win.select("put-down")
    qtbot.waitUntil(lambda: not win.saver.busy)
    attempts = len(copy.entry("put-down").attempts)
    bad = "(:action put-down :parameters (?x - block) :precondition (holding ?x) :effect (arm-empty))"
    win.editor.setPlainText(bad)
    assert not win.accept_selected() and "Not accepted: PAError" in win.status.text()
    assert len(copy.entry("put-down").attempts) == attempts and copy.entry("put-down").state == "reference"
    win.select("stack")                                   # away and back: the refused text is still there
    win.select("put-down")
    assert win.editor.toPlainText() == bad
    qtbot.waitUntil(lambda: not win.saver.busy and not copy.dirty, timeout=JOB_TIMEOUT_MS)
    assert not win.windowTitle().startswith("*")          # kept on disk as the text being edited
    assert WorkingCopy.open(tmp_path / "bw").entry("put-down").scratch == bad
    win.close()


def test_a_missing_parenthesis_also_names_where_the_innermost_open_one_starts(qtbot, window):
    from domain_drafter.core.classes import Subclass

    select(qtbot, window, "gripper", "pick")
    answer = "(:action pick :parameters (?obj - ball ?room - room ?g - gripper)\n  :effect (and (carry ?obj ?g)"
    window.answer_panel.editor.setPlainText(answer)
    run_job(qtbot, window, window.evaluate_action.trigger)
    [finding] = [f for f in window.result_panel.result.findings if f.subclass is Subclass.P_ERROR]
    assert "line 1, column 1 is never closed" in finding.message
    assert "innermost one still open starts at line 2, column 11" in finding.message
    assert finding.span == (answer.index("(and"), len(answer))     # underlined from there, not the whole answer
