"""Fixtures for the benchmark tests."""

from __future__ import annotations

import pytest


@pytest.fixture()
def private_cache(tmp_path, monkeypatch):
    """A fresh verdict and plan cache for this test (worker processes inherit the variable)."""
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"
