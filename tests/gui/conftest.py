"""GUI fixtures: a real MainWindow on the real engine, a tiny real GGUF model, private caches.

Everything runs offscreen (tests/conftest.py sets QT_QPA_PLATFORM); nothing is mocked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_helpers import STARTUP_TIMEOUT_MS  # noqa: E402


@pytest.fixture(scope="session")
def gui_homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One cache (reference plans, verdicts) and one config folder (window geometry) for all GUI tests."""
    root = tmp_path_factory.mktemp("gui-home")
    return {"DOMAIN_DRAFTER_CACHE": root / "cache", "XDG_CONFIG_HOME": root / "config"}


@pytest.fixture(autouse=True)
def private_homes(gui_homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's cache and settings untouched."""
    for name, path in gui_homes.items():
        monkeypatch.setenv(name, str(path))


@pytest.fixture
def window(qtbot, private_homes):
    """The main window, shown, once the bundled domains are listed; closed (workers stopped) after."""
    from domain_drafter.gui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.domain_panel.domain_count() == 9 and not win.runner.busy,
                    timeout=STARTUP_TIMEOUT_MS)
    yield win
    win.close()
