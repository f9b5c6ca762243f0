"""The AppState is the one source of truth: a change of its target reaches every view, and a widget's own
write does not come back to it (the views show the state under QSignalBlocker).

Real parts: the real main window offscreen on the bundled domains; the state changed as code and as a user.
"""

from __future__ import annotations

import shutil

from gui_helpers import run_job, select

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.gui.panels.domain_panel import BundleRole

MY_ANSWER = "(:action put-down :parameters (?x - block) :precondition (holding ?x) :effect (ontable ?x))"


def _bundle(window, name: str):
    return next(b for b in window.state.bundles if b.name == name)


def test_changing_the_app_states_target_updates_the_views_silently(qtbot, window):
    select(qtbot, window, "blocksworld", "put-down")
    window.answer_panel.set_text(MY_ANSWER)
    state, gripper = window.state, _bundle(window, "gripper")
    targets, echoes = [], []
    state.target_changed.connect(targets.append)
    window.domain_panel.domain_selected.connect(echoes.append)
    window.domain_panel.action_selected.connect(echoes.append)
    window.description_panel.options_changed.connect(lambda *args: echoes.append(args))

    state.set_target(gripper, "drop")
    assert [t.key for t in targets] == [(str(gripper.path), "drop")]   # one change: no write came back
    assert echoes == []                                                # every panel showed it silently
    assert window.current_bundle() is gripper and window.domain_panel.action_names() == ["move", "pick", "drop"]
    assert window.current_action() == "drop"
    assert "drop" in window.description_panel.action_label.text()
    assert window.description_panel.predicate_model.rowCount() == len(gripper.domain.predicates)
    assert window.answer_panel.text() == "" and "gripper / drop" in window.windowTitle()
    assert window.drafts.evaluate_worker() is None   # the controller reads the state's (empty) answer target

    state.set_description(DescriptionClass.FLIPPED, 7)
    assert (window.description_panel.description_class(), window.description_panel.seed()) == \
        (DescriptionClass.FLIPPED, 7)
    assert len(targets) == 2 and echoes == []

    state.set_target(_bundle(window, "blocksworld"), "put-down")   # back: the answer kept for it returns
    assert window.current_bundle().name == "blocksworld" and window.current_action() == "put-down"
    assert window.answer_panel.text() == MY_ANSWER and echoes == [] and len(targets) == 3


def test_a_users_pick_is_written_to_the_state_once(qtbot, window):
    select(qtbot, window, "gripper", "move")
    state = window.state
    targets = []
    state.target_changed.connect(targets.append)
    assert window.domain_panel.select_action("pick")
    assert [(t.bundle.name, t.action) for t in targets] == [("gripper", "pick")]
    window.description_panel.seed_spin.setValue(state.seed + 3)
    window.description_panel.class_combo.setCurrentIndex(
        window.description_panel.class_combo.findData(DescriptionClass.RANDOM))
    assert [(t.description_class, t.seed) for t in targets[1:]] == \
        [(targets[0].description_class, targets[0].seed + 3), (DescriptionClass.RANDOM, targets[0].seed + 3)]
    assert state.draft_options().description_class is DescriptionClass.RANDOM   # what the engine gets
    assert window.domain_panel.select_domain("blocksworld")
    assert [(t.bundle.name, t.action) for t in targets[3:]] == [("blocksworld", "pick-up")]
    assert len(targets) == 4   # each pick once: the views' show-back under QSignalBlocker wrote nothing



def test_the_authoring_selection_is_a_state_the_table_writes_and_the_editor_follows(qtbot, bundles, tmp_path):
    from domain_drafter.drafting.workspace import WorkingCopy
    from domain_drafter.gui.authoring.window import AuthoringWindow
    from domain_drafter.gui.state.app_state import AppState
    from domain_drafter.gui.state.settings import AppSettings

    state = AppState(AppSettings(preload_model=False))
    state.set_target(bundles["blocksworld"], "stack")
    copy = WorkingCopy.from_bundle(bundles["blocksworld"])
    copy.save(tmp_path / "bw")   # bound to a folder: closing asks nothing
    win = AuthoringWindow(copy, state)
    qtbot.addWidget(win)
    win.show()
    assert win.selected() == "stack" == win.actions_model.name_at(win.table.currentIndex().row())   # opened on it
    changes = []
    win.selection.changed.connect(changes.append)

    win.selection.set("put-down")   # written as code: the table and the editor follow, once
    assert changes == ["put-down"] and win.actions_model.name_at(win.table.currentIndex().row()) == "put-down"
    assert win.editor.toPlainText().startswith("(:action put-down")
    assert not win._scratch_timer.isActive()   # the shown text was set silently: nothing to keep
    assert win.workspace.entries["put-down"].scratch is None

    win.table.selectRow(win.actions_model.row_of("unstack"))   # a user's pick: written to the selection once
    assert changes == ["put-down", "unstack"] and win.selected() == "unstack"
    assert win.editor.toPlainText().startswith("(:action unstack")

    win.editor.insertPlainText(";; mine\n")   # typed: kept after the pause
    assert win._scratch_timer.isActive()
    win.select("stack")                       # the typed text is kept before the editor changes
    assert win.workspace.entries["unstack"].scratch.startswith(";; mine")
    assert changes[-1] == "stack" and len(changes) == 3
    qtbot.waitUntil(lambda: not win.saver.busy and not copy.dirty, timeout=10_000)
    assert win.close()


def test_the_model_selector_follows_the_states_model_without_writing_back(qtbot, window, tiny_model):
    from domain_drafter.llm.models import ModelEntry

    state = window.state
    default = state.model
    entry = ModelEntry(tiny_model.stem, tiny_model, tiny_model.stat().st_size, "path")
    picks, settings = [], []
    window.model_selector.currentIndexChanged.connect(picks.append)
    state.settings_changed.connect(settings.append)
    state.set_model(entry)
    assert window.model_selector.current_entry() == entry and window.current_model() == entry
    assert picks == [] and settings == []   # shown silently: not taken for a user's choice (not saved)
    window.model_selector.setCurrentIndex(window.model_selector.findData(default))   # the user's pick
    assert state.model == default and len(picks) == 1


_STATE_SIGNALS = {"settings_changed": "PyObject", "settings_save_failed": "PyObject", "bundles_changed": "PyObject",
                  "domains_changed": "PyObject", "target_changed": "PyObject", "model_changed": "PyObject",
                  "model_entries_changed": "PyObject", "running_changed": "bool"}


def _receivers(state) -> dict[str, int]:
    return {name: state.receivers(f"2{name}({kind})") for name, kind in _STATE_SIGNALS.items()}


def test_a_deleted_main_window_leaves_no_connection_to_a_shared_state(qtbot, private_homes, bundles, capfd):
    from dataclasses import replace

    from domain_drafter.gui.main.window import MainWindow
    from domain_drafter.gui.state.app_state import AppState
    from domain_drafter.gui.state.settings import AppSettings

    state = AppState(AppSettings(preload_model=False))
    before = _receivers(state)
    win = MainWindow(state=state, load=False)
    assert _receivers(state)["target_changed"] > before["target_changed"]   # the views followed it
    gone: list[bool] = []
    win.destroyed.connect(lambda *_: gone.append(True))
    win.close()
    win.deleteLater()
    qtbot.waitUntil(lambda: bool(gone), timeout=5000)
    assert _receivers(state) == before
    state.update_settings(replace(state.settings, seed=state.settings.seed + 1), save=False)
    state.set_bundles(list(bundles.values()))
    state.set_target(bundles["gripper"], "drop")
    state.set_description(state.description_class, state.seed + 1)
    state.set_model(None)
    state.add_domain(bundles["gripper"])
    state.set_model_entries(())
    state.settings_save_failed.emit(OSError("disk full"))
    state.running_changed.emit(False)
    qtbot.wait(20)
    assert "already deleted" not in capfd.readouterr().err


def test_the_grammar_switch_writes_the_setting_and_follows_it(qtbot, window):
    from dataclasses import replace

    state, check = window.state, window.grammar_check
    written, toggles = [], []
    state.settings_changed.connect(written.append)
    check.toggled.connect(toggles.append)
    state.update_settings(replace(state.settings, grammar=not check.isChecked()), save=False)
    assert check.isChecked() is state.settings.grammar and toggles == []   # shown silently
    assert len(written) == 1
    check.click()                                                           # the user's switch: one write
    assert state.settings.grammar is check.isChecked() and len(written) == 2 and len(toggles) == 1


def _rows(window) -> list[tuple[str, object]]:
    panel = window.domain_panel
    return [(panel.domain_list.item(r).text(), panel.domain_list.item(r).data(BundleRole)) for r in
            range(panel.domain_count())]


def test_the_domain_list_is_the_states_domains_shown_in_place(qtbot, window, tmp_path):
    from domain_drafter.core.bundle import load_bundle_path

    select(qtbot, window, "blocksworld", "stack")
    state = window.state
    pool = state.bundles
    assert [bundle for _text, bundle in _rows(window)] == list(state.domains) == list(pool)   # listed from the state
    folder = tmp_path / "mine" / "gripper"
    shutil.copytree(_bundle(window, "gripper").folder, folder)
    echoes, targets = [], []
    window.domain_panel.domain_selected.connect(echoes.append)
    window.domain_panel.action_selected.connect(echoes.append)
    state.target_changed.connect(targets.append)

    mine = load_bundle_path(folder)
    state.add_domain(mine)                                        # written as code: the list follows, silently
    assert _rows(window)[-1][1] is mine and _rows(window)[-1][0].startswith("gripper\n")
    assert len(_rows(window)) == len(pool) + 1 and state.bundles == pool   # not drawn as a prompt example
    assert echoes == [] and targets == []
    assert (window.current_bundle().name, window.current_action()) == ("blocksworld", "stack")   # selection kept

    again = load_bundle_path(folder)                              # the same file read again: in place
    state.add_domain(again)
    assert [b for _t, b in _rows(window)] == [*pool, again] and echoes == [] and targets == []
    state.set_target(again, "drop")
    assert window.domain_panel.current_bundle() is again and window.domain_panel.current_action() == "drop"
    assert window.domain_panel.action_names() == list(again.action_names) and echoes == []

    assert run_job(qtbot, window, lambda: window.open_domain_folder(folder)) == ("open", "finished")   # File > Open
    assert len(_rows(window)) == len(pool) + 1 and state.opened[-1] is window.current_bundle()
    assert window.domain_panel.current_bundle() is state.bundle and state.action == state.bundle.action_names[0]


def test_the_model_selector_lists_the_states_models_and_a_users_pick_is_written(qtbot, window, tiny_model):
    from domain_drafter.llm.models import ModelEntry

    state, selector = window.state, window.model_selector

    def listed() -> list:
        return [selector.itemData(row) for row in range(selector.count())]

    assert listed() == list(state.model_entries) and selector.current_entry() == state.model
    default = state.model
    picks, settings = [], []
    selector.currentIndexChanged.connect(picks.append)
    state.settings_changed.connect(settings.append)

    tiny = ModelEntry(tiny_model.stem, tiny_model, tiny_model.stat().st_size, "user")
    state.add_model_entries([tiny, default])                      # joins once; the selection stays
    assert listed() == [*state.model_entries] and listed()[-1] == tiny and selector.current_entry() == default
    state.add_model_entries([tiny])
    assert listed().count(tiny) == 1 and picks == [] and settings == []
    state.set_model_entries([tiny])                               # the model in use stays on offer
    assert listed() == [tiny, default] and selector.current_entry() == default and picks == []

    assert window.add_model_file(tiny_model) == tiny              # File > Open model file: the listed entry
    assert state.model == tiny == selector.current_entry() and listed() == [tiny, default]
    assert state.settings.model == str(tiny_model) and len(settings) == 1   # the user's choice is the setting
    selector.setCurrentIndex(selector.findData(default))          # the user's pick in the toolbar
    assert state.model == default and state.settings.model == "" and len(picks) == 1
