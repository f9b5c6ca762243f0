"""Issue 15's findings, one test each: the settings reach the engine from every place that drafts,
windows do not block or break each other, the working copy changes only on the GUI thread, and a
settings save that fails is reported.

Real parts throughout: a tiny real GGUF on llama.cpp, the real evaluator and K*, real files. What the
engine receives is watched by engine_spy (the real calls go through unchanged).
"""

from __future__ import annotations

import shutil
import threading
import time

import pytest
from engine_spy import spy_on_engine
from gui_helpers import JOB_TIMEOUT_MS, open_main_window, run_job, select
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QMessageBox

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.prompt import build_prompt
from domain_drafter.drafting.loop import Feedback
from domain_drafter.drafting.workspace import NewActionSpec
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.llm.grammar import ActionGrammar


def chosen_settings(tiny_model, *, grammar: bool) -> AppSettings:
    """Every engine setting away from its default, so each one is seen arriving (or not)."""
    return AppSettings(model=str(tiny_model), preload_model=False, max_new_tokens=17, examples=1,
                       grammar=grammar, free_signature=grammar, k=7, planner_time_limit_s=9.0, retries=1,
                       feedback=Feedback.PLANS.value, default_class=DescriptionClass.FLIPPED.value, seed=5)



def open_authoring(window, folder):
    """Authoring > Draft this domain…, the working copy bound to `folder` (autosaved: closing asks nothing)."""
    window.authoring_action.trigger()
    authoring = window.authoring_windows[-1]
    authoring.workspace.save(folder)
    return authoring


def run_authoring_job(qtbot, authoring, kind: str, start) -> str:
    with qtbot.waitSignal(authoring.job_ended, timeout=JOB_TIMEOUT_MS * 4,
                          check_params_cb=lambda k, _o: k == kind) as ended:
        start()
    return ended.args[1]


def assert_drafted_with(calls, bundles, settings: AppSettings, action: str) -> None:
    """The first round's prompt and decoding, the corrective round, the evaluator: all from `settings`."""
    drafts = calls.drafting()
    prompt, decoding = drafts[0]
    expected = build_prompt(bundles["blocksworld"], action, list(bundles.values()), DescriptionClass.FLIPPED, 5,
                            1).text
    assert prompt == expected                                   # class, seed and examples
    assert decoding.max_tokens == settings.max_new_tokens
    if settings.grammar:                                       # free signature: the grammar lets parameters vary
        domain = bundles["blocksworld"].domain
        assert decoding.grammar == ActionGrammar(domain, action, lock_signature=False).to_gbnf()
    else:
        assert decoding.grammar is None
    assert len(drafts) == 2 and drafts[1][0].startswith(expected)   # one corrective round (17 tokens fail)
    assert calls.feedback == [Feedback.PLANS]
    assert calls.evaluations and {(e[0].k, e[1], e[2]) for e in calls.evaluations} == {(7, 7, 9.0)}


@pytest.mark.parametrize("grammar", [False, True], ids=["free-decoding", "grammar"])
def test_generate_sends_every_setting_to_the_engine(qtbot, private_homes, tiny_model, bundles, monkeypatch,
                                                     grammar):
    settings = chosen_settings(tiny_model, grammar=grammar)
    window = open_main_window(qtbot, settings)
    calls = spy_on_engine(monkeypatch)
    select(qtbot, window, "blocksworld", "stack")
    assert run_job(qtbot, window, window.generate_action.trigger) == ("generate", "finished")
    assert_drafted_with(calls, bundles, settings, "stack")
    window.close()


def test_show_prompt_shows_the_prompt_generate_sends(qtbot, private_homes, tiny_model, bundles, monkeypatch):
    window = open_main_window(qtbot, chosen_settings(tiny_model, grammar=False))
    calls = spy_on_engine(monkeypatch)
    select(qtbot, window, "blocksworld", "stack")
    window.prompt_action.trigger()
    shown = window.prompt_dialog.text_view.toPlainText()
    assert run_job(qtbot, window, window.generate_action.trigger) == ("generate", "finished")
    assert shown == calls.drafting()[0][0]
    assert "1 example" in window.prompt_dialog.summary.text() or shown.count("Allowed Predicates:") == 2
    window.close()


@pytest.mark.parametrize("grammar", [False, True], ids=["free-decoding", "grammar"])
def test_the_authoring_window_drafts_and_judges_with_the_settings(qtbot, private_homes, tiny_model, bundles,
                                                                  monkeypatch, grammar, tmp_path):
    settings = chosen_settings(tiny_model, grammar=grammar)
    window = open_main_window(qtbot, settings)
    calls = spy_on_engine(monkeypatch)
    authoring = open_authoring(window, tmp_path / "draft")
    authoring.select("stack")
    assert run_authoring_job(qtbot, authoring, "draft", authoring.draft_selected) == "finished"
    assert_drafted_with(calls, bundles, settings, "stack")
    calls.plans.clear()
    assert run_authoring_job(qtbot, authoring, "judge", authoring.judge) == "finished"
    assert calls.plans and set(calls.plans) == {(7, 9.0)}       # Judge working copy: k and the time limit
    authoring.close()
    window.close()


def test_new_action_drafts_with_the_settings_and_records_on_the_gui_thread(qtbot, private_homes, tiny_model,
                                                                            bundles, monkeypatch, tmp_path):
    window = open_main_window(qtbot, chosen_settings(tiny_model, grammar=True))
    calls = spy_on_engine(monkeypatch)
    assert window.domain_panel.select_domain("gripper")
    authoring = open_authoring(window, tmp_path / "draft")
    from domain_drafter.gui.authoring.jobs import parse_parameters

    authoring.add_action(NewActionSpec("transfer", parse_parameters("?obj - ball ?from ?to - room ?g - gripper"),
                                       "The robot carries {obj} from {from} to {to} in gripper {g}."))
    calls.attempts.clear()
    assert run_authoring_job(qtbot, authoring, "draft", authoring.draft_selected) == "finished"
    [(prompt, decoding)] = calls.drafting()
    assert decoding.max_tokens == 17 and decoding.grammar is not None
    assert prompt.count("Allowed Predicates:") == 2            # one example
    assert calls.attempts == [("transfer", threading.main_thread().name)]
    assert len(authoring.workspace.entry("transfer").attempts) == 1
    authoring.close()
    window.close()


def test_closing_the_authoring_window_does_not_wait_for_a_main_window_generation(qtbot, private_homes,
                                                                                  tiny_model, tmp_path):
    window = open_main_window(qtbot, AppSettings(model=str(tiny_model), preload_model=False, max_new_tokens=4000))
    select(qtbot, window, "gripper", "pick")
    authoring = open_authoring(window, tmp_path / "draft")
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS) as ended:
        window.generate_action.trigger()
        qtbot.waitUntil(lambda: len(window.answer_panel.text()) > 20, timeout=JOB_TIMEOUT_MS)
        started = time.monotonic()
        authoring.close()
        closing_s = time.monotonic() - started
        still_generating = window.runner.busy and QThreadPool.globalInstance().activeThreadCount() > 0
    assert closing_s < 0.5, f"closing the authoring window took {closing_s:.2f} s"
    assert still_generating
    assert tuple(ended.args) == ("generate", "finished")
    assert len(window.answer_panel.text()) > 200
    window.close()


def test_a_model_switch_during_draft_all_does_not_fail_the_draft(qtbot, private_homes, tiny_model, tmp_path):
    window = open_main_window(qtbot, AppSettings(model=str(tiny_model), preload_model=True))
    qtbot.waitUntil(lambda: window.model_status.loaded_model is not None and not window.model_status.busy,
                    timeout=JOB_TIMEOUT_MS)
    other = tmp_path / "other-tiny.gguf"
    shutil.copyfile(tiny_model, other)
    authoring = open_authoring(window, tmp_path / "draft")

    def states() -> list[str]:
        model = authoring.actions_model
        return [model.index(r, 1).data() for r in range(model.rowCount())]

    with qtbot.waitSignal(authoring.job_ended, timeout=JOB_TIMEOUT_MS * 4,
                          check_params_cb=lambda kind, _outcome: kind == "draft-all") as ended:
        authoring.draft_all()
        qtbot.waitUntil(lambda: states()[0] == "drafted", timeout=JOB_TIMEOUT_MS)
        window.add_model_file(other)                              # loads in the background, now
        qtbot.waitUntil(lambda: window.model_status.loaded_model is not None
                        and window.model_status.loaded_model.path == other, timeout=JOB_TIMEOUT_MS)
    assert tuple(ended.args) == ("draft-all", "finished"), authoring.status.text()
    assert states() == ["drafted"] * 4
    models = {a.model for e in authoring.workspace.entries.values() for a in e.attempts}
    assert models == {"llama.cpp:tiny-llama.gguf"}                # the draft kept its model to the end
    authoring.close()
    window.close()


def test_is_loaded_is_exact_for_the_default_model(qtbot, private_homes, tiny_model):
    window = open_main_window(qtbot, AppSettings(model=str(tiny_model), preload_model=True))
    status = window.model_status
    qtbot.waitUntil(lambda: status.loaded_model is not None and not status.busy, timeout=JOB_TIMEOUT_MS)
    tiny = window.current_model()
    window.model_selector.select_default()
    default = window.current_model()
    assert default.source == "default" and tiny.path == tiny_model
    assert status.is_loaded(tiny) and not status.is_loaded(default)
    window.close()


def test_a_failed_settings_save_is_reported(qtbot, window, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the config folder should be")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    with qtbot.waitSignal(window.error_reported, timeout=5_000) as reported:
        window.grammar_check.setChecked(not window.grammar_check.isChecked())
    [error] = reported.args
    assert isinstance(error, OSError) and str(blocker) in describe_error(error).text   # the exception itself
    box = window.findChild(QMessageBox, "errorBox")
    assert box is not None and "settings" in box.windowTitle().lower()
    box.close()
