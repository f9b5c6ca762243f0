"""Helpers for the benchmark tests: experiment specs on the tiny real model, and reading results files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest


def write_spec(path: Path, model: Path, *, domains: str = '"all"', classes: str = '["base"]', prompts: int = 1,
               workers: int = 1, max_tokens: int = 48, extra: str = "") -> Path:
    """A spec on the tiny GGUF. Few new tokens: its answers are noise, so fewer tokens cost less and judge the same."""
    path.write_text(f"""
name = "{path.stem}"
domains = {domains}
classes = {classes}
prompts_per_action = {prompts}
workers = {workers}
max_tokens = {max_tokens}
k = 10
time_limit_s = 20.0
{extra}
[[models]]
name = "tiny"
model = "{model}"
size_b = 0.0001
""", encoding="utf-8")
    return path


def subclass_by_key(db_path: Path) -> dict[str, tuple[str, str]]:
    with sqlite3.connect(db_path) as db:
        return {k: (s, a) for k, s, a in db.execute("SELECT key, subclass, answer FROM tasks")}


@pytest.fixture()
def private_cache(tmp_path, monkeypatch):
    """A fresh verdict and plan cache for this test (worker processes inherit the variable)."""
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"
