"""Can Qt open a window here? Checked before the QApplication exists, so a missing system library
gives a message naming the packages to install instead of Qt's abort.

On Linux, PySide6 draws through its xcb platform plugin (X11 and XWayland), a shared library that
needs a dozen X11/xcb system libraries which minimal installs lack. `check_platform` runs `ldd`
on the plugin, maps every library reported "not found" to its Debian/Ubuntu and Fedora package,
and says which command installs them. No Qt module is imported here (only PySide6's location).

`python -m domain_drafter.gui.startup.platform_check` prints the result (exit 1 on a problem); `make run`
calls it before starting the app.
"""

from __future__ import annotations

import enum
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# soname -> (Debian/Ubuntu package, Fedora package)
LIBRARY_PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libICE.so.6": ("libice6", "libICE"),
    "libSM.so.6": ("libsm6", "libSM"),
}
XCB_PLUGIN = "libqxcb.so"
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


class Outcome(enum.Enum):
    OK = "ok"                       # the plugin's libraries are all there (or no check applies)
    MISSING_LIBRARIES = "missing"   # ldd found libraries that are not installed
    NO_DISPLAY = "no-display"       # neither DISPLAY nor WAYLAND_DISPLAY: no screen to open a window on
    NO_PLUGIN = "no-plugin"         # PySide6's xcb plugin file is not where it should be


@dataclass(frozen=True)
class PlatformReport:
    outcome: Outcome
    plugin: Path | None = None
    missing: tuple[str, ...] = ()                 # sonames, as ldd names them
    debian: tuple[str, ...] = ()                  # packages, in the order of `missing`, no duplicates
    fedora: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    @property
    def apt_command(self) -> str:
        return "sudo apt-get install " + " ".join(self.debian) if self.debian else ""

    @property
    def dnf_command(self) -> str:
        return "sudo dnf install " + " ".join(self.fedora) if self.fedora else ""

    def message(self) -> str:
        """What to tell the user, in plain lines."""
        if self.outcome is Outcome.OK:
            return "The Qt platform plugin can load."
        if self.outcome is Outcome.NO_DISPLAY:
            return ("Domain Drafter needs a graphical display, and there is none (DISPLAY and WAYLAND_DISPLAY "
                    "are not set).\nStart it from a desktop session, or use the command line: "
                    "`domain-drafter --help`.")
        if self.outcome is Outcome.NO_PLUGIN:
            return (f"Qt's xcb platform plugin is missing ({self.plugin}): the PySide6 installation is "
                    "incomplete.\nReinstall it: pip install --force-reinstall PySide6-Essentials")
        lines = [f"Domain Drafter cannot open its window: Qt's xcb platform plugin needs system libraries "
                 f"that are not installed: {', '.join(self.missing)}.", "",
                 "Install them, then start Domain Drafter again:",
                 f"  Debian/Ubuntu:  {self.apt_command}"]
        if self.fedora:
            lines.append(f"  Fedora:         {self.dnf_command}")
        lines += list(self.notes)
        return "\n".join(lines)


def pyside_plugin_dir() -> Path | None:
    """PySide6's Qt plugin folder, found without importing any Qt module (None: no PySide6)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins"


def xcb_plugin_path() -> Path | None:
    folder = pyside_plugin_dir()
    return folder / "platforms" / XCB_PLUGIN if folder is not None else None


def wanted_platform(environ: dict[str, str] | os._Environ[str]) -> str:
    """The platform plugin Qt will try first: QT_QPA_PLATFORM's first name, else xcb or wayland."""
    explicit = environ.get("QT_QPA_PLATFORM", "").strip()
    if explicit:
        return explicit.split(";")[0].split(":")[0].strip()
    if environ.get("WAYLAND_DISPLAY"):   # a Wayland session (XWayland may set DISPLAY too): Qt 6 prefers wayland
        return "wayland"
    return "xcb"


def missing_libraries(plugin: Path) -> tuple[str, ...]:
    """The sonames `ldd` reports "not found" for `plugin` (its dependencies' too), in its order."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return ()
    try:
        out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=20,
                             env=dict(os.environ, LC_ALL="C"))
    except (OSError, subprocess.SubprocessError):
        return ()
    seen: list[str] = []
    for name in _NOT_FOUND.findall(out.stdout + out.stderr):
        if name not in seen:
            seen.append(name)
    return tuple(seen)


def packages_for(sonames: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(Debian packages, Fedora packages, notes for sonames this table does not know)."""
    debian: list[str] = []
    fedora: list[str] = []
    notes: list[str] = []
    for soname in sonames:
        pair = LIBRARY_PACKAGES.get(soname)
        if pair is None:
            notes.append(f"  ({soname}: find its package with `apt-file search {soname}` or `dnf provides '*/{soname}'`)")
            continue
        if pair[0] not in debian:
            debian.append(pair[0])
        if pair[1] not in fedora:
            fedora.append(pair[1])
    return tuple(debian), tuple(fedora), tuple(notes)


def check_plugin(plugin: Path) -> PlatformReport:
    """Check one xcb plugin file (tests pass a plugin whose libraries are not all there)."""
    if not plugin.is_file():
        return PlatformReport(Outcome.NO_PLUGIN, plugin)
    missing = missing_libraries(plugin)
    if not missing:
        return PlatformReport(Outcome.OK, plugin)
    debian, fedora, notes = packages_for(missing)
    return PlatformReport(Outcome.MISSING_LIBRARIES, plugin, missing, debian, fedora, notes)


def check_platform(environ: dict[str, str] | os._Environ[str] | None = None,
                   plugin: Path | None = None) -> PlatformReport:
    """Will Qt be able to open a window? Only Linux with the xcb plugin is checked."""
    environ = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return PlatformReport(Outcome.OK)
    platform = wanted_platform(environ)
    if platform != "xcb":
        return PlatformReport(Outcome.OK)   # offscreen, wayland, vnc...: Qt reports its own problems
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
        return PlatformReport(Outcome.NO_DISPLAY)
    plugin = plugin or xcb_plugin_path()
    if plugin is None:
        return PlatformReport(Outcome.NO_PLUGIN)
    return check_plugin(plugin)


DIALOG_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("zenity", "--error", "--no-markup", "--title=Domain Drafter", "--text={text}"),
    ("kdialog", "--title", "Domain Drafter", "--error", "{text}"),
    ("xmessage", "-center", "{text}"),
)


def show_native_dialog(text: str) -> bool:
    """Show `text` with the first desktop dialog tool found (they need no Qt); True if one ran."""
    for command in DIALOG_COMMANDS:
        if shutil.which(command[0]) is None:
            continue
        try:
            subprocess.run([part.replace("{text}", text) for part in command], timeout=600,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            continue
        return True
    return False


def main() -> int:
    report = check_platform()
    if report.ok:
        print(report.message())
        return 0
    print(report.message(), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
