"""The desktop integration files: valid for the freedesktop tools, one app id everywhere, icons that match."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import tomllib

import domain_drafter

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.domaindrafter.DomainDrafter"
DESKTOP = ROOT / "packaging" / f"{APP_ID}.desktop"
METAINFO = ROOT / "packaging" / f"{APP_ID}.metainfo.xml"
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is needed for this test; install it with: sudo apt-get install {package}", pytrace=False)
    return path


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_file_passes_desktop_file_validate():
    done = subprocess.run([tool("desktop-file-validate", "desktop-file-utils"), str(DESKTOP)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "", f"desktop-file-validate has remarks: {done.stdout}"


def test_metainfo_passes_appstreamcli_validate():
    done = subprocess.run([tool("appstreamcli", "appstream"), "validate", "--no-net", str(METAINFO)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    remarks = [line for line in done.stdout.splitlines() if line[:2] in ("E:", "W:")]
    assert remarks == [], remarks


def test_one_app_id_names_the_desktop_file_metainfo_icon_and_qt_app():
    from domain_drafter.gui.app import APPLICATION_ID

    component = ET.parse(METAINFO).getroot()
    entry = desktop_entry()
    assert APPLICATION_ID == APP_ID
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    assert entry["Icon"] == APP_ID
    assert (ICONS / f"{APP_ID}.svg").is_file()
    assert entry["Exec"].split()[0] == "domain-drafter-gui"
    assert component.findtext("name") == entry["Name"] == "Domain Drafter"


def test_metainfo_release_and_package_version_are_pyproject_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    releases = [r.get("version") for r in ET.parse(METAINFO).getroot().iter("release")]
    assert releases and releases[0] == version
    assert domain_drafter.__version__ == version
    assert "tomllib" in (ROOT / "packaging" / "domain-drafter.spec").read_text(encoding="utf-8")


def test_svg_icon_is_square_and_names_the_app():
    svg = ET.parse(ICONS / f"{APP_ID}.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    x, y, width, height = map(float, svg.get("viewBox").split())
    assert (x, y) == (0, 0) and width == height
    assert svg.findtext("{http://www.w3.org/2000/svg}title") == "Domain Drafter"


@pytest.mark.parametrize("size", SIZES)
def test_png_icon_is_a_current_render_of_the_svg(qapp, size):
    """Each PNG has its size and matches the SVG drawn now (so an edited SVG needs render_icons.py)."""
    import sys

    sys.path.insert(0, str(ROOT / "packaging"))
    from PySide6.QtGui import QImage
    from render_icons import SVG, png_path, render

    png = QImage(str(png_path(size)))
    assert not png.isNull(), f"missing {png_path(size)}: run packaging/render_icons.py"
    assert (png.width(), png.height()) == (size, size)
    fresh = render(SVG, size).convertToFormat(png.format())
    diff = sum(abs(a - b) for a, b in zip(bytes(png.constBits()), bytes(fresh.constBits())))
    assert diff / (size * size * 4 * 255) < 0.01, "the PNG is out of date: run packaging/render_icons.py"
    opaque = sum(1 for yy in range(size) for xx in range(size) if png.pixelColor(xx, yy).alpha() > 128)
    assert 0.3 < opaque / (size * size) < 0.95   # a drawn shape, not blank and not a filled square
