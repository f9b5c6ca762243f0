"""Draft until proven in the main window, on the real engine (the tiny real GGUF, the real proof, offscreen Qt):
its budget comes from Settings, every answer is listed with its score as it is judged, any one can be picked."""

from __future__ import annotations

from dataclasses import replace

from gui_helpers import JOB_TIMEOUT_MS, run_job, select

from domain_drafter.gui.editor.code_editor import normalized
from domain_drafter.gui.state.settings import AppSettings, load_settings, save_settings


def use_tiny_model(window, tiny_model, **settings) -> None:
    from test_gui_candidates import use_tiny_model as use_it  # 60 new tokens at most

    use_it(window, tiny_model, grammar=True, **settings)


def test_draft_until_proven_lists_every_answer_with_its_score_and_picking_fills_the_editor(qtbot, window,
                                                                                           tiny_model):
    select(qtbot, window, "blocksworld", "put-down")
    use_tiny_model(window, tiny_model, search_budget=4, search_width=2)
    action = window.toolbar.search_action
    assert action.isEnabled() and action in window.toolbar.actions()
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Run")
    assert action in run_menu.actions()
    panel = window.candidates.panel
    inserted: list[int] = []
    panel.model.rowsInserted.connect(lambda _p, first, _last: inserted.append(first))
    assert run_job(qtbot, window, action.trigger) == ("generate", "finished")
    answers = panel.model.candidates
    fixes = [c for c in answers if "quick fix of #" in c.origin]    # written by the repair, not by a call
    assert len(answers) - len(fixes) == 4                           # one row per model call, and per quick fix
    assert inserted == list(range(len(answers)))                    # each as it is judged
    assert [c.rank for c in answers] == list(range(1, len(answers) + 1))
    assert all(c.score is not None and c.origin.startswith("call ") for c in answers)
    assert sum(1 for c in answers if "root" in c.origin and c not in fixes) == 2
    assert "score" in panel.model.index(0, 0).data() and "call " in panel.model.index(0, 0).data()
    assert panel.title.text().startswith("Not proven after 4 model calls for blocksworld / put-down")
    picked = panel.pick(3)
    assert window.answer_panel.text() == normalized(picked.answer)
    assert window.result_panel.result is picked.evaluation
    if picked.evaluation.proof is not None and picked.evaluation.proof.score is not None \
            and picked.evaluation.subclass.value != "Equivalent":
        assert "Score: agrees on" in window.result_panel.message.text()


def test_the_search_budget_is_a_setting_that_survives_a_restart(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(replace(AppSettings(), search_budget=24, search_feedback="checks"), path)
    loaded = load_settings(path)
    assert (loaded.search_budget, loaded.search_feedback) == (24, "checks")
    options = loaded.search_options()
    assert options.budget == 24 and options.feedback.value == "checks"
    assert replace(AppSettings(), search_budget=0).checked().search_budget == 1   # never below 1
    assert not options.forbid_removed
    save_settings(replace(loaded, search_guided=True), path)
    assert load_settings(path).search_options().forbid_removed     # Guided reaches Draft until proven
    assert load_settings(path).search_options().refuse_judged


def test_stop_ends_the_search_and_keeps_the_answers_so_far(qtbot, window, tiny_model):
    select(qtbot, window, "gripper", "pick")
    use_tiny_model(window, tiny_model, search_budget=50, search_width=2)
    window.toolbar.search_action.trigger()
    panel = window.candidates.panel
    qtbot.waitUntil(lambda: panel.model.rowCount() >= 1, timeout=JOB_TIMEOUT_MS)
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS):
        window.stop_action.trigger()
    assert panel.model.rowCount() >= 1
    assert panel.title.text().startswith("Not proven after") and "stopped" in panel.title.text()


def test_authoring_draft_until_proven_fills_the_candidates_tab_and_a_pick_becomes_an_attempt(qtbot, tiny_model,
                                                                                            bundles, tmp_path):
    from PySide6.QtCore import Qt
    from test_gui_candidates import authoring_window, run_authoring_job

    from domain_drafter.drafting.workspace import WorkingCopy

    copy = WorkingCopy.from_bundle(bundles["gripper"])
    copy.save(tmp_path / "g")
    win = authoring_window(qtbot, copy, tiny_model)
    win.state.update_settings(replace(win.state.settings, search_budget=3, search_width=2), save=False)
    win.select("drop")
    button = win.candidates.search_button
    assert button.isVisible() and button.isEnabled()
    # in the row of buttons, right after Draft N, as wide as its neighbours (not a row of its own)
    row = win.button_row
    assert row.indexOf(button) == row.indexOf(win.draft_n_button) + 1
    assert button.geometry().top() == win.draft_n_button.geometry().top()
    assert button.width() < 2 * win.draft_n_button.width()
    assert run_authoring_job(qtbot, win, lambda: qtbot.mouseClick(button, Qt.MouseButton.LeftButton)) == "finished"
    panel = win.candidates.panel
    assert panel.model.rowCount() == 3 and win.tabs.currentWidget() is panel
    assert all(c.score is not None and c.origin.startswith("call ") for c in panel.model.candidates)
    panel.pick(0)
    assert len(copy.entry("drop").attempts) == 1
