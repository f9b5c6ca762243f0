"""The real app on a real X server: Xvfb (started here) at 1280x800, Qt's xcb platform plugin.

The app runs in its own process through `domain_drafter.gui.app.main()` (platform check included),
loads the domains and a tiny real model in the background, draws, and after a few seconds its
window is read back from the X server's framebuffer and closed; the process must exit with 0.
Xvfb and the xcb libraries come from packaging/linux-system-packages.sh (`make test` runs it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from domain_drafter.gui import app as gui_app
from domain_drafter.gui.startup.platform_check import check_platform
from domain_drafter.gui.state.settings import AppSettings, save_settings

RUN_SECONDS = 3
PROBE = r"""
import json, sys
from PySide6.QtCore import QThreadPool, QTimer
from PySide6.QtWidgets import QApplication
from domain_drafter.gui import app as gui_app

app = QApplication(sys.argv)   # made here only to schedule the probe; main() uses this one
seen = {}

def probe(tries=100):
    from domain_drafter.gui.main.window import MainWindow
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    ready = windows and windows[0].domain_panel.domain_count() == 9 and windows[0].model_status.loaded_model
    if not ready and tries > 0:   # a slow machine: give it up to 20 s more
        QTimer.singleShot(200, lambda: probe(tries - 1))
        return
    if not windows:
        seen["error"] = "no main window"
        app.quit()
        return
    w = windows[0]
    shot = w.screen().grabWindow(0).toImage()   # what the X server shows
    frame = w.frameGeometry()
    colours = {shot.pixel(x, y) for y in range(0, shot.height(), 5) for x in range(0, shot.width(), 5)}
    seen.update(platform=QApplication.platformName(), screen=[shot.width(), shot.height()],
                frame=[frame.x(), frame.y(), frame.width(), frame.height()], colours=len(colours),
                maximised=w.isMaximized(), domains=w.domain_panel.domain_count(),
                model=w.model_status.model_label.text(), icon=not QApplication.windowIcon().isNull())
    w.close()

QTimer.singleShot(int(sys.argv[1]) * 1000, probe)
code = gui_app.main([])
seen["exit"] = code
seen["threads_left"] = QThreadPool.globalInstance().activeThreadCount()
print("PROBE " + json.dumps(seen))
"""


def require_xvfb() -> str:
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.fail("Xvfb is not installed: run `sudo sh packaging/linux-system-packages.sh` "
                    "(or `sudo apt-get install xvfb`; Fedora: `sudo dnf install xorg-x11-server-Xvfb`)")
    return xvfb


@pytest.fixture
def x_display(tmp_path):
    """A fresh Xvfb at 1280x800x24; yields its DISPLAY value."""
    xvfb = require_xvfb()
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        pytest.fail(f"Xvfb did not start: {server.stderr.read().decode(errors='replace')[-1000:]}")
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_real_app_starts_draws_and_quits_under_xvfb(x_display, tmp_path, tiny_model, monkeypatch):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=x_display, QT_QPA_PLATFORM="xcb", XDG_CONFIG_HOME=str(tmp_path / "config"),
               DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"), DOMAIN_DRAFTER_THEME="light")
    report = check_platform(env)
    assert report.ok, report.message()   # the xcb libraries are there (else: the command that installs them)
    monkeypatch.setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])
    save_settings(AppSettings(model=str(tiny_model)))   # preload the tiny model, not the 250 MB default
    out = subprocess.run([sys.executable, "-c", PROBE, str(RUN_SECONDS)], env=env, capture_output=True,
                         text=True, timeout=120)
    lines = [line for line in out.stdout.splitlines() if line.startswith("PROBE ")]
    assert out.returncode == 0 and lines, out.stderr[-3000:]
    seen = json.loads(lines[0][len("PROBE "):])
    assert seen["platform"] == "xcb" and seen["screen"] == [1280, 800]
    assert seen["exit"] == 0 and seen["threads_left"] == 0
    assert seen["domains"] == 9 and "tiny-llama" in seen["model"]
    assert seen["maximised"]
    x, y, w, h = seen["frame"]
    assert x >= 0 and y >= 0 and x + w <= 1280 and y + h <= 800   # the whole window is on the screen
    assert seen["colours"] > 20   # drawn, not a blank framebuffer
    assert seen["icon"] == gui_app.icon_path().is_file()   # the application icon, once packaging ships it
    assert "Traceback" not in out.stderr
