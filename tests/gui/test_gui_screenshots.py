"""Screenshots of the real window at 1280x800 and 1920x1080, light and dark, in the states users see.

They are written to a temporary folder (or to $DOMAIN_DRAFTER_SCREENSHOTS: `make screenshots` points
it at resources/screenshots) and checked for what a glance would catch: the right size, drawn (many
colours), the scheme's window colour in the background, and no button, checkbox or one-line label whose text
is cut off.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gui_helpers import run_job, select
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from domain_drafter.gui.look.colours import DARK, LIGHT
from domain_drafter.gui.look.theme import apply_scheme

SIZES = {"1280x800": (1280, 800), "1920x1080": (1920, 1080)}
STATES = ("empty", "errors", "equivalent", "counterexample", "diff", "settings")
ANSWER_WITH_ERRORS = """Sure! Here is the PDDL action:
(:action pick
  :parameters (?obj - ball ?room - room ?g - gripper)
  :precondition (and (at ?obj ?room) (at-robby ?room) (empty ?g))
  :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g ?room))))"""


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("DOMAIN_DRAFTER_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def distinct_colours(image: QImage, step: int = 6) -> int:
    return len({image.pixel(x, y) for y in range(0, image.height(), step) for x in range(0, image.width(), step)})


def clipped_texts(widget: QWidget) -> list[str]:
    """The visible buttons, checkboxes and one-line labels narrower than their text, and the wrapped labels
    lower than their text at their width: cut off on screen."""
    out = []
    for child in widget.findChildren(QWidget):
        if not child.isVisibleTo(widget) or child.width() <= 1:
            continue
        one_line = isinstance(child, QAbstractButton) or (
            isinstance(child, QLabel) and not child.wordWrap() and child.pixmap().isNull())
        if one_line and child.text() and child.sizeHint().width() > child.width() + 1:
            out.append(f"{child.text()!r}: {child.width()} px of {child.sizeHint().width()}")
        wrapped = isinstance(child, QLabel) and child.wordWrap() and child.text() and child.pixmap().isNull()
        if wrapped and child.heightForWidth(child.width()) > child.height() + 1:
            out.append(f"{child.text()!r}: {child.height()} px high of {child.heightForWidth(child.width())}")
    return out


def reference(window, action: str) -> str:
    return window.current_bundle().domain.action(action).to_pddl(indent="")


def set_state(qtbot, window, state: str):
    """Bring the window into `state`; returns the widget to photograph."""
    if state == "empty":
        select(qtbot, window, "blocksworld", "pick-up")
        return window
    select(qtbot, window, "gripper", "pick")
    if state == "errors":
        text = ANSWER_WITH_ERRORS
    elif state == "equivalent":
        text = reference(window, "pick")
    else:
        text = reference(window, "pick").replace("(free ?g)", "(free ?g) (free left)", 1)
    window.answer_panel.editor.setPlainText(text)
    run_job(qtbot, window, window.evaluate_action.trigger)
    if state == "diff":
        window.result_panel.tabs.setCurrentIndex(1)
    if state == "settings":
        window.show_settings()
        dialog = window.settings_dialog
        qtbot.waitUntil(dialog.isVisible)
        return dialog
    return window


@pytest.mark.parametrize("scheme", [LIGHT, DARK], ids=["light", "dark"])
def test_screenshots(qtbot, window, out_dir, scheme):
    app = QApplication.instance()
    apply_scheme(app, scheme)
    try:
        for size_name, (width, height) in SIZES.items():
            window.showNormal()   # (earlier tests may have left the window maximised)
            qtbot.waitUntil(lambda: not window.isMaximized())
            qtbot.wait(100)       # the platform restores the normal geometry after the state change
            for state in STATES:
                window.setGeometry(0, 0, width, height)
                qtbot.waitUntil(lambda size=(width, height): (window.width(), window.height()) == size)
                target = set_state(qtbot, window, state)
                qtbot.wait(30)
                image = target.grab().toImage()
                clipped = clipped_texts(target)
                path = out_dir / f"{size_name}-{scheme.name}-{state}.png"
                assert image.save(str(path)), path
                if target is window:
                    assert (image.width(), image.height()) == (width, height)
                else:
                    target.close()
                assert distinct_colours(image) > 12, f"{path} looks blank"
                assert not clipped, f"{path}: text cut off: {clipped}"
                corner = QColor(image.pixel(image.width() - 3, image.height() // 2))
                assert abs(corner.lightness() - QColor(scheme.window).lightness()) < 60, path
    finally:
        apply_scheme(app, LIGHT)


def drafted_blocksworld(window, folder):
    """Blocksworld with a drafted history (a failed attempt, an accepted one), as after a Draft all."""
    from domain_drafter.drafting.workspace import WorkingCopy

    bundle = next(b for b in window.state.bundles if b.name == "blocksworld")
    copy = WorkingCopy.from_bundle(bundle)
    for action in bundle.domain.actions:
        text = action.to_pddl(indent="")
        copy.add_attempt(action.name, text.replace("(handempty)", "(hand-empty)", 1), source="model",
                         model="llama.cpp:gemma-3-270m-q4_k_m.gguf", subclass="PAError",
                         message="(hand-empty) is no predicate of the domain")
        if action.name != "stack":
            copy.accept(action.name, attempt=copy.add_attempt(action.name, text, source="hand",
                                                               message="passed the syntax and semantic checks").number)
    copy.save(folder)
    return copy


@pytest.mark.parametrize("scheme", [LIGHT, DARK], ids=["light", "dark"])
def test_authoring_and_benchmark_screenshots(qtbot, window, out_dir, tmp_path, scheme):
    from domain_drafter.gui.authoring.window import AuthoringWindow
    from domain_drafter.gui.dialogs.bench_dialog import BenchmarkDialog

    app = QApplication.instance()
    apply_scheme(app, scheme)
    try:
        authoring = AuthoringWindow(drafted_blocksworld(window, tmp_path / "bw"), window.state)
        qtbot.addWidget(authoring)
        authoring.show()
        authoring.setGeometry(0, 0, 1280, 800)
        authoring.select("put-down")
        authoring.history.setCurrentRow(0)
        authoring.compare_attempt()
        models = [(e.name, "default") for e in [window.current_model()]]
        dialog = BenchmarkDialog(models, [b.name for b in window.state.bundles], window,
                                 results_path=tmp_path / "bench.sqlite", settings=window.app_settings)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.setGeometry(0, 0, 1280, 800)
        for name, target in (("authoring", authoring), ("benchmark", dialog)):
            qtbot.waitUntil(lambda t=target: (t.width(), t.height()) == (1280, 800))
            qtbot.wait(50)
            image = target.grab().toImage()
            path = out_dir / f"1280x800-{scheme.name}-{name}.png"
            assert image.save(str(path)), path
            assert (image.width(), image.height()) == (1280, 800)
            assert distinct_colours(image) > 12, f"{path} looks blank"
            assert not clipped_texts(target), f"{path}: text cut off: {clipped_texts(target)}"
        dialog.close()
        authoring.close()
    finally:
        apply_scheme(app, LIGHT)


# pick-up without (clear ?x): its counterexample offers Must never happen…, whose New case form is photographed
PICK_UP_UNCLEAR = ("(:action pick-up :parameters (?x - block) :precondition (and (ontable ?x) (handempty)) "
                   ":effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))")


def new_case_form(qtbot, window):
    from PySide6.QtCore import Qt

    select(qtbot, window, "blocksworld", "pick-up")
    window.answer_panel.editor.setPlainText(PICK_UP_UNCLEAR)
    run_job(qtbot, window, window.evaluate_action.trigger)
    qtbot.mouseClick(window.result_panel.proof_view.never_button, Qt.MouseButton.LeftButton)
    atoms = window.verdict_tests.cases.atoms_dialog
    qtbot.waitUntil(lambda: atoms is not None and atoms.isVisible())
    atoms.accept()
    form = window.verdict_tests.writer.dialog
    qtbot.waitUntil(lambda: form is not None and form.isVisible())
    return form


@pytest.mark.parametrize("scheme", [LIGHT, DARK], ids=["light", "dark"])
def test_new_case_tests_panel_and_draft_until_proven_screenshots(qtbot, window, out_dir, tiny_model, scheme):
    from dataclasses import replace

    app = QApplication.instance()
    apply_scheme(app, scheme)
    try:
        window.showNormal()
        qtbot.waitUntil(lambda: not window.isMaximized())
        window.setGeometry(0, 0, 1280, 800)
        qtbot.waitUntil(lambda: (window.width(), window.height()) == (1280, 800))
        form = new_case_form(qtbot, window)
        qtbot.wait(50)
        photograph(out_dir, scheme, "new-case", form)
        form.reject()
        window.domain_tests.show()
        panel = window.domain_tests.panel
        qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=30_000)
        panel.list.setCurrentIndex(panel.model.index(0))
        photograph(out_dir, scheme, "tests-panel", window, (1280, 800))
        window.domain_tests.dock.hide()
        select(qtbot, window, "gripper", "pick")
        window.add_model_file(tiny_model)
        window.state.update_settings(replace(window.app_settings, max_new_tokens=60, grammar=True, search_budget=4,
                                             search_width=2), save=False)
        assert run_job(qtbot, window, window.toolbar.search_action.trigger) == ("generate", "finished")
        photograph(out_dir, scheme, "draft-until-proven", window, (1280, 800))
        window.candidates.dock.hide()
    finally:
        apply_scheme(app, LIGHT)


def photograph(out_dir: Path, scheme, name: str, target: QWidget, size: tuple[int, int] | None = None) -> Path:
    QApplication.processEvents()
    image = target.grab().toImage()
    path = out_dir / f"1280x800-{scheme.name}-{name}.png"
    assert image.save(str(path)), path
    if size is not None:
        assert (image.width(), image.height()) == size, name
    assert distinct_colours(image) > 12, f"{path} looks blank"
    assert not clipped_texts(target), f"{path}: text cut off: {clipped_texts(target)}"
    return path
