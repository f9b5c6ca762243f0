"""The authoring window's Tests tab (issue 22, items 5 and 6) on the real engine: real bundled domains and their
tests.toml, the real prover and quick-fix search in workers, real files, offscreen Qt."""

from __future__ import annotations

import shutil
import threading

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from domain_drafter.core.bundle import bundled_root, load_bundle_path
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.window import AuthoringWindow
from domain_drafter.gui.look.colours import current_scheme
from domain_drafter.gui.panels.tests_panel import VerdictRole
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.settings import AppSettings
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.planning.tests_report import Verdict

RUN_MS = 60_000
BROKEN_STACK = """(:action stack
  :parameters (?x - block ?y - block)
  :precondition (and (holding ?x))
  :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))"""
CASE = "stack-only-on-a-clear-block"


def open_window(qtbot, workspace) -> AuthoringWindow:
    win = AuthoringWindow(workspace, AppState(AppSettings(preload_model=False)))
    qtbot.addWidget(win, before_close_func=lambda w: setattr(w, "_closing", True))   # no Unsaved work question
    win.show()
    qtbot.waitUntil(lambda: win.tests.last is not None or win.tests.error is not None, timeout=RUN_MS)
    return win


def verdicts(win) -> dict[str, Verdict | None]:
    model = win.tests.panel.model
    rows = {model.row(r).name: model.row(r).verdict for r in range(model.rowCount())}
    assert [model.index(r).data(VerdictRole) for r in range(model.rowCount())] == \
        [v.value if v else None for v in rows.values()]
    return rows


def colour(win, name: str) -> str:
    model = win.tests.panel.model
    return model.index(model.row_of(name)).data(Qt.ItemDataRole.ForegroundRole).color().name()


def click_case(qtbot, win, name: str) -> None:
    win.tabs.setCurrentWidget(win.tests.panel)
    view, model = win.tests.panel.list, win.tests.panel.model
    index = model.index(model.row_of(name))
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    assert win.tests.panel.selected() == name


def rerun(qtbot, win, click) -> None:
    """Do `click` and wait for the tests run it starts to be shown."""
    with qtbot.waitSignal(win.tests.ran, timeout=RUN_MS):
        click()


def accept_broken_stack(qtbot, win) -> None:
    win.select("stack")
    win.editor.setPlainText(BROKEN_STACK)
    rerun(qtbot, win, lambda: qtbot.mouseClick(win.accept_button, Qt.MouseButton.LeftButton))


def bundled_files() -> dict:
    return {p: p.read_bytes() for p in (bundled_root() / "blocksworld").rglob("*") if p.is_file()}


def test_the_bundled_cases_are_listed_green_on_the_reference_domain(qtbot, bundles):
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    seen = verdicts(win)
    assert len(seen) == 27 and set(seen.values()) == {Verdict.PASS}
    assert colour(win, CASE) == QColor(current_scheme().class_text[ResultClass.EQUIVALENT]).name()   # green
    assert "27 passed, 0 failed, 0 unproven" in win.tests.panel.summary.text()
    assert win.tabs.tabText(win.tabs.indexOf(win.tests.panel)) == "Tests"
    assert not win.tests.panel.fixes_button.isEnabled()       # nothing fails: nothing to fix
    click_case(qtbot, win, "solves-p01")
    evidence = win.tests.panel.evidence
    assert evidence.title.text() == "solves-p01 (plan) passes" and evidence.plan_model.rowCount() == 6
    assert "reaches the goal" in evidence.message.text()


def test_a_broken_action_turns_its_case_red_the_evidence_shows_and_a_quick_fix_repairs_it_undo_restores(
        qtbot, bundles):
    before = bundled_files()
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    accept_broken_stack(qtbot, win)
    seen = verdicts(win)
    assert seen[CASE] is Verdict.FAIL and seen["solves-p01"] is Verdict.PASS
    assert colour(win, CASE) == QColor(current_scheme().class_text[ResultClass.SYNTAX_ERROR]).name()   # red

    click_case(qtbot, win, CASE)
    evidence = win.tests.panel.evidence
    assert evidence.title.text() == f"{CASE} (plan_fails) fails"
    assert "must fail" in evidence.message.text()
    assert [evidence.plan_model.index(r).data() for r in range(evidence.plan_model.rowCount())] == \
        ["1. (pick-up b)", "2. (stack b a)"]
    assert evidence.state.text().startswith("The state the plan reaches: ") and "(on b a)" in evidence.state.text()
    assert evidence.state.isVisibleTo(win)
    assert win.tests.panel.fixes_button.isEnabled()

    with qtbot.waitSignal(win.job_ended, timeout=RUN_MS, check_params_cb=lambda k, _o: k == JobKind.QUICK_FIX):
        qtbot.mouseClick(win.tests.panel.fixes_button, Qt.MouseButton.LeftButton)
    panel = win.tests.panel
    summaries = [panel.fixes.item(r).text() for r in range(panel.fixes.count())]
    assert summaries[0] == "stack: add (clear ?y) to the precondition"
    assert "+" in panel.diff.toPlainText() and "(clear ?y)" in panel.diff.toPlainText()   # shown as a diff
    rerun(qtbot, win, lambda: qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton))
    assert set(verdicts(win).values()) == {Verdict.PASS}
    entry = win.workspace.entries["stack"]
    assert entry.attempts[-1].source == "quick fix" and "(clear ?y)" in entry.accepted
    assert win.selected() == "stack" and "(clear ?y)" in win.editor.toPlainText()   # the editor follows

    assert panel.undo_button.isEnabled()
    rerun(qtbot, win, lambda: qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton))
    assert verdicts(win)[CASE] is Verdict.FAIL
    assert "(clear ?y)" not in win.workspace.working_domain().action("stack").to_pddl().split(":effect")[0]
    assert bundled_files() == before, "the bundled domain's files never change"


def test_a_bad_tests_file_shows_file_and_line_and_a_fix_on_disk_runs_again(qtbot, tmp_path):
    folder = tmp_path / "blocksworld"
    shutil.copytree(bundled_root() / "blocksworld", folder)
    good = (folder / "tests.toml").read_text()
    bad = good.replace('kind = "plan_fails"\nplan = ["(pick-up b)", "(stack b a)"]',
                       'kind = "plan_fail"\nplan = ["(pick-up b)", "(stack b a)"]')
    line = bad.splitlines().index('kind = "plan_fail"') + 1
    (folder / "tests.toml").write_text(bad)
    win = open_window(qtbot, WorkingCopy.open(folder))
    panel = win.tests.panel
    win.tabs.setCurrentWidget(panel)
    assert win.tests.error is not None and panel.error.isVisibleTo(win)
    assert f"tests.toml:{line}:1" in panel.error.text() and "plan_fail" in panel.error.text()

    with qtbot.waitSignal(win.tests.ran, timeout=RUN_MS):   # the watcher sees the file replaced
        (folder / "tests.toml.tmp").write_text(good)
        (folder / "tests.toml.tmp").replace(folder / "tests.toml")
    assert not panel.error.isVisibleTo(win) and set(verdicts(win).values()) == {Verdict.PASS}


def test_keep_as_expected_plan_and_a_new_case_go_to_the_users_copy_of_a_bundled_domain(
        qtbot, bundles, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    before = bundled_files()
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    reachable = next(n for n in verdicts(win) if win.tests.last.tests.case(n).kind is CaseKind.REACHABLE)
    click_case(qtbot, win, reachable)
    panel = win.tests.panel
    assert panel.keep_button.isEnabled()
    rerun(qtbot, win, lambda: qtbot.mouseClick(panel.keep_button, Qt.MouseButton.LeftButton))
    copy = tmp_path / "domains" / "blocksworld" / "tests.toml"
    assert win.tests.path == copy and f"[cases.kept-{reachable}-1]" in copy.read_text()
    assert verdicts(win)[f"kept-{reachable}-1"] is Verdict.PASS and len(verdicts(win)) == 28

    win.tests.writer.ask_new_case()
    dialog = win.tests.writer.dialog
    dialog.name.setText("hand-never-holds-a-block-on-the-table")
    dialog.set_kind(CaseKind.NEVER)
    dialog.problem.setCurrentText("p01")
    dialog.set_field("state", "(and (holding ?x) (ontable ?x))")
    rerun(qtbot, win, dialog.accept)
    assert verdicts(win)["hand-never-holds-a-block-on-the-table"] is Verdict.PASS

    win.tests.writer.ask_new_case()   # a mistake: the reader's file:line shows in the form, nothing is written
    dialog = win.tests.writer.dialog
    dialog.name.setText("bad")
    dialog.set_kind(CaseKind.NEVER)
    dialog.problem.setCurrentText("p01")
    dialog.set_field("state", "(holding ?x ?y)")
    text = copy.read_text()
    with qtbot.waitSignal(win.job_ended, timeout=RUN_MS, check_params_cb=lambda k, _o: k == JobKind.SAVE_CASE):
        dialog.accept()
    assert "Not saved" in dialog.error.text() and "tests.toml:" in dialog.error.text()
    assert copy.read_text() == text and dialog.isVisible()
    dialog.reject()
    assert bundled_files() == before and load_bundle_path(copy.parent).name == "blocksworld"


def test_no_quick_fixes_while_a_benchmark_runs(qtbot, bundles):
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    accept_broken_stack(qtbot, win)
    click_case(qtbot, win, CASE)
    assert win.tests.panel.fixes_button.isEnabled()
    release = threading.Event()
    bench = TaskRunner()
    win.state.track(bench, "benchmark")   # as the Benchmark dialog's runner is
    bench.start(TaskWorker(lambda *, task: release.wait(RUN_MS / 1000), kind=JobKind.BENCHMARK))
    try:
        qtbot.waitUntil(lambda: not win.tests.panel.fixes_button.isEnabled(), timeout=5_000)
        assert "benchmark" in win.tests.panel.fixes_button.toolTip()
        assert win.tests.find_fixes(CASE) is None
    finally:
        release.set()
        assert bench.wait(5_000)
    qtbot.waitUntil(lambda: win.tests.panel.fixes_button.isEnabled(), timeout=5_000)


def test_a_domain_without_tests_says_so_and_its_first_case_starts_the_file(qtbot, tmp_path):
    folder = tmp_path / "blocksworld"
    shutil.copytree(bundled_root() / "blocksworld", folder)
    (folder / "tests.toml").unlink()
    win = open_window(qtbot, WorkingCopy.open(folder))
    panel = win.tests.panel
    assert "No tests.toml beside the domain yet" in panel.summary.text() and not panel.error.isVisibleTo(win)
    win.tests.writer.ask_new_case()
    dialog = win.tests.writer.dialog
    dialog.name.setText("covered-block-cannot-be-picked")
    dialog.set_kind(CaseKind.PLAN_FAILS)
    dialog.problem.setCurrentText("p01")
    dialog.set_field("plan", ["(pick-up a)"])
    dialog.set_field("at_step", 1)
    dialog.set_field("precondition", "(clear a)")
    rerun(qtbot, win, dialog.accept)
    assert verdicts(win) == {"covered-block-cannot-be-picked": Verdict.PASS}
    assert (folder / "tests.toml").read_text().startswith("[cases.covered-block-cannot-be-picked]\n")


def test_the_case_list_model_passes_the_model_tester(qtmodeltester, bundles):
    from domain_drafter.core.tests_reader import load_tests
    from domain_drafter.gui.panels.tests_panel import TestCaseListModel, case_rows
    from domain_drafter.planning.domain_tests import run_tests

    bundle = bundles["gripper"]
    tests = load_tests(bundle)
    model = TestCaseListModel()
    model.set_rows(case_rows(tests.cases, None))   # listed before they run: grey, "not run"
    assert {model.index(r).data(VerdictRole) for r in range(model.rowCount())} == {None}
    qtmodeltester.check(model)
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.set_rows(case_rows(tests.cases, run_tests(bundle.domain, tests)))   # same cases: updated in place
    assert resets == [] and {model.index(r).data(VerdictRole) for r in range(model.rowCount())} == {"pass"}
    qtmodeltester.check(model)


def test_after_save_as_the_tests_tab_reads_and_writes_the_saved_folders_file(qtbot, bundles, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    before = bundled_files()
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    shipped = len(verdicts(win))
    folder = tmp_path / "my-blocksworld"
    with qtbot.waitSignals([win.saved, win.tests.ran], timeout=RUN_MS):   # saved, then run on that folder's file
        win.save_to(folder)
    assert win.tests.path == folder / "tests.toml" and (folder / "tests.toml").is_file()
    reachable = next(n for n in verdicts(win) if win.tests.last.tests.case(n).kind is CaseKind.REACHABLE)
    click_case(qtbot, win, reachable)
    rerun(qtbot, win, lambda: qtbot.mouseClick(win.tests.panel.keep_button, Qt.MouseButton.LeftButton))
    assert f"[cases.kept-{reachable}-1]" in (folder / "tests.toml").read_text()
    assert len(verdicts(win)) == shipped + 1
    assert not (tmp_path / "data" / "domains" / "blocksworld").exists()   # no user copy of the bundled domain
    assert bundled_files() == before
