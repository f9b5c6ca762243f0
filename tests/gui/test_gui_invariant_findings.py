"""Issue 37 in the app: the invariant findings on a judged answer, underlined in the editor with the state where
they show and listed in the Tests panel, where Dismiss saves with the domain and Restore brings them back.

Real parts: the main window offscreen, the real evaluator and invariant judge in the window's worker, real files
in a private data folder (the bundled gripper is read-only: its dismissals go to the user's copy). Then the
starter cases of a domain without tests: offered in the Tests panel, kept, run, and failing on a wrong pick.
"""

from __future__ import annotations

import shutil
import threading

from gui_helpers import JOB_TIMEOUT_MS, run_job, select
from PySide6.QtCore import Qt, QThreadPool
from pytestqt.exceptions import TimeoutError as QtTimeoutError

from domain_drafter.core.bundle import bundled_root
from domain_drafter.core.dismissals import read_dismissals
from domain_drafter.gui.editor.code_editor import MarkKind
from domain_drafter.planning.tests_report import Verdict

# gripper's pick without (not (at ?obj ?room)): the ball is in the room and in the gripper at once
PICK_KEEPS_AT = """(:action pick
  :parameters (?obj - ball ?room - room ?g - gripper)
  :precondition (and (at ?obj ?room) (at-robby ?room) (free ?g))
  :effect (and (carry ?obj ?g) (not (free ?g))))"""
KEY = "breaks (at ?0 *) (carry ?0 *)"
RUN_MS = 60_000


def warnings(window) -> list:
    return [m for m in window.answer_panel.editor.marks if m.kind is MarkKind.WARNING]


def tooltip_on_the_action(window) -> str:
    """What the editor's tooltip says with the pointer on the action's name (inside the action's span)."""
    editor = window.answer_panel.editor
    cursor = editor.textCursor()
    cursor.setPosition(editor.toPlainText().index("pick") + 2)
    return editor.tooltip_at(editor.viewport().mapTo(editor, editor.cursorRect(cursor).center()))


def click_finding_button(qtbot, window) -> None:
    """Select the one finding row and click Dismiss / Restore; wait until every window has followed."""
    box = window.domain_tests.panel.findings
    box.list.setCurrentRow(0)
    with qtbot.waitSignal(window.state.dismissals_changed, timeout=JOB_TIMEOUT_MS):
        qtbot.mouseClick(box.dismiss_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.dismiss_button.isEnabled(), timeout=JOB_TIMEOUT_MS)


def test_a_mutant_pick_is_underlined_with_the_state_listed_dismissed_to_disk_and_restored(
        qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    shipped = (bundled_root() / "gripper" / "dismissed.toml")
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText(PICK_KEEPS_AT)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")

    # the editor: one amber underline over the action, its tooltip the sentence and the state where it breaks
    [mark] = warnings(window)
    assert (mark.start, mark.end) == (0, len(PICK_KEEPS_AT))
    tip = tooltip_on_the_action(window)
    assert tip.startswith("warning breaks-invariant: on problem gripper-p01, after (pick ball1 rooma left): "
                          "(at ball1 rooma) and (carry ball1 left) both hold")
    assert "The state where (pick ball1 rooma left) applies on problem gripper-p01, in the initial state:" in tip
    assert "(at ball1 rooma)" in tip.split("\n")[2] and "(free left)" in tip.split("\n")[2]
    assert "1 invariant finding (underlined" in window.answer_panel.findings_title.text()

    # the Tests panel lists it, with Dismiss
    window.domain_tests.show()
    box = window.domain_tests.panel.findings
    assert box.rows() == [(KEY, False)]
    assert box.list.item(0).text().startswith("warning breaks-invariant: on problem gripper-p01")
    assert "Invariant findings on pick: 1" in box.title.text()
    box.list.setCurrentRow(0)
    assert box.dismiss_button.text() == "Dismiss" and box.dismiss_button.isEnabled()

    # Dismiss: saved in the user's copy's dismissed.toml, the underline gone, the row greyed as dismissed
    click_finding_button(qtbot, window)
    saved = tmp_path / "domains" / "gripper" / "dismissed.toml"
    assert KEY in saved.read_text(encoding="utf-8") and not shipped.exists()
    assert read_dismissals(window.current_bundle()) == {"pick": frozenset({KEY})}
    assert warnings(window) == [] and tooltip_on_the_action(window) == ""
    assert box.rows() == [(KEY, True)] and box.list.item(0).text().startswith("dismissed: ")
    box.list.setCurrentRow(0)
    assert box.dismiss_button.text() == "Restore"

    # a new Evaluate honours the saved dismissal
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    assert warnings(window) == [] and box.rows() == [(KEY, True)]

    # Restore: the file no longer lists it, the underline and the row come back
    click_finding_button(qtbot, window)
    assert KEY not in saved.read_text(encoding="utf-8")
    assert read_dismissals(window.current_bundle()) == {}
    assert len(warnings(window)) == 1 and tooltip_on_the_action(window).startswith("warning breaks-invariant")
    assert box.rows() == [(KEY, False)]


def test_the_reference_pick_has_no_finding_and_another_action_clears_the_list(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText(PICK_KEEPS_AT)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    box = window.domain_tests.panel.findings
    assert box.rows() == [(KEY, False)]
    window.answer_panel.editor.setPlainText(window.current_bundle().domain.action("pick").to_pddl(indent=""))
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    assert warnings(window) == [] and box.rows() == [] and "on pick: none" in box.title.text()
    window.answer_panel.editor.setPlainText(PICK_KEEPS_AT)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    assert box.rows() == [(KEY, False)]
    select(qtbot, window, "gripper", "drop")
    assert box.rows() == [] and box.report is None


def keep(qtbot, window, starters) -> None:
    """Click Keep as test and wait until the case is saved (every window is told: AppState.tests_changed).
    On a timeout, what the panel and the status line showed then, for the report."""
    try:
        with qtbot.waitSignal(window.state.tests_changed, timeout=RUN_MS):
            qtbot.mouseClick(starters.keep_button, Qt.MouseButton.LeftButton)
    except QtTimeoutError as error:
        raise AssertionError(
            f"not kept in {RUN_MS} ms: status {window.status_label.text()!r}, offered {starters.ids()}, selected "
            f"{starters.list.currentRow()}, button enabled {starters.keep_button.isEnabled()} and "
            f"{starters.keep_button.width()}x{starters.keep_button.height()}, busy {starters.busy}, writes "
            f"{[w.kind for w in window.domain_tests.writes.active]}, shared pool "
            f"{QThreadPool.globalInstance().activeThreadCount()} of {QThreadPool.globalInstance().maxThreadCount()}"
        ) from error


def open_gripper_without_tests(qtbot, window, tmp_path, monkeypatch):
    """A copy of gripper without its tests.toml, opened; the Tests panel shown once its starters are offered."""
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    folder = tmp_path / "my-gripper"
    shutil.copytree(bundled_root() / "gripper", folder)
    (folder / "tests.toml").unlink()
    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == ("open", "finished")
    dock = window.domain_tests
    dock.show()
    qtbot.waitUntil(lambda: bool(dock.panel.starters.ids()), timeout=RUN_MS)
    return folder, dock


def test_starter_cases_are_offered_for_a_domain_without_tests_and_a_kept_one_runs_and_catches_a_wrong_pick(
        qtbot, window, tmp_path, monkeypatch):
    folder, dock = open_gripper_without_tests(qtbot, window, tmp_path, monkeypatch)
    starters = dock.panel.starters
    assert starters.isVisibleTo(dock.panel) and "has no tests yet" in dock.panel.summary.text()
    assert {"p01-stays-solvable", "p01-plan-stays-valid", "never-at-with-carry"} <= set(starters.ids())
    assert not starters.keep_button.isEnabled()
    starters.select("never-at-with-carry")
    assert "[cases.never-at-with-carry]" in starters.list.currentItem().toolTip()
    assert starters.keep_button.isEnabled()

    # Keep as test: written beside the domain, then the runner runs it (green) and it is offered no more
    keep(qtbot, window, starters)
    assert "Kept never-at-with-carry as a test" in window.status_label.text()
    assert "[cases.never-at-with-carry]" in (folder / "tests.toml").read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: dock.last is not None and "never-at-with-carry" in dock.last.tests.names
                    and bool(starters.ids()), timeout=RUN_MS)
    [row] = dock.panel.model.rows
    assert (row.name, row.verdict) == ("never-at-with-carry", Verdict.PASS)
    assert "never-at-with-carry" not in starters.ids() and "p01-stays-solvable" in starters.ids()

    # the authoring window's working copy with the wrong pick accepted: the kept case fails there
    window.authoring_action.trigger()
    authoring = window.authoring_windows[-1]
    qtbot.waitUntil(lambda: authoring.tests.last is not None, timeout=RUN_MS)
    authoring.workspace.save(tmp_path / "draft")
    authoring.select("pick")
    authoring.editor.setPlainText(PICK_KEEPS_AT)
    with qtbot.waitSignal(authoring.tests.ran, timeout=RUN_MS):
        qtbot.mouseClick(authoring.accept_button, Qt.MouseButton.LeftButton)
    verdicts = {r.name: r.verdict for r in authoring.tests.last.report.results}
    assert verdicts == {"never-at-with-carry": Verdict.FAIL}


def test_apply_edit_makes_the_findings_edit_in_the_answer_judges_it_again_and_undo_takes_it_back(
        qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    select(qtbot, window, "gripper", "pick")
    editor = window.answer_panel.editor
    editor.setPlainText(PICK_KEEPS_AT)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    assert window.result_panel.badge.text() != "Equivalent"
    window.domain_tests.show()
    box = window.domain_tests.panel.findings
    box.list.setCurrentRow(0)
    assert box.edit_button.isEnabled()
    assert "add (not (at ?obj ?room)) to the effect" in box.edit_button.toolTip()

    # an answer edited since its verdict is not edited again: the finding is of the old text
    editor.setPlainText(PICK_KEEPS_AT + " ")
    qtbot.mouseClick(box.edit_button, Qt.MouseButton.LeftButton)
    assert editor.toPlainText() == PICK_KEEPS_AT + " " and "Not edited" in window.status_label.text()
    editor.setPlainText(PICK_KEEPS_AT)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    box.list.setCurrentRow(0)

    # Apply edit: the literal added to the effect, the answer judged again (now the reference's pick), no findings
    assert run_job(qtbot, window, lambda: qtbot.mouseClick(box.edit_button, Qt.MouseButton.LeftButton)) == (
        "evaluate", "finished")
    assert "(not (at ?obj ?room))" in editor.toPlainText()
    assert window.result_panel.badge.text() == "Equivalent"
    assert warnings(window) == [] and box.rows() == [] and not box.edit_button.isEnabled()

    # one Undo takes the edit back
    editor.undo()
    assert editor.toPlainText() == PICK_KEEPS_AT


def test_a_dismissed_finding_offers_no_edit(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText(PICK_KEEPS_AT)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == ("evaluate", "finished")
    window.domain_tests.show()
    box = window.domain_tests.panel.findings
    click_finding_button(qtbot, window)
    box.list.setCurrentRow(0)
    assert box.rows() == [(KEY, True)] and not box.edit_button.isEnabled()


def test_keep_as_test_saves_while_the_shared_pool_is_full(qtbot, window, tmp_path, monkeypatch):
    """A save never waits behind other work: with every thread of the shared pool taken (by jobs that wait on an
    event: the one way to hold the pool for as long as the test needs), Keep as test still saves the case."""
    from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker

    folder, dock = open_gripper_without_tests(qtbot, window, tmp_path, monkeypatch)
    starters = dock.panel.starters
    release = threading.Event()
    pool = QThreadPool.globalInstance()
    holders = TaskRunner()
    for _ in range(pool.maxThreadCount()):
        holders.start(TaskWorker(lambda *, task: release.wait(2 * RUN_MS / 1000), kind=JobKind.OTHER))
    try:
        qtbot.waitUntil(lambda: pool.activeThreadCount() == pool.maxThreadCount(), timeout=RUN_MS)
        starters.select("never-at-with-carry")
        keep(qtbot, window, starters)
        assert "[cases.never-at-with-carry]" in (folder / "tests.toml").read_text(encoding="utf-8")
        assert holders.busy   # the pool stayed full all along
    finally:
        release.set()
        assert holders.wait(RUN_MS)   # they end at once when released
