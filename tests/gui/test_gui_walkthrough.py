"""The defects a walk through the real app found (issue 23), one test each where a test can see it.

Real parts: the real main and authoring windows offscreen, the real parser and evaluator, real files.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from gui_helpers import open_main_window, run_job, select
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from domain_drafter.core.bundle import load_bundle_path
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.gui.authoring.dialogs import NewActionDialog
from domain_drafter.gui.authoring.window import AuthoringWindow
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.folders import Purpose, last_folder
from domain_drafter.gui.state.settings import AppSettings, load_settings
from domain_drafter.gui.state.workers import JobKind, JobOutcome


def _every_state_signal(state) -> None:
    """Change everything the app state announces: settings, bundles, target, model, running jobs."""
    state.update_settings(replace(state.settings, threads=state.settings.threads + 1), save=False)
    state.set_bundles(state.bundles)
    state.set_target(state.bundle, state.action)
    state.set_model(None)
    state.set_model(state.model_entries[0] if state.model_entries else None)
    state.running_changed.emit(state.running())


def test_a_closed_authoring_window_leaves_no_connection_to_the_app_state(qtbot, window, capfd):
    select(qtbot, window, "blocksworld", "put-down")
    state = window.state
    before = {name: state.receivers(f"2{signature}") for name, signature in _SIGNATURES.items()}
    for _ in range(2):
        window.authoring_action.trigger()
        authoring = window.authoring_windows[-1]
        assert isinstance(authoring, AuthoringWindow)
        gone: list[bool] = []
        authoring.destroyed.connect(lambda *_, gone=gone: gone.append(True))
        authoring.close()
        qtbot.waitUntil(lambda gone=gone: bool(gone), timeout=5000)   # closed, then deleted (deleteLater)
    assert window.authoring_windows == []
    _every_state_signal(state)   # a slot of a deleted window would raise here (pytest-qt fails the test)
    qtbot.wait(50)
    after = {name: state.receivers(f"2{signature}") for name, signature in _SIGNATURES.items()}
    assert after == before
    assert "already deleted" not in capfd.readouterr().err


_SIGNATURES = {"settings_changed": "settings_changed(PyObject)", "bundles_changed": "bundles_changed(PyObject)",
               "target_changed": "target_changed(PyObject)", "model_changed": "model_changed(PyObject)",
               "running_changed": "running_changed(bool)"}


NO_HOLDING_DELETE = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
                     ":effect (and (ontable ?x) (clear ?x) (handempty)))")


def test_save_as_problem_on_a_bundled_domain_writes_into_the_users_copy(qtbot, window, tmp_path, monkeypatch):
    """Defect 1: the dialog opened in the bundled domains/blocksworld/problems and wrote there."""
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    select(qtbot, window, "blocksworld", "put-down")
    bundled = window.state.bundle.folder / "problems"
    before = sorted(p.name for p in bundled.iterdir())
    window.answer_panel.set_text(NO_HOLDING_DELETE)
    assert run_job(qtbot, window, window.evaluate_action.trigger) == (JobKind.EVALUATE, JobOutcome.FINISHED)
    view = window.result_panel.proof_view
    assert view.counterexample is not None and view.save_button.isVisible()
    qtbot.mouseClick(view.save_button, Qt.MouseButton.LeftButton)
    copy = tmp_path / "data" / "domains" / "blocksworld"
    assert (copy / "domain.pddl").read_text() == (bundled.parent / "domain.pddl").read_text()
    assert "bundled domain" in view.saved.text() and str(copy) in view.saved.text()
    proposed = Path(view.dialog.selectedFiles()[0])
    assert proposed.parent == copy / "problems" and not proposed.exists()
    with qtbot.waitSignal(view.problem_saved, timeout=5000) as blocker:
        view.dialog.accept()
    assert blocker.args[0] == proposed and proposed.is_file()
    assert sorted(p.name for p in bundled.iterdir()) == before            # the bundled domain stays as shipped
    assert proposed in [p.path for p in load_bundle_path(copy).problems]   # and the copy reads as a domain
    assert view.write_problem(str(bundled / "p99.pddl")) is None and not (bundled / "p99.pddl").exists()
    assert view.saved.text().startswith("Not saved:")


def test_a_domain_without_descriptions_cannot_generate_and_says_what_to_do(qtbot, window, tmp_path, tiny_model):
    """Defect 4: Generate stayed enabled and failed with a modal 'Generation failed'."""
    window.add_model_file(tiny_model)
    folder = tmp_path / "bare-blocks"
    shutil.copytree(window.state.bundles[0].folder, folder, ignore=shutil.ignore_patterns("descriptions.toml"))
    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == (JobKind.OPEN, JobOutcome.FINISHED)
    assert window.state.bundle.folder == folder and window.state.action and window.state.model is not None
    for action in (window.generate_action, window.toolbar.candidates_action):
        assert not action.isEnabled()
        assert "cannot be prompted yet" in action.toolTip() and "Descriptions tab" in action.toolTip()
        assert f"domain-drafter describe {folder}" in action.toolTip()
    assert "cannot be prompted yet" in window.status_label.text()
    assert window.evaluate_action.isEnabled()          # an answer typed by hand can still be judged
    select(qtbot, window, "blocksworld", "put-down")   # a described domain: Generate is back, with its own tip
    assert window.generate_action.isEnabled() and window.generate_action.toolTip().startswith("Ask the model")


def test_the_toolbars_model_choice_is_the_model_file_setting(qtbot, window, tiny_model):
    """Defect 5: the toolbar's choice was not saved (the Grammar box was), and OK in Settings switched back."""
    selector = window.model_selector
    window.add_model_file(tiny_model)
    default_row = next(r for r in range(selector.count()) if selector.itemData(r).source == "default")
    tiny_row = selector.currentIndex()
    selector.setCurrentIndex(default_row)
    assert window.app_settings.model == "" and load_settings().model == ""
    selector.setCurrentIndex(tiny_row)                      # chosen in the toolbar
    assert window.app_settings.model == str(tiny_model) and load_settings().model == str(tiny_model)
    window.show_settings()
    dialog = window.settings_dialog
    assert dialog.values().model == str(tiny_model)
    dialog.accept()                                         # OK keeps the toolbar's choice
    assert window.current_model().path == tiny_model and load_settings().model == str(tiny_model)


def test_clearing_the_model_file_after_a_failed_load_shows_the_default_model_again(qtbot, private_homes, tmp_path):
    """Defect 7: after a failed load, clearing Settings > Model file left "Model: not loaded"."""
    window = open_main_window(qtbot, AppSettings(preload_model=True))
    status = window.model_status
    qtbot.waitUntil(lambda: status.loaded_model is not None, timeout=120_000)   # the default model
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model")
    # the prompt may still be read into the default model (a warm job, stopped by the new request)
    # a Model file setting of an earlier session (Settings and Open model file now refuse a file that is no GGUF)
    window.state.update_settings(replace(window.app_settings, model=str(broken)), save=False)
    with qtbot.waitSignal(status.failed, timeout=90_000):
        window.choose_model(window.state.model_for_file(broken))
    box = window.findChild(QMessageBox, "modelErrorBox")
    box.close()
    assert status.model_label.text().startswith("Model: not loaded")
    window.apply_settings(replace(window.app_settings, model=""))
    qtbot.waitUntil(lambda: status.loaded_model is not None and not status.busy, timeout=60_000)
    assert window.current_model().source == "default"
    assert status.model_label.text().startswith(f"Model: {window.current_model().name}")
    window.close()


def _help_action(window, text: str):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == text)


def test_help_result_classes_describes_both_checks_and_names_the_one_in_use(qtbot, window):
    """Defect 3: the page said Equivalent came from K* cross-checks, 'not a proof', while the verdict is proven."""
    _help_action(window, "Result classes").trigger()
    page = window.classes_dialog.browser.toPlainText()
    assert "Proven (in use now" in page and "The paper's cross-check:" in page
    equivalent = page[page.index("4. Equivalent"):page.index("How Different and Equivalent")]
    assert "not a proof" not in equivalent and "K*" not in equivalent
    window.classes_dialog.close()
    window.apply_settings(replace(window.app_settings, equivalence="paper"))
    _help_action(window, "Result classes").trigger()
    page = window.classes_dialog.browser.toPlainText()
    assert "The paper's cross-check (in use now" in page and "Proven:" in page


def test_evaluate_on_an_empty_editor_says_there_is_nothing_to_judge(qtbot, window):
    """Defect 11: a red NoPDDL verdict for an empty editor."""
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText("  \n")
    window.evaluate_action.trigger()
    assert not window.runner.busy and window.result_panel.badge.result_class is None
    assert window.result_panel.message.text().startswith("Nothing to judge")
    assert window.status_label.text() == "Nothing to judge yet"


def test_the_edit_menu_has_undo_redo_cut_copy_paste_for_the_answer(qtbot, window):
    """Defect 11: the Edit menu had no Undo, Redo, Cut, Copy or Paste."""
    select(qtbot, window, "gripper", "pick")
    editor = window.answer_panel.editor
    actions = window.edit_actions
    assert list(actions)[:5] == ["Undo", "Redo", "Cut", "Copy", "Paste"]
    assert all(not a.shortcut().isEmpty() for a in actions.values())
    editor.setFocus()
    qtbot.keyClicks(editor, "(pick)")
    assert actions["Undo"].isEnabled() and not actions["Redo"].isEnabled()
    actions["Undo"].trigger()
    assert editor.toPlainText() == "" and actions["Redo"].isEnabled()
    actions["Redo"].trigger()
    editor.selectAll()
    assert actions["Copy"].isEnabled() and actions["Cut"].isEnabled()
    actions["Cut"].trigger()
    assert editor.toPlainText() == ""
    actions["Paste"].trigger()
    assert editor.toPlainText() == "(pick)"


def test_the_window_title_names_the_app_once(qtbot, window):
    """Defect 11: Qt appends the application's display name to every window title; the title had it too."""
    QApplication.setApplicationDisplayName("Domain Drafter")   # as the app's entry point sets it
    select(qtbot, window, "gripper", "move")
    assert window.windowTitle() == "gripper / move"


def test_the_authoring_window_opens_on_the_selected_action(qtbot, window):
    """Defect 11: it opened on the first action."""
    select(qtbot, window, "blocksworld", "stack")
    window.authoring_action.trigger()
    authoring = window.authoring_windows[-1]
    assert authoring.selected() == "stack" and "(:action stack" in authoring.editor.toPlainText()


TRANSFER = ("(:action transfer :parameters (?obj - ball ?from - room ?to - room ?g - gripper) "
            ":precondition (and (at-robby ?from) (carry ?obj ?g)) "
            ":effect (and (at-robby ?to) (not (at-robby ?from)) (at ?obj ?to) (free ?g) (not (carry ?obj ?g))))")


def test_try_it_reads_as_sentences(qtbot, bundles, tmp_path):
    """Defect 10: the Try it lines ran together without punctuation."""
    copy = WorkingCopy.from_bundle(bundles["gripper"])
    copy.save(tmp_path / "g")   # bound to a folder: autosaved, so closing asks nothing
    win = AuthoringWindow(copy, AppState(AppSettings(preload_model=False)))
    qtbot.addWidget(win)
    win.show()
    dialog = NewActionDialog(win)
    dialog.name.setText("transfer")
    dialog.parameters.setText("?obj - ball ?from ?to - room ?g - gripper")
    dialog.summary.setText("The robot carries ball {obj} in gripper {g} from room {from} to room {to}.")
    win.add_action(dialog.spec())
    win.editor.setPlainText(TRANSFER)
    with qtbot.waitSignal(win.job_ended, timeout=60_000, check_params_cb=lambda kind, _o: kind == JobKind.TRY):
        qtbot.mouseClick(win.try_button, Qt.MouseButton.LeftButton)
    lines = [line.strip() for line in win.verdict.toPlainText().splitlines() if line.strip()]
    assert lines[0] == "Try it: transfer is used by the plans." and len(lines) > 3
    assert all(line.endswith((".", ":")) for line in lines), lines
    assert win.status.text() == lines[0]


def test_a_users_domain_named_like_a_bundled_one_shows_its_folder(qtbot, window, tmp_path, bundles, monkeypatch):
    """Defect 8: the bundled depot and a user's depot folder both showed as 'depot'."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / "work" / "depot"
    shutil.copytree(bundles["depot"].folder, folder)
    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == ("open", "finished")
    panel = window.domain_panel
    rows = [panel.domain_list.item(r) for r in range(panel.domain_count())]
    depots = [item for item in rows if item.text().startswith("depot")]
    assert [item.text() for item in depots] == ["depot", "depot\n~/work/depot"]
    assert depots[0].toolTip().startswith("bundled domain: ") and str(folder) in depots[1].toolTip()
    assert panel.domain_names().count("depot") == 2 and window.current_bundle().folder == folder
    assert panel.select_domain("depot") and window.current_bundle().name == "depot"


def _choose(qtbot, parent, purpose: Purpose, chosen: Path) -> Path:
    """Accept the open file dialog of `purpose` on `chosen`; returns the folder it had opened in."""
    qtbot.waitUntil(lambda: parent.findChild(QFileDialog, f"{purpose.value}Dialog") is not None)
    dialog = parent.findChild(QFileDialog, f"{purpose.value}Dialog")
    opened_in = Path(dialog.directory().absolutePath())
    dialog.setDirectory(str(chosen.parent))
    dialog.selectFile(str(chosen))
    dialog.accept()
    qtbot.waitUntil(lambda: parent.findChild(QFileDialog, f"{purpose.value}Dialog") is None)   # deleted on close
    return opened_in


def test_each_file_dialog_opens_in_the_folder_last_used_for_its_purpose(qtbot, window, tmp_path, tiny_model, bundles,
                                                                        monkeypatch):
    """Defect 9: after saving a counterexample, Model file > Browse and Save domain as… opened in that folder."""
    monkeypatch.setenv("HOME", str(tmp_path))
    models, domains, elsewhere = tmp_path / "models", tmp_path / "domains", tmp_path / "problems"
    for folder in (models, domains, elsewhere):
        folder.mkdir()
    model = models / "tiny.gguf"
    shutil.copy(tiny_model, model)
    shutil.copytree(bundles["gripper"].folder, domains / "my-gripper")
    window.open_model_dialog()
    assert _choose(qtbot, window, Purpose.MODEL, model) == tmp_path   # nothing remembered yet: the home folder
    assert window.state.model.path == model
    window.open_domain_dialog()
    _choose(qtbot, window, Purpose.DOMAIN, domains / "my-gripper")
    qtbot.waitUntil(lambda: window.current_bundle().folder == domains / "my-gripper", timeout=30_000)
    stray = QFileDialog(window, "another dialog", str(elsewhere))   # Qt's own last folder moves there
    stray.selectFile(str(elsewhere))
    stray.accept()
    assert last_folder(Purpose.MODEL) == models and last_folder(Purpose.DOMAIN) == domains
    window.open_model_dialog()
    assert _choose(qtbot, window, Purpose.MODEL, model) == models
    window.open_domain_dialog()
    assert _choose(qtbot, window, Purpose.DOMAIN, domains / "my-gripper") == domains
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=30_000)
    window.show_settings()
    settings = window.settings_dialog
    settings.model_edit.setText("")
    settings._browse()
    assert _choose(qtbot, settings, Purpose.MODEL, model) == models and settings.model_edit.text() == str(model)
    settings.reject()


def test_the_new_action_dialog_is_wide_titled_and_speaks_the_domains_types(qtbot, bundles, tmp_path):
    """Defect 11: the New action… dialog was tiny, its title cut off, and its placeholders used gripper's types."""
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "b")
    win = AuthoringWindow(copy, AppState(AppSettings(preload_model=False)))
    qtbot.addWidget(win)
    win.show()
    seen = {}

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        seen.update(title=dialog.windowTitle(), width=dialog.width(), parameters=dialog.parameters.placeholderText(),
                    summary=dialog.summary.placeholderText(), title_px=dialog.fontMetrics().horizontalAdvance(
                        dialog.windowTitle()))
        dialog.reject()

    QTimer.singleShot(200, look)
    win._ask_new_action()   # the window's own New action… (exec: the timer answers it)
    assert seen["title"] == "New action in blocksworld"
    assert seen["width"] >= 560 and seen["width"] > 2 * seen["title_px"]
    assert seen["parameters"] == "?x - block ?y - block" and "ball" not in seen["parameters"] + seen["summary"]
