"""The wheel, installed (not editable) into a fresh venv, works from any folder: `domain-drafter --self-test`.

Builds the wheel from this checkout, makes a new virtual environment, installs the wheel with its
dependencies from the package index (llama-cpp-python comes from pip's wheel cache after the first
build, so nothing compiles), and runs the installed commands from a folder outside the repository
with their own empty cache, config and data folders.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT_S = 900   # downloads on a cold pip cache; a warm cache takes about a minute

pytestmark = pytest.mark.package


def clean_env(home: Path) -> dict[str, str]:
    """The environment of a user who never ran Domain Drafter: nothing of this checkout or its venv."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "DOMAIN_DRAFTER", "XDG_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), QT_QPA_PLATFORM="offscreen",
               PIP_CACHE_DIR=os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")))
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, float]:
    """(venv, home folder, install seconds): the wheel installed into a fresh venv."""
    tmp = tmp_path_factory.mktemp("wheel-install")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(ROOT),
                    "-w", str(tmp / "wheel")], check=True, capture_output=True, timeout=300)
    wheel = next((tmp / "wheel").glob("domain_drafter-*.whl"))
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    home = tmp / "home"
    home.mkdir()
    start = time.perf_counter()
    done = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--no-input",
                           "--disable-pip-version-check", "--progress-bar", "off", str(wheel)],
                          capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=clean_env(home), cwd=tmp)
    log = done.stdout + done.stderr
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    # llama-cpp-python must come from pip's wheel cache, not compile again (about 7 minutes on 2 cores).
    assert "Building wheel for llama-cpp-python" not in log
    assert any("llama_cpp_python-" in line and ".whl" in line for line in log.splitlines()), log[-3000:]
    return env_dir, home, time.perf_counter() - start


def test_installed_wheel_is_not_the_checkout(installed):
    env_dir, home, _ = installed
    probe = "import domain_drafter, importlib.resources as r; print(domain_drafter.__file__); " \
            "print(r.files('domain_drafter.resources') / 'icons' / 'io.github.domaindrafter.DomainDrafter.svg')"
    done = subprocess.run([str(env_dir / "bin" / "python"), "-c", probe], capture_output=True, text=True,
                          env=clean_env(home), cwd=home, timeout=60)
    assert done.returncode == 0, done.stderr
    module, icon = done.stdout.split()
    assert module.startswith(str(env_dir)) and not module.startswith(str(ROOT / "app"))
    assert Path(icon).is_file()
    assert (env_dir / "bin" / "domain-drafter-gui").is_file()


def test_installed_self_test_passes_from_outside_the_repository(installed):
    env_dir, home, install_s = installed
    done = subprocess.run([str(env_dir / "bin" / "domain-drafter"), "--self-test"], capture_output=True, text=True,
                          env=clean_env(home), cwd=home, timeout=600)
    report = done.stdout
    print(f"install {install_s:.0f} s\n{report}")
    assert done.returncode == 0, report + done.stderr[-3000:]
    for stage in ("domain", "model", "planner", "gui"):
        assert any(line.split()[:2] == ["ok", stage] for line in report.splitlines()), report
    assert "with its icon" in done.stdout   # the SVG window icon was found and read
    assert str(env_dir) in report           # it names the interpreter it runs in
    assert (home / "cache" / "domain-drafter" / "models").is_dir()   # the default model, assembled for this user
