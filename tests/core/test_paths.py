"""User folders come from platformdirs (XDG on Linux); DOMAIN_DRAFTER_CACHE / _DATA override them."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from domain_drafter.core.paths import cache_dir, config_dir, data_dir


def test_folders_are_the_platforms_own(monkeypatch):
    monkeypatch.delenv("DOMAIN_DRAFTER_CACHE", raising=False)
    monkeypatch.delenv("DOMAIN_DRAFTER_DATA", raising=False)
    assert cache_dir() == platformdirs.user_cache_path("domain-drafter", appauthor=False)
    assert data_dir() == platformdirs.user_data_path("domain-drafter", appauthor=False)
    assert config_dir() == platformdirs.user_config_path("domain-drafter", appauthor=False)


def test_linux_honours_xdg_variables_and_defaults(monkeypatch, tmp_path):  # CI runs on Linux
    monkeypatch.delenv("DOMAIN_DRAFTER_CACHE", raising=False)
    monkeypatch.delenv("DOMAIN_DRAFTER_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "e"))
    assert (cache_dir(), data_dir(), config_dir()) == (tmp_path / "c" / "domain-drafter",
                                                       tmp_path / "d" / "domain-drafter",
                                                       tmp_path / "e" / "domain-drafter")
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "domain-drafter"
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "domain-drafter"
    assert config_dir() == tmp_path / "home" / ".config" / "domain-drafter"


def test_overrides_win(monkeypatch, tmp_path):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", "~/dd-data")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    assert cache_dir() == tmp_path / "cache"
    assert data_dir() == Path("~/dd-data").expanduser()
