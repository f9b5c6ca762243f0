"""The MCP server's tests: each spawns `domain-drafter mcp` with a private cache (tests/support/mcp_client.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-cache")
