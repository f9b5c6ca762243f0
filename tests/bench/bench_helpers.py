"""Helpers for the benchmark tests (a module of its own: test module names must be unique across tests/)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def write_spec(path: Path, model: Path, *, domains: str = '"all"', classes: str = '["base"]', prompts: int = 1,
               workers: int = 1, max_tokens: int = 32, extra: str = "") -> Path:
    """A spec on the tiny GGUF: one context example and few new tokens (its answers are noise either way;
    shorter prompts only make the run cheaper)."""
    path.write_text(f"""
name = "{path.stem}"
domains = {domains}
classes = {classes}
prompts_per_action = {prompts}
workers = {workers}
max_tokens = {max_tokens}
k = 10
examples = 1
time_limit_s = 20.0
{extra}
[[models]]
name = "tiny"
model = "{model}"
size_b = 0.0001
""", encoding="utf-8")
    return path


def subclass_by_key(db_path: Path) -> dict[str, tuple]:
    """Per task: the verdict, the answer, and both stored verdicts (paper heuristic, proof)."""
    with sqlite3.connect(db_path) as db:
        return {k: rest for k, *rest in db.execute(
            "SELECT key, subclass, answer, paper_subclass, proof_subclass, proof_proven FROM tasks")}
