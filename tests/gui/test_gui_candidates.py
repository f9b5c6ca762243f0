"""Draft N candidates in the main and the authoring window, and File > Get a model…, on the real engine
(the tiny real GGUF, real checks and K*, offscreen Qt). N = 3 keeps it quick."""

from __future__ import annotations

from dataclasses import replace

from gui_helpers import JOB_TIMEOUT_MS, run_job, select
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from domain_drafter.core.model import TypedName
from domain_drafter.drafting.workspace import NewActionSpec, WorkingCopy
from domain_drafter.gui.authoring.window import AuthoringWindow
from domain_drafter.gui.editor.code_editor import normalized
from domain_drafter.gui.look.colours import current_scheme
from domain_drafter.gui.panels.candidates_panel import BadgeRole
from domain_drafter.gui.panels.result_display import badge_style
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.llm.models import ModelEntry

JOB_MS = 180_000


def use_tiny_model(window, tiny_model, **settings) -> None:
    window.add_model_file(tiny_model)
    window.state.update_settings(replace(window.app_settings, candidates=3, max_new_tokens=60, **settings),
                                 save=False)


def test_draft_n_lists_n_judged_candidates_and_picking_one_fills_the_editor(qtbot, window, tiny_model):
    select(qtbot, window, "gripper", "drop")
    use_tiny_model(window, tiny_model)
    action = window.toolbar.candidates_action
    assert action.isEnabled() and action in window.toolbar.actions()
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Run")
    assert action in run_menu.actions()
    panel = window.candidates.panel
    inserted: list[int] = []
    panel.model.rowsInserted.connect(lambda _p, first, _last: inserted.append(first))
    assert run_job(qtbot, window, action.trigger) == ("generate", "finished")
    assert inserted == [0, 1, 2]                 # one row as each candidate was judged
    assert window.candidates.dock.isVisible() and panel.model.rowCount() == 3 and panel.model.ranked
    ranked = panel.model.candidates
    assert [c.rank for c in ranked] == [1, 2, 3] and sorted(c.seed for c in ranked) == [0, 1, 2]
    assert all(c.evaluation is not None for c in ranked)
    assert [c.rank_key for c in ranked] == sorted(c.rank_key for c in ranked)
    for row, candidate in enumerate(ranked):     # the result panel's badge colours
        text, style = panel.model.index(row, 0).data(BadgeRole)
        assert style == badge_style(candidate.evaluation, current_scheme()) and text in panel.model.index(row, 0).data()
    assert panel.title.text().startswith("3 candidates for gripper / drop, best first")
    with qtbot.assertNotEmitted(window.runner.job_started, wait=200):   # shown as judged, not judged again
        picked = panel.pick(2)
    assert window.answer_panel.text() == normalized(picked.answer)
    assert window.result_panel.result is picked.evaluation and not window.runner.busy
    assert window.result_panel.badge.text().startswith(picked.evaluation.result_class.value)
    assert f"#{picked.rank}" in window.status_label.text()
    # another action: the list is no longer for it, and picking says so
    select(qtbot, window, "gripper", "pick")
    assert panel.model.rowCount() == 0


def test_stop_cancels_the_whole_batch(qtbot, window, tiny_model):
    select(qtbot, window, "gripper", "pick")
    use_tiny_model(window, tiny_model)
    window.state.update_settings(replace(window.app_settings, candidates=3, max_new_tokens=3000), save=False)
    window.toolbar.candidates_action.trigger()
    qtbot.waitUntil(lambda: "tokens" in window.status_label.text(), timeout=JOB_TIMEOUT_MS)
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS) as ended:
        window.stop_action.trigger()
    assert ended.args == ["generate", "cancelled"]
    assert window.candidates.panel.model.rowCount() == 0 and not window.candidates.panel.model.ranked


def test_sampled_candidates_come_from_the_settings(qtbot, window, tiny_model):
    select(qtbot, window, "gripper", "move")
    use_tiny_model(window, tiny_model, sample_candidates=True, candidate_temperature=1.0)
    window.description_panel.seed_spin.setValue(4)    # the seed chosen in the window
    assert run_job(qtbot, window, window.toolbar.candidates_action.trigger) == ("generate", "finished")
    ranked = window.candidates.panel.model.candidates
    assert all(c.sampled for c in ranked) and sorted(c.seed for c in ranked) == [4, 5, 6]
    assert "sample seed" in window.candidates.panel.model.index(0, 0).data()


GRIPPER_CASES = 20   # the bundled gripper's tests.toml


def authoring_window(qtbot, workspace, tiny_model) -> AuthoringWindow:
    state = AppState(AppSettings(preload_model=False, candidates=3, max_new_tokens=60))
    state.set_model(ModelEntry(tiny_model.stem, tiny_model, tiny_model.stat().st_size, "path"))
    win = AuthoringWindow(workspace, state)
    qtbot.addWidget(win)
    win.show()
    return win


def run_authoring_job(qtbot, win, click) -> str:
    with qtbot.waitSignal(win.job_ended, timeout=JOB_MS, check_params_cb=lambda k, _o: k == "draft") as blocker:
        click()
    return blocker.args[1]


def test_authoring_draft_n_records_the_picked_candidate_as_an_attempt(qtbot, tiny_model, bundles, tmp_path):
    copy = WorkingCopy.from_bundle(bundles["gripper"])
    copy.save(tmp_path / "g")
    win = authoring_window(qtbot, copy, tiny_model)
    win.select("drop")
    assert win.draft_n_button.isEnabled()
    assert run_authoring_job(qtbot, win, lambda: qtbot.mouseClick(win.draft_n_button, Qt.MouseButton.LeftButton)) \
        == "finished"
    panel = win.candidates.panel
    assert panel.model.rowCount() == 3 and win.tabs.currentWidget() is panel
    assert all(c.evaluation is not None for c in panel.model.candidates)   # a reference action: judged against it
    assert copy.entry("drop").attempts == []                               # nothing recorded before a pick
    picked = panel.pick(1)
    attempts = copy.entry("drop").attempts
    assert len(attempts) == 1 and attempts[0].text == picked.answer and attempts[0].source == "model"
    assert attempts[0].subclass == picked.subclass.value and attempts[0].options["seed"] == picked.seed
    assert win.history.count() == 1 and win.editor.toPlainText() == normalized(picked.answer)
    qtbot.waitUntil(lambda: len(WorkingCopy.open(tmp_path / "g").entry("drop").attempts) == 1,   # autosaved
                    timeout=JOB_MS)
    win.close()


def test_authoring_draft_n_of_a_new_action_ranks_without_a_reference(qtbot, tiny_model, bundles, tmp_path):
    copy = WorkingCopy.from_bundle(bundles["gripper"])
    copy.save(tmp_path / "g")
    win = authoring_window(qtbot, copy, tiny_model)
    win.state.update_settings(replace(win.state.settings, grammar=True, max_new_tokens=300), save=False)
    win.add_action(NewActionSpec("transfer", (TypedName("?obj", "ball"), TypedName("?from", "room"),
                                              TypedName("?to", "room"), TypedName("?g", "gripper")),
                                 "The robot carries ball {obj} in gripper {g} from room {from} to room {to}."))
    assert win.selected() == "transfer"
    assert run_authoring_job(qtbot, win, win.candidates.draft) == "finished"
    ranked = win.candidates.panel.model.candidates
    assert len(ranked) == 3 and all(c.evaluation is None for c in ranked)   # no reference: checks, problems
    assert all(c.passed_checks and c.solvable == (True, True) for c in ranked)  # the grammar held; adding keeps plans
    model = win.candidates.panel.model
    for row, c in enumerate(ranked):   # the domain's tests judged each one, and each row says how many pass
        assert c.tests_total == GRIPPER_CASES and f"tests: {c.tests_passed} of {GRIPPER_CASES} pass" in \
            model.index(row, 0).data()
    win.candidates.panel.pick(0)
    assert win.workspace.entry("transfer").attempts[-1].text == ranked[0].answer

    assert run_authoring_job(qtbot, win, lambda: qtbot.mouseClick(win.draft_button, Qt.MouseButton.LeftButton)) \
        == "finished"   # Draft on the new action: the same judge, its verdict in the attempt's message
    attempt = win.workspace.entry("transfer").attempts[-1]
    assert attempt.source == "model" and f"of {GRIPPER_CASES} pass" in attempt.message
    assert f"of {GRIPPER_CASES} pass" in win.status.text()
    win.close()


def test_get_a_model_opens_from_the_file_menu(qtbot, window, tiny_model, tmp_path, monkeypatch):
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    action = window.get_model_menu.action
    assert action in file_menu.actions() and action.text() == "Get a model…"
    action.trigger()
    dialog = window.get_model_menu.dialog
    assert dialog is not None and dialog.isVisible() and dialog.windowTitle() == "Get a model"
    assert dialog.table_model.rowCount() > 0
    action.trigger()
    assert window.get_model_menu.dialog is dialog          # one dialog at a time
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    installed = tmp_path / "models" / "fresh-model.gguf"   # as a finished download leaves it
    installed.parent.mkdir()
    installed.write_bytes(tiny_model.read_bytes())
    selected = window.current_model()
    dialog.model_installed.emit(installed)
    paths = [window.model_selector.itemData(row).path for row in range(window.model_selector.count())]
    assert installed in paths and window.current_model() == selected   # listed; the selection stays
    assert "Installed fresh-model.gguf" in window.status_label.text()
    dialog.model_installed.emit(installed)
    assert window.model_selector.count() == len(paths)    # no duplicate
    dialog.close()
    QApplication.processEvents()


def test_the_candidate_settings_have_one_set_of_defaults_and_round_trip_through_the_dialog(qtbot):
    from domain_drafter.drafting.candidate_options import CandidateOptions
    from domain_drafter.gui.dialogs.settings_dialog import SettingsDialog

    assert AppSettings().candidate_options() == CandidateOptions()
    edited = AppSettings(candidates=7, sample_candidates=True, candidate_temperature=0.5)
    dialog = SettingsDialog(edited)
    qtbot.addWidget(dialog)
    assert dialog.temperature_spin.isEnabled()
    assert dialog.values().candidate_options() == CandidateOptions(7, True, 0.5)
    dialog.sample_check.setChecked(False)
    assert not dialog.temperature_spin.isEnabled() and not dialog.values().sample_candidates
    assert AppSettings(candidates=99, candidate_temperature=0.0).checked().candidate_options() == \
        CandidateOptions(8, False, 0.05)


def test_judge_working_copy_follows_the_settings_equivalence_mode_and_state_budget(qtbot, tiny_model, bundles,
                                                                                   tmp_path, monkeypatch):
    from domain_drafter.planning.evaluate import Evaluator

    judged_with: list[tuple] = []      # (the judging Evaluator's options, its comparison), the real compare's
    real = Evaluator.compare

    def compare(self, bundle, domain, **kw):
        comparison = real(self, bundle, domain, **kw)
        judged_with.append((self.options, comparison))
        return comparison

    monkeypatch.setattr(Evaluator, "compare", compare)
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "b")
    win = authoring_window(qtbot, copy, tiny_model)
    win.select("put-down")      # put-down that also needs an empty hand: no plan puts a block down
    win.editor.setPlainText("(:action put-down :parameters (?x - block) :precondition (and (holding ?x) (handempty))"
                            " :effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))")
    qtbot.mouseClick(win.accept_button, Qt.MouseButton.LeftButton)

    def judged(**settings):
        win.state.update_settings(replace(win.state.settings, **settings), save=False)
        with qtbot.waitSignal(win.job_ended, timeout=JOB_MS, check_params_cb=lambda k, _o: k == "judge") as ended:
            qtbot.mouseClick(win.judge_button, Qt.MouseButton.LeftButton)
        assert ended.args[1] == "finished" and win.verdict.toPlainText().startswith("Working copy: Different")
        return judged_with[-1]

    options, comparison = judged(equivalence="proven", state_budget=100_000)
    assert comparison.proof is not None and "all 7 states reachable" in comparison.proof.reason
    options, comparison = judged(state_budget=2)          # the Settings' state budget reaches the proof
    assert options.state_budget == 2 and "state budget 2 reached" in comparison.proof.reason
    options, comparison = judged(equivalence="paper")     # the paper's heuristic: no proof at all
    assert options.equivalence.value == "paper" and comparison.proof is None and comparison.equivalence is not None
    assert len(judged_with) == 3
