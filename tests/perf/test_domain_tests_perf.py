"""Domain tests (issue 22), measured: how many single-atom mutants the bundled tests catch without the reference,
how many the quick fixes restore and how fast, and `domain-drafter test` on every bundled domain, warm.

The mutants (`tests/support/mutants.py`) add or remove one atom over an action's parameters in its
precondition, add or delete list; the proof with the reference says which are Different. Goals:
catch >= 90% of those per domain; a quick fix for >= 90% of the caught ones, the first in < 2 s;
`test` < 1 s per domain, warm (its second run, states cached on disk).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mutants import measure_domain
from tests.perf.conftest import report

from domain_drafter.core.bundle import bundled_names, load_bundle
from domain_drafter.planning.state_cache import StateCache

RESULTS: dict[str, object] = {}


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    return StateCache(tmp_path_factory.mktemp("mutant-states"))


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_tests_catch_single_atom_mutants_and_quick_fixes_restore_them(name, states):
    measured = measure_domain(load_bundle(name), states)
    RESULTS[name] = measured
    fix_times = sorted(o.fix_s for o in measured.caught)
    report(f"domain tests on single-atom mutants: {name}", [
        ("mutants / proven Different", f"{len(measured.outcomes)} / {len(measured.different)}"),
        ("caught by the bundled tests", f"{len(measured.caught)} ({100 * measured.catch_rate():.0f}%)"),
        ("missed", "; ".join(f"{o.action}: {o.edit}" for o in measured.missed) or "none"),
        ("quick fix found", f"{sum(o.fixed for o in measured.caught)} ({100 * measured.fix_rate():.0f}%), "
                            f"reference restored {sum(o.restored_reference for o in measured.caught)}"),
        ("first fix, median / max", f"{fix_times[len(fix_times) // 2]:.2f} s / {fix_times[-1]:.2f} s"
         if fix_times else "-"),
        ("fixes over 2 s", str(sum(t >= 2.0 for t in fix_times))),
    ])
    assert measured.catch_rate() >= 0.9
    assert measured.fix_rate() >= 0.9
    assert sum(t < 2.0 for t in fix_times) >= 0.9 * len(fix_times)


def _median_run(argv, env, runs: int = 5) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(runs):
        t0 = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        times.append(time.perf_counter() - t0)
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout
    return sorted(times)[len(times) // 2], out


def test_the_test_command_is_under_a_second_per_domain_warm(tmp_path):
    """The whole command, process start included, median of 5 warm runs; `--version` is the floor it stands on."""
    script = str(Path(sys.executable).with_name("domain-drafter"))
    env = {**os.environ, "DOMAIN_DRAFTER_CACHE": str(tmp_path / "cache")}
    floor, _ = _median_run([script, "--version"], env)
    rows = [("domain-drafter --version (process start)", f"{floor:.2f} s")]
    slowest = 0.0
    for name in bundled_names():
        subprocess.run([script, "test", name], env=env, capture_output=True, timeout=120, check=True)  # warm up
        elapsed, out = _median_run([script, "test", name], env)
        rows.append((name, f"{elapsed:.2f} s ({out.strip().splitlines()[-1]})"))
        slowest = max(slowest, elapsed)
    report("domain-drafter test, warm (median of 5, process start included)", rows)
    assert slowest < 1.0, f"slowest {slowest:.2f} s"
