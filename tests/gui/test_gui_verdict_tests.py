"""Keep as test and Must never happen… in the main window (issue 22): the distinguishing state of a verdict the
real evaluator proves becomes a case of the judged domain's tests file (the user's copy's for a bundled domain,
the one beside domain.pddl for the user's own folder), which the real engine then proves: it passes on the
domain and fails with the answer that parted from it. Real main window offscreen, real files, no mocks."""

from __future__ import annotations

import shutil

from gui_helpers import run_job, select
from PySide6.QtCore import Qt

from domain_drafter.core.bundle import bundled_root, load_bundle_path
from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.gui.state.workers import JobKind, JobOutcome
from domain_drafter.planning.domain_tests import run_tests
from domain_drafter.planning.tests_report import Verdict

SAVE_MS = 20_000
# put-down that never deletes (holding ?x): the block is both on the table and in the hand
NO_HOLDING_DELETE = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
                     ":effect (and (ontable ?x) (clear ?x) (handempty)))")


def judge_wrong_put_down(qtbot, window) -> None:
    window.answer_panel.set_text(NO_HOLDING_DELETE)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == (JobKind.EVALUATE, JobOutcome.FINISHED)
    view = window.result_panel.proof_view
    assert view.counterexample is not None and view.counterexample.state.step == "(put-down b)"


def verdict_of(domain, bundle, name: str) -> Verdict:
    """The case `name` of the domain's tests file (as the app finds it now), proven on `domain`."""
    tests = domain_tests_of(bundle)
    assert tests is not None and name in tests.names
    report = run_tests(domain, tests, cases=[name])
    return next(r.verdict for r in report.results if r.name == name)


def blocksworld_files() -> dict:
    return {p: p.read_bytes() for p in (bundled_root() / "blocksworld").rglob("*") if p.is_file()}


def test_keep_as_test_on_a_bundled_domain_writes_the_users_copy_and_says_where(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    before = blocksworld_files()
    select(qtbot, window, "blocksworld", "put-down")
    judge_wrong_put_down(qtbot, window)
    view, writer = window.result_panel.proof_view, window.verdict_tests.writer
    assert view.keep_button.isVisible() and view.never_button.isVisible()   # offered in the main window too

    with qtbot.waitSignal(writer.saved, timeout=SAVE_MS) as saved:
        qtbot.mouseClick(view.keep_button, Qt.MouseButton.LeftButton)
    copy = tmp_path / "data" / "domains" / "blocksworld" / "tests.toml"
    assert saved.args == [copy]
    text = copy.read_text()
    assert '[cases.put-down-effects-on-p01-1]' in text
    assert 'plan = ["(pick-up b)", "(put-down b)"]\ngoal = "(not (holding b))"' in text
    assert "[cases.solves-p01]" in text                      # the bundled cases came along into the copy
    said = window.status_label.toolTip() or window.status_label.text()   # elided to the status line, whole on hover
    assert said.startswith("Case saved to your copy of blocksworld") and said.endswith(str(copy))
    assert blocksworld_files() == before, "the bundled domain's files never change"

    bundle = window.state.bundle
    assert verdict_of(bundle.domain, bundle, "put-down-effects-on-p01-1") is Verdict.PASS
    answer = window.result_panel.result.check.action
    assert verdict_of(bundle.domain.with_action(answer, replacing="put-down"), bundle,
                      "put-down-effects-on-p01-1") is Verdict.FAIL   # the answer that parted fails the kept case

    with qtbot.waitSignal(writer.saved, timeout=SAVE_MS):
        qtbot.mouseClick(view.keep_button, Qt.MouseButton.LeftButton)
    assert "[cases.put-down-effects-on-p01-2]" in copy.read_text()      # kept again: a name of its own

    select(qtbot, window, "blocksworld", "stack")            # the verdict is gone: nothing is left to keep
    assert window.result_panel.result is None
    assert window.verdict_tests.cases.keep_as_test(view.counterexample) is None


def test_must_never_happen_in_the_users_own_domain_goes_beside_its_domain_file(qtbot, window, tmp_path):
    folder = tmp_path / "my-blocks"
    shutil.copytree(bundled_root() / "blocksworld", folder)
    (folder / "tests.toml").unlink()
    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == (JobKind.OPEN, JobOutcome.FINISHED)
    assert window.state.bundle.folder == folder and window.domain_panel.select_action("put-down")
    judge_wrong_put_down(qtbot, window)
    cases = window.verdict_tests.cases
    qtbot.mouseClick(window.result_panel.proof_view.never_button, Qt.MouseButton.LeftButton)
    atoms = cases.atoms_dialog
    assert atoms is not None and atoms.isVisible()
    assert atoms.picked() == ["(holding b)"]                 # what the reference's state there lacks
    atoms.set_picked(["(holding b)", "(ontable b)"])
    atoms.accept()

    form = window.verdict_tests.writer.dialog
    assert form is not None and form.isVisible() and form.kind.currentText() == CaseKind.NEVER.value
    assert form.name.text() == "put-down-never-on-p01-1" and form.problem.currentText() == "p01"
    lifted = form.fields["state"].text()
    assert lifted == "(and (holding ?b) (ontable ?b))"
    form.set_field("state", "(holding ?b ?b)")               # a mistake: the reader's file:line, nothing written
    with qtbot.waitSignal(window.verdict_tests.runner.job_ended, timeout=SAVE_MS):
        form.accept()
    assert "Not saved" in form.error.text() and "tests.toml:" in form.error.text() and form.isVisible()
    assert window.status_label.text().startswith("Not saved") and not (folder / "tests.toml").exists()

    form.set_field("state", lifted)
    form.name.setText("held-block-is-not-on-the-table")      # the author edits it before it is saved
    with qtbot.waitSignal(window.verdict_tests.writer.saved, timeout=SAVE_MS):
        form.accept()
    written = folder / "tests.toml"
    assert written.read_text().startswith("[cases.held-block-is-not-on-the-table]\n")
    assert window.status_label.text() == f"Case saved to {written}."
    bundle = load_bundle_path(folder)
    assert verdict_of(bundle.domain, bundle, "held-block-is-not-on-the-table") is Verdict.PASS
    answer = window.result_panel.result.check.action
    assert verdict_of(bundle.domain.with_action(answer, replacing="put-down"), bundle,
                      "held-block-is-not-on-the-table") is Verdict.FAIL
