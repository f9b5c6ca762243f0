"""Fail (never skip) a test whose dependency is missing, saying how to install it."""

from __future__ import annotations

import importlib

import pytest


def require(module: str, install: str) -> None:
    """Fail (not skip) with how to install `module` when it is missing."""
    try:
        importlib.import_module(module)
    except ImportError as e:
        pytest.fail(f"{module} is needed for this test ({e}); install it with: {install}", pytrace=False)
