"""Issue 41: what a walk through the desktop app found, each through the real windows (offscreen, real engine).

Defect 1 (quitting with a benchmark run going) is in test_gui_issue41_quit.py: it needs a process of its own.
"""

from __future__ import annotations

import json

from gui_helpers import JOB_TIMEOUT_MS, run_job, select
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from domain_drafter.core.paths import config_dir
from domain_drafter.gui.state.workers import JobKind, JobOutcome

PUT_DOWN = ("(:action put-down :parameters (?x - block) :precondition (holding ?x) "
            ":effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))")


def close_error_box(qtbot, window) -> str:
    """The error box the window opened (window-modal, not blocking): its text, then it is closed."""
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorBox") is not None, timeout=JOB_TIMEOUT_MS)
    box = window.findChild(QMessageBox, "errorBox")
    text = box.text()
    box.done(0)
    box.setObjectName("closed")
    return text


def not_a_model(tmp_path):
    path = tmp_path / "fake-model.gguf"
    path.write_text("this is not a model\n")
    return path


def test_generate_with_a_model_that_cannot_load_clears_nothing(qtbot, window, tmp_path):
    select(qtbot, window, "blocksworld", "put-down")
    window.answer_panel.set_text(PUT_DOWN)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == (JobKind.EVALUATE, JobOutcome.FINISHED)
    verdict = window.result_panel.badge.text()
    assert verdict != "Not evaluated"
    window.choose_model(window.state.model_for_file(not_a_model(tmp_path)))   # as the Settings' Model file would
    assert run_job(qtbot, window, window.generate_action.trigger) == (JobKind.GENERATE, JobOutcome.FAILED)
    assert "fake-model" in close_error_box(qtbot, window)
    assert window.answer_panel.text() == PUT_DOWN                     # the typed answer stays
    assert window.result_panel.badge.text() == verdict               # and its verdict
    assert window.result_panel.result is not None
    assert "Waiting for" not in window.answer_panel.editor.placeholderText()


def test_a_file_that_is_not_a_model_is_refused_and_not_remembered(qtbot, window, tmp_path):
    bad = not_a_model(tmp_path)
    before = window.state.model
    window.add_model_file(bad)                                        # File > Open model file… picked it
    text = close_error_box(qtbot, window)
    assert "starts with 'this', expected 'GGUF'" in text and "b'" not in text
    assert window.state.model == before                               # still the model it had
    assert all(e.path != bad for e in window.state.model_entries)     # not offered in the Model list
    settings = config_dir() / "settings.json"
    assert not settings.exists() or str(bad) not in json.loads(settings.read_text()).get("model", "")


def test_after_draft_until_proven_the_result_panel_shows_the_best_answers_verdict(qtbot, window, tiny_model):
    from test_gui_search import use_tiny_model

    from domain_drafter.gui.editor.code_editor import normalized
    from domain_drafter.gui.panels.candidates_panel import candidate_badge

    select(qtbot, window, "blocksworld", "put-down")
    use_tiny_model(window, tiny_model, search_budget=3, search_width=2)
    assert run_job(qtbot, window, window.toolbar.search_action.trigger) == ("generate", "finished")
    listed = window.candidates.panel.model.candidates
    best = listed[0]
    badge = candidate_badge(best)[0]
    assert window.answer_panel.text() == normalized(best.answer)          # the best answer is in the editor
    shown = window.result_panel.badge.text()
    assert shown != "Not evaluated" and shown.endswith(badge)           # with its verdict
    status = window.status_label.text()
    if best.evaluation is None or best.evaluation.subclass is None or best.evaluation.subclass.value != "Equivalent":
        assert status.endswith(f"best so far: {badge}")                   # the status line names the list's first


# pick-up that never needs (clear ?x): a block with another on it can be picked up
PICK_UP_UNCLEAR = ("(:action pick-up :parameters (?x - block) :precondition (and (ontable ?x) (handempty)) "
                   ":effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))")


def judge_unclear_pick_up(qtbot, window) -> None:
    select(qtbot, window, "blocksworld", "pick-up")
    window.answer_panel.set_text(PICK_UP_UNCLEAR)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == (JobKind.EVALUATE, JobOutcome.FINISHED)
    assert window.result_panel.proof_view.counterexample is not None


def test_a_test_kept_in_the_main_window_reaches_an_open_authoring_window_at_once(qtbot, window, tmp_path,
                                                                                monkeypatch):
    from PySide6.QtCore import Qt

    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    copy = tmp_path / "data" / "domains" / "blocksworld" / "tests.toml"
    select(qtbot, window, "blocksworld", "pick-up")
    window.authoring_action.trigger()                                   # Authoring > Draft this domain…
    authoring = window.authoring_windows[-1]
    qtbot.waitUntil(lambda: authoring.tests.last is not None, timeout=JOB_TIMEOUT_MS)
    before = len(authoring.tests.last.tests.cases)
    assert "from " in authoring.tests.panel.summary.text() and str(copy) not in authoring.tests.panel.summary.text()
    judge_unclear_pick_up(qtbot, window)
    with qtbot.waitSignal(window.verdict_tests.writer.saved, timeout=JOB_TIMEOUT_MS) as saved:
        qtbot.mouseClick(window.result_panel.proof_view.keep_button, Qt.MouseButton.LeftButton)
    assert saved.args == [copy]
    qtbot.waitUntil(lambda: str(copy) in authoring.tests.panel.summary.text(), timeout=JOB_TIMEOUT_MS)
    assert len(authoring.tests.last.tests.cases) > before               # the kept case is listed there
    assert authoring.tests.path == copy == window.state.tests_file(window.state.bundle)   # one file, in the state
    authoring.close()


def test_compare_with_reference_shows_the_verdict_tab(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    window.authoring_action.trigger()
    authoring = window.authoring_windows[-1]
    qtbot.waitUntil(authoring.isVisible)
    authoring.tabs.setCurrentWidget(authoring.descriptions_editor)     # another tab in front
    authoring.select("pick")
    authoring.compare_button.click()
    assert authoring.tabs.currentWidget() is authoring.verdict
    assert authoring.verdict.toPlainText().strip()
    authoring.close()


def test_the_main_window_opens_the_domains_tests(qtbot, window):
    select(qtbot, window, "blocksworld", "pick-up")
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Authoring")
    item = next(a for a in menu.actions() if a.text() == "Domain tests")
    item.trigger()
    dock = window.domain_tests.dock
    assert dock.isVisible() and window.domain_tests.panel.isVisible()
    panel = window.domain_tests.panel
    qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=JOB_TIMEOUT_MS)
    assert "blocksworld" in dock.windowTitle() and "pass" in panel.summary.text()
    assert panel.run_button.isVisible() and panel.new_button.isVisible()
    select(qtbot, window, "gripper", "pick")                           # another domain: its tests
    qtbot.waitUntil(lambda: "gripper" in dock.windowTitle() and "gripper" in panel.summary.text(),
                    timeout=JOB_TIMEOUT_MS)


def test_the_new_case_form_from_must_never_happen_is_wide_enough_to_read(qtbot, window):
    from PySide6.QtCore import Qt

    judge_unclear_pick_up(qtbot, window)
    view = window.result_panel.proof_view
    qtbot.mouseClick(view.never_button, Qt.MouseButton.LeftButton)
    atoms = window.verdict_tests.cases.atoms_dialog
    qtbot.waitUntil(lambda: atoms is not None and atoms.isVisible())
    atoms.accept()
    form = window.verdict_tests.writer.dialog
    qtbot.waitUntil(lambda: form is not None and form.isVisible())
    for field in (form.name, form.fields["state"]):
        needed = field.fontMetrics().horizontalAdvance(field.text()) + 16
        assert field.width() >= needed, (field.text(), field.width(), needed)   # the whole text in view
    form.reject()


def test_while_generating_the_result_heading_badge_and_message_stay_together_at_the_top(qtbot, window):
    select(qtbot, window, "blocksworld", "put-down")
    panel = window.result_panel
    panel.show_working("Generating with tiny-llama…")
    qtbot.wait(50)
    gap = panel.message.geometry().top() - panel.badge.geometry().bottom()
    assert 0 <= gap <= panel.badge.height(), gap                    # the message right under the badge
    assert panel.message.geometry().bottom() < panel.height() // 2


def test_candidate_labels_are_shown_whole(qtbot, window, tiny_model):
    from test_gui_search import use_tiny_model

    from domain_drafter.gui.panels.candidates_panel import candidate_details

    select(qtbot, window, "blocksworld", "put-down")
    use_tiny_model(window, tiny_model, search_budget=2, search_width=2)
    assert run_job(qtbot, window, window.toolbar.search_action.trigger) == ("generate", "finished")
    view = window.candidates.panel.view
    qtbot.wait(50)
    metrics = view.fontMetrics()
    for row in range(view.model().rowCount()):
        index = view.model().index(row, 0)
        rect = view.visualRect(index)
        details = candidate_details(view.model().candidate(row))
        bound = metrics.boundingRect(0, 0, rect.width() - 12, 10_000, int(Qt.TextFlag.TextWordWrap), details)
        assert rect.height() >= bound.height() + metrics.height(), (details, rect, bound)   # room for all of it


def test_keep_as_test_says_where_in_a_status_line_that_fits(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data" / "a-rather-long-folder-name-for-the-data"))
    judge_unclear_pick_up(qtbot, window)
    with qtbot.waitSignal(window.verdict_tests.writer.saved, timeout=JOB_TIMEOUT_MS) as saved:
        qtbot.mouseClick(window.result_panel.proof_view.keep_button, Qt.MouseButton.LeftButton)
    label = window.status_label
    qtbot.wait(50)
    assert "Case saved" in label.text() and saved.args[0].name in label.text()
    assert label.fontMetrics().horizontalAdvance(label.shown()) <= label.width(), label.shown()  # not cut off
    assert str(saved.args[0]) in label.toolTip()                              # the whole path on hover


def test_an_applicable_case_after_one_step_says_step(qtbot, window, tmp_path):
    import shutil

    from domain_drafter.core.bundle import bundled_root

    folder = tmp_path / "blocks"
    shutil.copytree(bundled_root() / "blocksworld", folder)
    with (folder / "tests.toml").open("a") as f:
        f.write('\n[cases.put-down-after-one]\nproblem = "p01"\nkind = "applicable"\n'
                'after = ["(pick-up b)"]\naction = "(put-down b)"\n')
    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == (JobKind.OPEN, JobOutcome.FINISHED)
    window.domain_tests.show()
    panel = window.domain_tests.panel
    qtbot.waitUntil(lambda: panel.model.row_of("put-down-after-one") >= 0
                    and bool(panel.model.row(panel.model.row_of("put-down-after-one")).message), timeout=JOB_TIMEOUT_MS)
    message = panel.model.row(panel.model.row_of("put-down-after-one")).message
    assert message.endswith("after 1 step"), message


def test_llamas_note_after_an_aborted_decode_is_not_printed_after_a_generation(qtbot, window, tiny_model, capfd):
    import ctypes

    import llama_cpp
    from test_gui_search import use_tiny_model

    select(qtbot, window, "blocksworld", "put-down")
    use_tiny_model(window, tiny_model, search_budget=1, search_width=1)
    assert run_job(qtbot, window, window.toolbar.search_action.trigger) == ("generate", "finished")
    callback, user = llama_cpp.llama_log_callback(), ctypes.c_void_p()
    llama_cpp.llama_log_get(ctypes.byref(callback), ctypes.byref(user))   # what llama.cpp logs through now
    capfd.readouterr()
    callback(3, b"decode: removing memory module entries for seq_id = 0, pos = [37, +inf)\n", None)
    assert "removing memory module entries" not in capfd.readouterr().err
    callback(3, b"llama_model_load: a real problem\n", None)                   # anything else still reaches stderr
    assert "a real problem" in capfd.readouterr().err


def wrapped_lines(editor) -> list[list[str]]:
    """Each block's lines as the editor draws them."""
    out, block = [], editor.document().firstBlock()
    while block.isValid():
        layout, text = block.layout(), block.text()
        out.append([text[layout.lineAt(i).textStart():layout.lineAt(i).textStart() + layout.lineAt(i).textLength()]
                    for i in range(layout.lineCount())])
        block = block.next()
    return out


def test_soft_wrap_never_splits_a_term_in_the_editors_or_the_diff_panes(qtbot, window):
    from domain_drafter.gui.editor.term_wrap import safe_break

    window.showNormal()
    window.resize(1100, 760)
    select(qtbot, window, "gripper", "pick")
    long = ("(:action pick :parameters (?obj - ball ?room - room ?gripper - gripper) :precondition (and (at ?obj ?room) "
            "(at-robby ?room) (free ?gripper)) :effect (and (carry ?obj ?gripper) (not (at ?obj ?room)) "
            "(not (free ?gripper)) (not (free ?gripper))))")
    window.answer_panel.set_text(long)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == (JobKind.EVALUATE, JobOutcome.FINISHED)
    window.candidates.dock.show()                                        # the Candidates dock narrows the panes
    window.result_panel.tabs.setCurrentIndex(1)                          # Diff (ARE)
    seen = 0
    for width in range(260, 700, 37):
        for editor in (window.answer_panel.editor, window.result_panel.reference_view,
                       window.result_panel.generated_view):
            editor.setFixedWidth(width)
            editor.grab()                                                # laid out and drawn at that width
            for lines in wrapped_lines(editor):
                seen += len(lines) > 1
                for line in lines[:-1]:
                    assert not line.rstrip().endswith(("?", " -")) and line.endswith(" "), (width, lines)
                    assert safe_break(line + "x", len(line))
    assert seen > 10                                                     # lines did wrap


def test_a_model_file_setting_that_is_not_a_model_is_refused_and_not_kept(qtbot, window, tmp_path):
    from dataclasses import replace

    bad = not_a_model(tmp_path)
    before = window.state.model
    window.apply_settings(replace(window.app_settings, model=str(bad)))   # Settings > Model file
    assert "starts with 'this'" in close_error_box(qtbot, window)
    assert window.app_settings.model != str(bad) and window.state.model == before
    settings = config_dir() / "settings.json"
    assert not settings.exists() or str(bad) not in json.loads(settings.read_text()).get("model", "")
