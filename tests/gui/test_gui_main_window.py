"""The main window end to end: real bundles, real checks, the real K* planner, a tiny real model."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace

from gui_helpers import JOB_TIMEOUT_MS, run_job, select
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtGui import QTextCharFormat
from PySide6.QtWidgets import QMessageBox

from domain_drafter.core.bundle import bundled_names
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.descriptions import DescriptionClass, describe_action
from domain_drafter.core.errors import ModelError, PddlSyntaxError
from domain_drafter.core.prompt import build_prompt
from domain_drafter.gui.editor.code_editor import MarkKind, normalized
from domain_drafter.gui.panels.item_models import FailingRole
from domain_drafter.gui.panels.result_display import BADGE_STYLES
from domain_drafter.gui.state.errors import describe_error


def badge_colour(window) -> str:
    """The badge's background as rendered (a pixel inside its padding)."""
    image = window.result_panel.badge.grab().toImage()
    return image.pixelColor(5, image.height() // 2).name()


def reference_text(window, action: str) -> str:
    return window.current_bundle().domain.action(action).to_pddl(indent="")


def test_window_lists_the_nine_bundled_domains_and_the_default_model(window):
    assert window.domain_panel.domain_names() == bundled_names()
    assert len(bundled_names()) == 9
    default = window.current_model()
    assert default is not None and default.source == "default"
    assert window.current_bundle().name == "blocksworld" and window.current_action() == "pick-up"
    assert window.generate_action.isEnabled() and window.evaluate_action.isEnabled()
    assert not window.stop_action.isEnabled()


def test_selecting_a_domain_fills_the_actions_and_the_predicate_table(qtbot, window):
    assert window.domain_panel.select_domain("gripper")
    assert window.domain_panel.action_names() == ["move", "pick", "drop"]
    assert window.current_action() == "move"
    model = window.description_panel.predicate_model
    rows = {model.data(model.index(r, 0)): model.data(model.index(r, 1)) for r in range(model.rowCount())}
    assert rows == {"(at-robby ?room - room)": "the robot is in room ?room",
                    "(at ?obj - ball ?room - room)": "ball ?obj is in room ?room",
                    "(free ?g - gripper)": "gripper ?g is free",
                    "(carry ?obj - ball ?g - gripper)": "gripper ?g is carrying ball ?obj"}
    assert "gripper / move" in window.windowTitle()


def test_class_and_seed_change_the_description(qtbot, window, bundles):
    select(qtbot, window, "blocksworld", "unstack")
    panel = window.description_panel
    bundle = bundles["blocksworld"]

    def expected(cls: DescriptionClass, seed: int) -> str:
        return describe_action(bundle.domain, bundle.descriptions, "unstack", cls, seed)

    assert panel.description() == expected(DescriptionClass.BASE, 0)
    panel.set_description_class(DescriptionClass.FLIPPED)
    assert panel.description() == expected(DescriptionClass.FLIPPED, 0) != expected(DescriptionClass.BASE, 0)
    panel.set_description_class(DescriptionClass.RANDOM)
    seeds = [s for s in range(1, 20) if expected(DescriptionClass.RANDOM, s) != expected(DescriptionClass.RANDOM, 0)]
    assert panel.description() == expected(DescriptionClass.RANDOM, 0)
    panel.seed_spin.setValue(seeds[0])
    assert panel.description() == expected(DescriptionClass.RANDOM, seeds[0])


def test_a_pasted_reference_action_is_equivalent_with_a_green_badge_and_are_0(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText(reference_text(window, "pick"))
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    panel = window.result_panel
    assert panel.badge.text() == "Equivalent"
    assert badge_colour(window) == BADGE_STYLES[ResultClass.EQUIVALENT].background
    assert panel.are_model.total == 0 and "ARE 0" in panel.are_total.text()
    assert not panel.counterexample_box.isVisible()
    assert window.answer_panel.editor.extraSelections() == []
    assert window.answer_panel.finding_model.rowCount() == 0


def test_an_undefined_predicate_is_a_paerror_underlined_at_its_span(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    answer = "Sure! Here it is:\n" + reference_text(window, "pick").replace("(free ?g)", "(empty ?g)", 1)
    window.answer_panel.editor.setPlainText(answer)
    with qtbot.waitSignal(window.result_shown, timeout=JOB_TIMEOUT_MS) as shown:
        window.evaluate_action.trigger()
    result = shown.args[0]
    assert window.result_panel.badge.text() == "Semantic error · PAError"
    assert badge_colour(window) == BADGE_STYLES[ResultClass.SEMANTIC_ERROR].background
    start, end = result.findings[0].span
    assert answer[start:end] == "(empty ?g)"
    wavy = [s for s in window.answer_panel.editor.extraSelections()
            if s.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline]
    assert [(s.cursor.selectionStart(), s.cursor.selectionEnd()) for s in wavy] == [(start, end)]
    findings = window.answer_panel.finding_model
    assert findings.data(findings.index(0, 0)).startswith("PAError: (empty ?g) uses the predicate 'empty'")
    window.answer_panel.finding_list.clicked.emit(findings.index(0, 0))
    assert window.answer_panel.editor.textCursor().selectedText() == "(empty ?g)"
    # editing the text drops the underline: its span no longer fits
    window.answer_panel.editor.textCursor().insertText("(free ?g)")
    assert window.answer_panel.editor.extraSelections() == []
    assert "edited" in window.result_panel.message.text()


def test_a_mutant_is_opapp_with_the_failing_plan_step_highlighted(qtbot, window):
    window.state.update_settings(replace(window.app_settings, equivalence="paper"), save=False)   # plan heuristic
    select(qtbot, window, "gripper", "pick")
    mutant = reference_text(window, "pick").replace("(free ?g)", "(free ?g) (free left)", 1)
    window.answer_panel.editor.setPlainText(mutant)
    run_job(qtbot, window, window.evaluate_action.trigger)
    panel = window.result_panel
    assert panel.badge.text() == "Different domain · OPApp"
    assert badge_colour(window) == BADGE_STYLES[ResultClass.DIFFERENT_DOMAIN].background
    cx = panel.result.equivalence.counterexample
    plan = panel.plan_model
    failing = [r for r in range(plan.rowCount()) if plan.data(plan.index(r, 0), FailingRole)]
    assert failing == [cx.validation.step - 1]
    row = plan.index(failing[0], 0)
    assert plan.data(row) == f"{cx.validation.step}. {cx.plan[failing[0]]}  ✗"
    assert plan.data(row, Qt.ItemDataRole.BackgroundRole) is not None
    assert "(free left)" in panel.plan_reason.text() and panel.counterexample_box.isVisible()
    assert panel.are_model.total == 1
    extra = [m for m in panel.generated_view.marks if m.kind is MarkKind.EXTRA]
    lines = panel.generated_view.toPlainText().splitlines()
    assert [lines[m.line].strip() for m in extra] == ["(free left)"]
    assert [m for m in panel.reference_view.marks] == []


def test_show_prompt_opens_the_exact_prompt(qtbot, window, bundles):
    select(qtbot, window, "blocksworld", "stack")
    window.description_panel.set_description_class(DescriptionClass.FLIPPED)
    window.prompt_action.trigger()
    dialog = window.prompt_dialog
    assert dialog is not None and dialog.isVisible()
    expected = build_prompt(bundles["blocksworld"], "stack", list(bundles.values()), DescriptionClass.FLIPPED, 0)
    assert dialog.text_view.toPlainText() == expected.text


def test_each_action_keeps_its_answer_and_verdict(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText(reference_text(window, "pick"))
    run_job(qtbot, window, window.evaluate_action.trigger)
    window.domain_panel.select_action("drop")
    assert window.answer_panel.text() == "" and window.result_panel.result is None
    window.domain_panel.select_action("pick")
    assert window.answer_panel.text() == reference_text(window, "pick")
    assert window.result_panel.badge.text() == "Equivalent"


def test_generate_streams_the_tiny_model_into_the_editor_and_ends_with_a_badge(qtbot, window, tiny_model):
    select(qtbot, window, "blocksworld", "put-down")
    window.add_model_file(tiny_model)
    assert window.current_model().path == tiny_model
    with qtbot.waitSignal(window.result_shown, timeout=JOB_TIMEOUT_MS) as shown:
        window.generate_action.trigger()
    final = shown.args[0]
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=JOB_TIMEOUT_MS)
    assert window.drafts.streamed_text == final.answer and final.answer
    assert window.answer_panel.text() == normalized(final.answer)
    assert window.result_panel.badge.text().startswith(final.result_class.value)
    assert "tokens" in window.status_label.text()


def test_generate_with_the_grammar_gives_a_well_formed_action(qtbot, window, tiny_model):
    select(qtbot, window, "gripper", "drop")
    window.add_model_file(tiny_model)
    window.grammar_check.setChecked(True)
    assert run_job(qtbot, window, window.generate_action.trigger) == ("generate", "finished")
    result = window.result_panel.result
    assert result.result_class in (ResultClass.DIFFERENT_DOMAIN, ResultClass.EQUIVALENT)
    assert window.answer_panel.text().lstrip().startswith("(:action drop")
    assert window.result_panel.are_model.total is not None


def start_long_generation(qtbot, window, tiny_model) -> None:
    """A generation of up to 2000 tokens (about a second on the tiny model), seen streaming."""
    select(qtbot, window, "gripper", "pick")
    window.add_model_file(tiny_model)
    window.state.update_settings(replace(window.app_settings, max_new_tokens=2000), save=False)
    window.generate_action.trigger()
    qtbot.waitUntil(lambda: len(window.answer_panel.text()) > 0, timeout=JOB_TIMEOUT_MS)
    assert window.runner.busy and window.stop_action.isEnabled()
    assert window.answer_panel.editor.isReadOnly()


def test_stop_cancels_a_generation_within_a_second(qtbot, window, tiny_model):
    start_long_generation(qtbot, window, tiny_model)
    started = time.monotonic()
    with qtbot.waitSignal(window.job_ended, timeout=JOB_TIMEOUT_MS) as ended:
        window.stop_action.trigger()
    assert time.monotonic() - started < 1.0
    assert ended.args == ["generate", "cancelled"]
    assert window.answer_panel.text()   # the partial answer stays
    assert "Stopped" in window.result_panel.message.text() and window.result_panel.result is None
    assert window.generate_action.isEnabled() and not window.answer_panel.editor.isReadOnly()


def test_closing_during_a_generation_leaves_no_worker_running(qtbot, window, tiny_model):
    start_long_generation(qtbot, window, tiny_model)
    started = time.monotonic()
    window.close()
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    assert time.monotonic() - started < 2.0
    assert not window.isVisible()


def test_no_worker_is_left_after_a_plain_close(qtbot, window):
    window.close()
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def test_opening_a_folder_with_a_syntax_error_reports_file_line_and_column(qtbot, window, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "domain.pddl").write_text(
        "(define (domain broken)\n"
        "  (:requirements :strips)\n"
        "  (:predicates (p ?x) (q ?x))\n"
        "  (:action a\n"
        "    :parameters (?x)\n"
        "    :precondition (and (p ?x)\n"
        "    :effect (q ?x)))\n", encoding="utf-8")
    with qtbot.waitSignal(window.error_reported, timeout=JOB_TIMEOUT_MS) as reported:
        window.open_domain_folder(folder)
    location = f"{folder / 'domain.pddl'}:7:5"
    [error] = reported.args
    assert isinstance(error, PddlSyntaxError) and str(error.where) == location
    assert describe_error(error).message.startswith(f"{location}: unexpected ':effect'")
    box = window.findChild(QMessageBox, "errorBox")
    assert box is not None and box.isVisible() and location in box.text()
    box.close()
    assert window.domain_panel.domain_count() == 9


def test_opening_a_good_folder_adds_and_selects_it(qtbot, window, tmp_path, bundles):
    folder = tmp_path / "my-gripper"
    shutil.copytree(bundles["gripper"].folder, folder)
    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == ("open", "finished")
    assert window.domain_panel.domain_names()[-1] == "my-gripper"
    assert window.current_bundle().folder == folder and window.current_action() == "move"
    assert window.description_panel.predicate_model.rowCount() == 4


def test_a_model_that_cannot_load_is_reported_and_leaves_no_verdict(qtbot, window, tmp_path):
    select(qtbot, window, "blocksworld", "stack")
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"this is not a model" * 100)
    window.choose_model(window.state.model_for_file(junk))   # a Model file setting of old: Open model file refuses it
    with qtbot.waitSignal(window.error_reported, timeout=JOB_TIMEOUT_MS) as reported:
        window.generate_action.trigger()
    [error] = reported.args
    assert isinstance(error, ModelError) and str(junk) in describe_error(error).text
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=JOB_TIMEOUT_MS)
    assert window.result_panel.result is None and "No verdict" in window.result_panel.message.text()
    box = window.findChild(QMessageBox, "errorBox")
    assert box is not None and box.windowTitle() == "Generation failed"
    assert "Settings ▸ Model file" in box.text()   # which setting to change
    box.close()


def test_generate_without_any_model_reports_a_model_error_object(qtbot, window):
    select(qtbot, window, "blocksworld", "stack")
    window.state.set_model(None)
    with qtbot.waitSignal(window.error_reported, timeout=5_000) as reported:
        window.generate()
    [error] = reported.args
    assert isinstance(error, ModelError) and "no model to use" in error.what
    box = window.findChild(QMessageBox, "errorBox")
    assert box is not None and box.windowTitle() == "No model" and "Open model file" in box.text()
    assert not window.runner.busy
    box.close()
