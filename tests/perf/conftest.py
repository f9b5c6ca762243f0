"""Benchmarks: each measures a ratio against a baseline run in the same process, and prints a report."""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

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


def bare_kstar_seconds(planner, domain_text: str, problems) -> float:
    """The K* driver command line on a domain, one problem after the other, as a person would run it:
    the time no evaluation can avoid."""
    from domain_drafter.planning.kstar import _kstar_paths

    build = _kstar_paths()[0]
    start = time.perf_counter()
    for problem in problems:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            (work / "domain.pddl").write_text(domain_text)
            (work / "problem.pddl").write_text(problem.text)
            subprocess.run(planner.command(work, build), cwd=work, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start
