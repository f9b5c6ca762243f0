"""Shared fixtures: the real bundled domains, loaded once per session."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from domain_drafter.core.bundle import DomainBundle, load_bundled


def all_reference_actions() -> list[tuple[str, str]]:
    """(domain, action) for every action of every bundled domain: the 32 of METHOD 9."""
    return [(b.name, a) for b in load_bundled() for a in b.action_names]


@pytest.fixture(scope="session")
def bundles() -> dict[str, DomainBundle]:
    return {b.name: b for b in load_bundled()}
