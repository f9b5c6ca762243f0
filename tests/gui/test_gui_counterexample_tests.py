"""Keep as test and Must never happen… in the authoring window (issue 22): a picked candidate's distinguishing
state, proven by the real evaluator, becomes a case of the user's copy of the bundled blocksworld's tests.toml,
which the Tests tab runs at once; real files, real prover, offscreen Qt."""

from __future__ import annotations

from PySide6.QtCore import Qt
from test_gui_tests_panel import RUN_MS, bundled_files, open_window, rerun, verdicts

from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.drafting.candidates import judge_candidate
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.llm.backend import Generation, make_stats
from domain_drafter.planning.tests_report import Verdict

# no (clear ?y): it stacks onto a covered block, where the reference refuses the step
WRONG_STACK = """(:action stack
  :parameters (?x - block ?y - block)
  :precondition (and (holding ?x))
  :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))"""


def pick_wrong_candidate(win) -> None:
    """The wrong answer as a judged candidate of Draft N, picked in the Candidates tab."""
    generation = Generation(WRONG_STACK, make_stats(prompt_tokens=10, generated_tokens=20, t_start=0.0, t_first=0.1,
                                                    t_end=0.2, stop_reason="stop"))
    candidate = judge_candidate(win.workspace.reference_bundle(), "stack", 0, 0, False, generation,
                                win.state.evaluator, True)
    win.candidates.name = "stack"
    win.candidates.panel.add(candidate)
    win.candidates.panel.pick(0)


def test_keep_as_test_saves_the_references_behaviour_which_passes_then_fails_once_the_answer_is_accepted(
        qtbot, bundles, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    before = bundled_files()
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    shown = win.counterexample
    assert not shown.view.isVisibleTo(shown.box) and shown.note.isVisibleTo(shown.box)   # nothing shown yet
    pick_wrong_candidate(win)
    assert shown.view.counterexample is not None and shown.view.keep_button.isVisibleTo(shown.box)
    assert shown.view.title.text() == "On problem p01, after 1 step, (stack b a) parts the two domains"

    rerun(qtbot, win, lambda: qtbot.mouseClick(shown.view.keep_button, Qt.MouseButton.LeftButton))
    copy = tmp_path / "domains" / "blocksworld" / "tests.toml"
    text = copy.read_text()
    assert win.tests.path == copy and "[cases.stack-fails-on-p01-1]" in text
    assert 'plan = ["(pick-up b)", "(stack b a)"]\nat_step = 2\nprecondition = "(clear a)"' in text
    assert verdicts(win)["stack-fails-on-p01-1"] is Verdict.PASS     # the working copy is still the reference

    rerun(qtbot, win, lambda: qtbot.mouseClick(shown.view.keep_button, Qt.MouseButton.LeftButton))
    assert "[cases.stack-fails-on-p01-2]" in copy.read_text()      # kept again: a name of its own

    win.select("stack")
    win.editor.setPlainText(WRONG_STACK)
    rerun(qtbot, win, lambda: qtbot.mouseClick(win.accept_button, Qt.MouseButton.LeftButton))
    assert verdicts(win)["stack-fails-on-p01-1"] is Verdict.FAIL     # the wrong answer fails the kept case
    assert bundled_files() == before, "the bundled domain's files never change"


def test_must_never_happen_lifts_the_picked_atoms_into_the_case_form_and_the_saved_case_passes(
        qtbot, bundles, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    pick_wrong_candidate(win)
    view = win.counterexample.view
    qtbot.mouseClick(view.never_button, Qt.MouseButton.LeftButton)
    atoms = win.counterexample.cases.atoms_dialog
    listed = [atoms.atoms.item(r).text() for r in range(atoms.atoms.count())]
    assert "(on b a)" in listed and "(on c a)" in listed             # the state the answer reaches
    assert set(atoms.picked()) == {"(clear b)", "(handempty)", "(on b a)"}   # what the reference's state lacks
    atoms.set_picked(["(on b a)", "(on c a)"])
    atoms.accept()

    form = win.tests.writer.dialog
    assert form.isVisible() and form.kind.currentText() == CaseKind.NEVER.value
    assert form.name.text() == "stack-never-on-p01-1" and form.problem.currentText() == "p01"
    assert form.fields["state"].text() == "(and (on ?b ?a) (on ?c ?a) (not (= ?b ?a)) (not (= ?b ?c)) (not (= ?a ?c)))"
    form.name.setText("never-two-blocks-on-one")                      # the author edits it before it is saved
    rerun(qtbot, win, form.accept)
    assert verdicts(win)["never-two-blocks-on-one"] is Verdict.PASS

    win.select("stack")
    win.editor.setPlainText(WRONG_STACK)
    with qtbot.waitSignal(win.tests.ran, timeout=RUN_MS):
        qtbot.mouseClick(win.accept_button, Qt.MouseButton.LeftButton)
    assert verdicts(win)["never-two-blocks-on-one"] is Verdict.FAIL


def test_an_answer_without_a_distinguishing_state_shows_none(qtbot, bundles):
    win = open_window(qtbot, WorkingCopy.from_bundle(bundles["blocksworld"]))
    pick_wrong_candidate(win)
    assert win.counterexample.view.counterexample is not None
    win.tabs.setCurrentWidget(win.counterexample.box)
    assert not win.counterexample.show_result(None, "stack")
    assert not win.counterexample.view.isVisibleTo(win) and win.counterexample.note.isVisibleTo(win)
    assert win.counterexample.cases.keep_as_test(win.counterexample.view.counterexample) is None   # nothing to keep
