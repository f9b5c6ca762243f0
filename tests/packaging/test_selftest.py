"""`domain-drafter --self-test` in this checkout's environment: real domain, real default model, real K*,
the real main window drawn offscreen in a child process; and a real fault reported with what to do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from domain_drafter.selftest import SelfTestReport, StageResult

PROBE = """
import sys
from domain_drafter.cli import main
code = main(sys.argv[1:])
print("QT-IMPORTED:", any(m.startswith(("PySide6", "shiboken6")) for m in sys.modules))
sys.exit(code)
"""


def run_cli(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None):
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=600,
                          env=env, cwd=cwd)


def stage_lines(stdout: str) -> dict[str, str]:
    """stage name -> 'ok' or 'FAIL' from the report."""
    return {line.split()[1]: line.split()[0] for line in stdout.splitlines()
            if line.startswith("  ") and line.split()[:1] in (["ok"], ["FAIL"])}


def test_self_test_passes_every_stage_without_importing_qt_itself(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = run_cli(["--self-test"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert stage_lines(done.stdout) == {"domain": "ok", "model": "ok", "planner": "ok", "gui": "ok"}, done.stdout
    assert "all 4 stages passed" in done.stdout
    assert "K* judged the model's answer" in done.stdout
    assert "main window drawn offscreen" in done.stdout and "9 domains listed, with its icon" in done.stdout
    assert "QT-IMPORTED: False" in done.stdout   # the GUI stage ran in a child process


def test_unwritable_cache_fails_the_model_stage_and_says_what_to_do(tmp_path):
    """A real fault: the cache 'folder' is a file, so the default model cannot be assembled there."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be\n")
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(blocker), QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    probe = ("import sys; from domain_drafter.selftest import run_self_test; r = run_self_test(gui=False); "
             "print(r.format()); sys.exit(0 if r.passed else 1)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600, env=env,
                          cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    stages = stage_lines(done.stdout)
    assert stages == {"domain": "ok", "model": "FAIL", "planner": "ok"}, done.stdout
    assert "what to do: set DOMAIN_DRAFTER_CACHE to a writable folder" in done.stdout
    assert "K* judged the reference action: Equivalent" in done.stdout   # the planner is still checked
    assert "1 of 3 stages failed (model)" in done.stdout


def test_command_is_required_unless_self_test():
    done = run_cli([])
    assert done.returncode == 2
    assert "a COMMAND is required (or --self-test)" in done.stderr


def test_report_prints_what_to_do_under_each_failed_stage_only():
    report = SelfTestReport((StageResult("domain", True, 0.01, "blocksworld: 4 actions"),
                             StageResult("gui", False, 1.5, "libEGL.so.1: cannot open shared object file",
                                         "install the Linux libraries Qt needs")), "header")
    text = report.format()
    assert not report.passed
    assert text.splitlines()[0] == "header"
    assert "  ok    domain" in text and "  FAIL  gui" in text
    assert text.count("what to do:") == 1 and "what to do: install the Linux libraries Qt needs" in text
    assert "1 of 2 stages failed (gui)" in text


def test_gui_failures_map_to_what_to_do():
    """Qt's own messages for the two usual breakages (captured from real runs) get a specific fix."""
    from domain_drafter.selftest import QT_LIBS, _gui_fix

    missing_lib = "ImportError: libEGL.so.1: cannot open shared object file: No such file or directory"
    no_plugin = 'qt.qpa.plugin: Could not load the Qt platform plugin "xcb" in "" even though it was found.'
    assert _gui_fix(missing_lib) == QT_LIBS
    assert _gui_fix(no_plugin) == QT_LIBS
    assert "PySide6-Essentials" in _gui_fix("ModuleNotFoundError: No module named 'PySide6'")
    assert "domain-drafter-gui" in _gui_fix("Segmentation fault")
