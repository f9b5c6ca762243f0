"""The start-up check: before the QApplication, say which system packages Qt's xcb plugin lacks.

The missing library is real: the test copies PySide6's own xcb plugin and rewrites one of its
DT_NEEDED entries (the libxcb-cursor that fresh Debian installs lack) to the name of a library
this machine does not have, so `ldd` reports it "not found", exactly as on such a machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from domain_drafter.gui.startup import platform_check as pc

# sonames in the package table no longer than "libxcb-cursor.so.0", so they fit in its place
ABSENT_CANDIDATES = ("libxcb-xinput.so.0", "libxcb-glx.so.0", "libOpenGL.so.0", "libICE.so.6", "libSM.so.6")


def is_installed(soname: str) -> bool:
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    return f"{soname} " in out


@pytest.fixture(scope="module")
def plugin_without_a_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    real = pc.xcb_plugin_path()
    assert real is not None and real.is_file(), "PySide6's xcb plugin is missing: pip install PySide6-Essentials"
    absent = next((s for s in ABSENT_CANDIDATES if not is_installed(s)), None)
    assert absent is not None, f"every candidate library is installed here: {ABSENT_CANDIDATES}"
    root = tmp_path_factory.mktemp("qt")
    (root / "plugins" / "platforms").mkdir(parents=True)
    os.symlink(real.parent.parent.parent / "lib", root / "lib")   # the plugin's RUNPATH is $ORIGIN/../../lib
    data = real.read_bytes()
    needed = b"libxcb-cursor.so.0\0"
    assert data.count(needed) == 1, "the plugin no longer names libxcb-cursor.so.0 once"
    patched = data.replace(needed, absent.encode().ljust(len(needed), b"\0"))
    plugin = root / "plugins" / "platforms" / pc.XCB_PLUGIN
    plugin.write_bytes(patched)
    return plugin, absent


def test_the_real_plugin_loads_here(qapp):
    # this machine has the libraries (packaging/linux-system-packages.sh installs them)
    real = pc.xcb_plugin_path()
    assert pc.missing_libraries(real) == (), pc.check_plugin(real).message()


def test_a_plugin_without_its_library_names_the_packages_and_the_command(plugin_without_a_library):
    plugin, absent = plugin_without_a_library
    report = pc.check_plugin(plugin)
    debian, fedora = pc.LIBRARY_PACKAGES[absent]
    assert report.outcome is pc.Outcome.MISSING_LIBRARIES and not report.ok
    assert report.missing == (absent,)
    assert report.debian == (debian,) and report.fedora == (fedora,)
    text = report.message()
    assert absent in text
    assert f"sudo apt-get install {debian}" in text and f"sudo dnf install {fedora}" in text


def test_the_check_applies_to_xcb_with_a_display_only(plugin_without_a_library):
    plugin, _absent = plugin_without_a_library
    x11 = {"DISPLAY": ":0"}
    assert pc.check_platform(x11, plugin).outcome is pc.Outcome.MISSING_LIBRARIES
    assert pc.check_platform({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb;wayland"}, plugin).outcome \
        is pc.Outcome.MISSING_LIBRARIES
    assert pc.check_platform({"QT_QPA_PLATFORM": "offscreen"}, plugin).ok
    assert pc.check_platform({"WAYLAND_DISPLAY": "wayland-0"}, plugin).ok   # Qt picks its wayland plugin
    assert pc.check_platform({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, plugin).ok   # XWayland too
    assert pc.check_platform({}, plugin).outcome is pc.Outcome.NO_DISPLAY
    assert "domain-drafter --help" in pc.check_platform({}, plugin).message()
    assert pc.check_platform(x11, plugin.parent / "libnothing.so").outcome is pc.Outcome.NO_PLUGIN


def test_an_unknown_library_is_named_with_how_to_find_its_package():
    debian, fedora, notes = pc.packages_for(("libxcb-cursor.so.0", "libweird.so.3"))
    assert debian == ("libxcb-cursor0",) and fedora == ("xcb-util-cursor",)
    assert len(notes) == 1 and "libweird.so.3" in notes[0] and "apt-file search" in notes[0]


def test_the_command_line_check_exits_1_with_the_message_on_stderr():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "domain_drafter.gui.startup.platform_check"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "needs a graphical display" in out.stderr and out.stdout == ""


def test_the_script_names_every_debian_package_of_the_table():
    script = (Path(__file__).parents[2] / "packaging" / "linux-system-packages.sh").read_text(encoding="utf-8")
    for soname in ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxkbcommon-x11.so.0"):
        assert pc.LIBRARY_PACKAGES[soname][0] in script
    assert "xvfb" in script
