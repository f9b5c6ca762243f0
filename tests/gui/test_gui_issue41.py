"""Issue 41: what a walk through the desktop app found, each through the real windows (offscreen, real engine).

Defect 1 (quitting with a benchmark run going) is in test_gui_issue41_quit.py: it needs a process of its own.
"""

from __future__ import annotations

import json

from gui_helpers import JOB_TIMEOUT_MS, run_job, select
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
