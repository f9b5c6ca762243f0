"""The defects a walk through the real app found (issue 23), one test each where a test can see it.

Real parts: the real main and authoring windows offscreen, the real parser and evaluator, real files.
"""

from __future__ import annotations

from dataclasses import replace

from gui_helpers import select

from domain_drafter.gui.authoring.window import AuthoringWindow


def _every_state_signal(state) -> None:
    """Change everything the app state announces: settings, bundles, target, model, running jobs."""
    state.update_settings(replace(state.settings, threads=state.settings.threads + 1), save=False)
    state.set_bundles(state.bundles)
    state.set_target(state.bundle, state.action)
    state.set_model(None)
    state.set_model(state.model_entries[0] if state.model_entries else None)
    state.running_changed.emit()


def test_a_closed_authoring_window_leaves_no_connection_to_the_app_state(qtbot, window, capfd):
    select(qtbot, window, "blocksworld", "put-down")
    state = window.state
    before = {name: state.receivers(f"2{signature}") for name, signature in _SIGNATURES.items()}
    for _ in range(2):
        window.authoring_action.trigger()
        authoring = window.authoring_windows[-1]
        assert isinstance(authoring, AuthoringWindow)
        gone: list[bool] = []
        authoring.destroyed.connect(lambda *_: gone.append(True))
        authoring.close()
        qtbot.waitUntil(lambda: bool(gone), timeout=5000)   # closed, then deleted (deleteLater)
    assert window.authoring_windows == []
    _every_state_signal(state)   # a slot of a deleted window would raise here (pytest-qt fails the test)
    qtbot.wait(50)
    after = {name: state.receivers(f"2{signature}") for name, signature in _SIGNATURES.items()}
    assert after == before
    assert "already deleted" not in capfd.readouterr().err


_SIGNATURES = {"settings_changed": "settings_changed(PyObject)", "bundles_changed": "bundles_changed()",
               "target_changed": "target_changed()", "model_changed": "model_changed(PyObject)",
               "running_changed": "running_changed()"}
