"""The packaged one-folder app (PyInstaller, packaging/domain-drafter.spec) passes its own self-test.

Builds the folder app into a temporary folder (what `make package` does, minus the .tar.gz) and runs
its binary's `--self-test` offscreen from outside the repository, as a user who never ran the app:
the bundled domain loads, llama.cpp's libraries load, K*'s driver and translator run through the
frozen binary, and the main window draws.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from needs import require

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.domaindrafter.DomainDrafter"

pytestmark = [pytest.mark.package, pytest.mark.frozen]


def user_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "DOMAIN_DRAFTER"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), QT_QPA_PLATFORM="offscreen",
               PATH="/usr/bin:/bin")   # nothing of the build venv on the PATH
    return env


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("PyInstaller", f"{sys.executable} -m pip install 'pyinstaller>=6.10'")
    tmp = tmp_path_factory.mktemp("frozen")
    done = subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
                           "--distpath", str(tmp / "dist"), "--workpath", str(tmp / "build"),
                           str(ROOT / "packaging" / "domain-drafter.spec")],
                          capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-6000:]
    return tmp / "dist" / "domain-drafter"


def test_folder_holds_binaries_and_desktop_files(app_dir):
    assert os.access(app_dir / "domain-drafter", os.X_OK)
    assert os.readlink(app_dir / "domain-drafter-gui") == "domain-drafter"
    assert (app_dir / "share" / "applications" / f"{APP_ID}.desktop").is_file()
    assert (app_dir / "share" / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (app_dir / "share" / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png").is_file()
    internal = app_dir / "_internal"
    assert os.access(internal / "kstar_planner" / "builds" / "release" / "bin" / "downward", os.X_OK)
    assert list((internal / "llama_cpp" / "lib").glob("libllama*.so*"))
    assert (internal / "domain_drafter" / "domains" / "blocksworld" / "domain.pddl").is_file()
    assert (internal / "domain_drafter" / "resources" / "prompts" / "paper.toml").is_file()
    assert not (internal / "domain_drafter" / "resources" / "screenshots").exists()   # as in the wheel
    results = internal / "domain_drafter" / "resources" / "results"   # only the Benchmark dialog's baseline
    assert sorted(p.relative_to(results).as_posix() for p in results.rglob("*") if p.is_file()) == [
        "default-exp1/table1.md"]


def test_folder_bundles_a_sound_qt_binding(app_dir):
    """Issue 17: PySide6 6.12 drops a reference to None on every void Qt call; before Python 3.12 that
    aborts the app within minutes, so the folder must carry another release (the start-up guard would
    refuse it, and the self-test below would fail at its GUI stage)."""
    libraries = sorted(p.name for p in (app_dir / "_internal").glob("libpyside6.abi3.so.6.*"))
    assert libraries, "no PySide6 library in the folder"
    if sys.version_info < (3, 12):
        assert not any(name.endswith(".so.6.12") for name in libraries), libraries


def test_frozen_binary_passes_its_self_test_from_outside_the_repository(app_dir, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    start = time.perf_counter()
    version = subprocess.run([str(app_dir / "domain-drafter"), "--version"], capture_output=True, text=True,
                             env=user_env(home), cwd=home, timeout=120)
    startup_s = time.perf_counter() - start
    assert version.returncode == 0, version.stderr
    done = subprocess.run([str(app_dir / "domain-drafter"), "--self-test"], capture_output=True, text=True,
                          env=user_env(home), cwd=home, timeout=600)
    size = sum(p.stat().st_size for p in app_dir.rglob("*") if p.is_file() and not p.is_symlink())
    print(f"folder {size / 2**20:.0f} MiB, `--version` in {startup_s:.2f} s\n{done.stdout}")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    for stage in ("domain", "model", "planner", "gui"):
        assert any(line.split()[:2] == ["ok", stage] for line in done.stdout.splitlines()), done.stdout
    assert "with its icon" in done.stdout   # the SVG window icon was found and read
    assert "packaged app" in done.stdout
