"""Issue 41, defect 1: File > Quit with a benchmark run going asks once, then the PROCESS exits.

The real app runs in its own process (`gui.app.main()`, offscreen) with the tiny real model. A probe
starts a benchmark run from Benchmark > Run benchmark…, quits with File > Quit once the first answer is
in, answers "Stop the run and quit", and reports every question box it sees afterwards. The test
measures how long the process takes to exit after that answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from domain_drafter.gui.state.settings import AppSettings, save_settings

EXIT_WITHIN_S = 5.0
PROBE = r"""
import json, sys, time
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from domain_drafter.gui import app as gui_app

app = QApplication(sys.argv)
model, results = sys.argv[1], sys.argv[2]
seen = {"boxes": []}

def say(**values):
    print("PROBE " + json.dumps(values), flush=True)

def main_window():
    from domain_drafter.gui.main.window import MainWindow
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()), None)

def start(tries=200):
    w = main_window()
    if (w is None or w.domain_panel.domain_count() < 9) and tries:
        QTimer.singleShot(100, lambda: start(tries - 1))
        return
    w.benchmark_action.trigger()
    dialog = w.benchmark_dialog
    for row in range(dialog.model_list.count()):
        item = dialog.model_list.item(row)
        item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) == model
                           else Qt.CheckState.Unchecked)
    dialog.findChild(type(dialog.start_button), "domainsNone").click()
    dialog.domain_list.findItems("gripper", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Checked)
    dialog.prompts_spin.setValue(50)
    dialog.path_edit.setText(results)
    say(models=[m.model for m in dialog.spec().models], domains=list(dialog.spec().domains))
    dialog.start_button.click()
    wait_for_answer(w, dialog)

def wait_for_answer(w, dialog, tries=600):
    if (dialog.last_progress is None or dialog.last_progress.generated == 0) and tries:
        QTimer.singleShot(100, lambda: wait_for_answer(w, dialog, tries - 1))
        return
    quit_action = next(a for a in w.menuBar().actions()[0].menu().actions() if a.text() == "Quit")
    quit_action.trigger()
    QTimer.singleShot(200, answer)

def answer(tries=50):
    box = QApplication.activeModalWidget()
    if not isinstance(box, QMessageBox):
        if tries:
            QTimer.singleShot(100, lambda: answer(tries - 1))
        return
    seen["boxes"].append(box.text())
    say(box=box.text(), buttons=[b.text() for b in box.buttons()])
    stop = next(b for b in box.buttons() if b.text().startswith("Stop the run"))
    say(answered=time.time())
    stop.click()
    QTimer.singleShot(300, answer)   # a second question would be answered too, and reported

QTimer.singleShot(0, start)
code = gui_app.main([])
say(exit=code, boxes=len(seen["boxes"]), at=time.time())
"""


def test_quit_with_a_benchmark_run_going_asks_once_and_the_process_exits(tmp_path, tiny_model, monkeypatch):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"),
               DOMAIN_DRAFTER_DATA=str(tmp_path / "data"), DOMAIN_DRAFTER_THEME="light", QT_QPA_PLATFORM="offscreen")
    monkeypatch.setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])
    save_settings(AppSettings(model=str(tiny_model), preload_model=False))
    process = subprocess.Popen([sys.executable, "-c", PROBE, str(tiny_model), str(tmp_path / "run.sqlite")], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said: list[dict] = []
    answered_at = None
    try:
        for line in process.stdout:   # the probe's reports, as they come
            if line.startswith("PROBE "):
                said.append(json.loads(line[len("PROBE "):]))
                if "answered" in said[-1] and answered_at is None:
                    answered_at = time.monotonic()
                    break
        assert answered_at is not None, (said, process.stderr.read()[-3000:] if process.poll() is not None else "")
        try:
            process.wait(timeout=EXIT_WITHIN_S)
        except subprocess.TimeoutExpired:
            rest = [json.loads(x[6:]) for x in process.stdout.readline().splitlines() if x.startswith("PROBE ")]
            raise AssertionError(f"the process was still running {EXIT_WITHIN_S} s after 'Stop the run and quit': "
                                 f"{said + rest}") from None
        exited_after = time.monotonic() - answered_at
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    out = process.stdout.read()
    said += [json.loads(x[6:]) for x in out.splitlines() if x.startswith("PROBE ")]
    assert said[0] == {"models": [str(tiny_model)], "domains": ["gripper"]}
    boxes = [s for s in said if "box" in s]
    assert len(boxes) == 1 and "Stop the run and quit" in boxes[0]["buttons"], said   # one question
    assert said[-1]["exit"] == 0 and said[-1]["boxes"] == 1, said
    assert process.returncode == 0 and exited_after < EXIT_WITHIN_S
    assert "Traceback" not in process.stderr.read()
