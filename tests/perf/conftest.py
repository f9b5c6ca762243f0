"""Benchmarks: each measures a ratio against a baseline run in the same process, and prints a report."""

from __future__ import annotations

import statistics

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/perf" in str(item.fspath):
            item.add_marker(pytest.mark.perf)


def report(title: str, rows: list[tuple[str, str]]) -> None:
    width = max(len(k) for k, _ in rows)
    print(f"\n== {title}")
    for key, value in rows:
        print(f"   {key:<{width}}  {value}")


def median(values) -> float:
    return statistics.median(values)
