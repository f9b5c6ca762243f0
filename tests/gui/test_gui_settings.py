"""Settings: a plain dataclass saved as JSON, edited in a dialog, applied to the engine; recent domains
and drag and drop of a domain folder or a domain.pddl."""

from __future__ import annotations

import json
import shutil

import pytest
from gui_helpers import JOB_TIMEOUT_MS, run_job
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.drafting.loop import Feedback
from domain_drafter.gui.dialogs.settings_dialog import SettingsDialog
from domain_drafter.gui.main.drops import dropped_domain
from domain_drafter.gui.state.settings import AppSettings, load_settings, save_settings, settings_path

CHANGED = AppSettings(model="/models/llama-2-13b.Q4_K_M.gguf", threads=6, prompt_format="chat", grammar=True, free_signature=True,
                      retries=2, feedback="plans", examples=1, max_new_tokens=200, k=20,
                      planner_time_limit_s=12.0, equivalence="paper", default_class="flipped", seed=7,
                      preload_model=False, search_guided=True)


def test_settings_round_trip_through_a_readable_json_file(private_homes):
    path = save_settings(CHANGED)
    assert path == settings_path() and path.parent.name == "domain-drafter"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["k"] == 20 and data["feedback"] == "plans"
    assert load_settings() == CHANGED


def test_missing_broken_or_out_of_range_values_fall_back_to_defaults(tmp_path):
    path = tmp_path / "settings.json"
    assert load_settings(path) == AppSettings()
    path.write_text("{not json", encoding="utf-8")
    assert load_settings(path) == AppSettings()
    path.write_text(json.dumps({"k": "many", "retries": 99, "threads": -3, "default_class": "poetic",
                                "feedback": "hints", "planner_time_limit_s": 5, "grammar": 1, "seed": 3,
                                "equivalence": "exact", "prompt_format": "instruct"}),
                    encoding="utf-8")
    loaded = load_settings(path)
    assert (loaded.k, loaded.retries, loaded.threads) == (100, 10, 0)
    assert loaded.default_class == "base" and loaded.feedback == "checks" and loaded.equivalence == "proven"
    assert loaded.prompt_format == "auto"
    assert loaded.planner_time_limit_s == 5.0 and loaded.grammar is False and loaded.seed == 3


def test_settings_become_the_engine_options():
    options = CHANGED.draft_options()
    assert options.description_class is DescriptionClass.FLIPPED and options.seed == 7
    assert options.examples == 1 and options.decoding.max_tokens == 200
    assert options.grammar and not options.lock_signature
    assert options.retries == 2 and options.feedback is Feedback.PLANS
    assert CHANGED.evaluation_options().k == 20 and CHANGED.evaluation_options().time_limit_s == 12.0
    assert CHANGED.evaluation_options().equivalence.value == "paper"
    assert CHANGED.draft_options(DescriptionClass.RANDOM, 3, False).description_class is DescriptionClass.RANDOM


def test_the_dialog_shows_and_returns_every_setting(qtbot):
    dialog = SettingsDialog(CHANGED)
    qtbot.addWidget(dialog)
    assert dialog.values() == CHANGED
    assert dialog.free_signature_check.isEnabled() and dialog.feedback_combo.isEnabled()
    dialog.k_spin.setValue(50)
    dialog.grammar_check.setChecked(False)
    assert not dialog.free_signature_check.isEnabled()
    dialog.retries_spin.setValue(0)
    assert not dialog.feedback_combo.isEnabled()
    assert dialog.values().k == 50
    dialog.buttons.button(dialog.buttons.StandardButton.RestoreDefaults).click()
    assert dialog.values() == AppSettings()


def test_accepting_the_dialog_saves_and_applies(qtbot, window):
    window.show_settings()
    dialog = window.settings_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.k_spin.setValue(7)
    dialog.time_spin.setValue(9)
    dialog.class_combo.setCurrentIndex(dialog.class_combo.findData("random"))
    dialog.seed_spin.setValue(4)
    dialog.grammar_check.setChecked(True)
    dialog.accept()
    assert load_settings().k == 7
    assert window.state.evaluator.options.k == 7 and window.state.evaluator.options.time_limit_s == 9.0
    assert window.description_panel.description_class() is DescriptionClass.RANDOM
    assert window.description_panel.seed() == 4 and window.grammar_check.isChecked()
    assert window.draft_options().grammar
    window.grammar_check.setChecked(False)   # the toolbar switch is the same setting
    assert load_settings().grammar is False
    settings_path().unlink()


def test_opened_domains_become_recent_domains(qtbot, window, tmp_path, bundles):
    folder = tmp_path / "my-gripper"
    shutil.copytree(bundles["gripper"].folder, folder)
    run_job(qtbot, window, lambda: window.open_domain_folder(folder))
    assert window.window_state.recent_domains()[0] == str(folder.resolve())
    window._fill_recent_menu()
    assert str(folder.resolve()) in [a.text() for a in window.recent_menu.actions()]


def drop(window, paths) -> QDropEvent:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(QPoint(50, 50)), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    return event


@pytest.mark.parametrize("what", ["folder", "domain.pddl"])
def test_dropping_a_domain_opens_it(qtbot, window, tmp_path, bundles, what):
    folder = tmp_path / "dropped"
    shutil.copytree(bundles["blocksworld"].folder, folder)
    target = folder if what == "folder" else folder / "domain.pddl"
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS) as ended:
        assert drop(window, [target]).isAccepted()
    assert ended.args == ["open", "finished"]
    assert window.current_bundle().folder == folder


def test_other_drops_are_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    mime = QMimeData()
    for paths in ([tmp_path / "notes.txt"], [tmp_path], [tmp_path / "a.pddl", tmp_path / "b.pddl"]):
        mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
        assert dropped_domain(mime) is None
