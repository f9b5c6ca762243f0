"""What a user waits for at the command line, against what the libraries underneath cost on their own.

1. `domain-drafter check` end to end (process start, parse domain and answer, checks, ARE)
   against `python -c "from pddl import parse_domain; parse_domain(...)"` on the same domain file.
2. `domain-drafter evaluate` of an Equivalent answer (reference plans cached, verdict cache off)
   against the bare K* driver command line on the generated domain D', for every bundled action.
Each pair runs interleaved in this process, so both sides see the same machine load.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from tests.perf.conftest import bare_kstar_seconds, median, report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.plan_cache import PlanCache

SCRIPT = Path(sys.executable).parent / "domain-drafter"
RUNS = 9


def user_env(cache: Path) -> dict:
    """The environment of an installed app: bytecode is cached (a CI setting may turn that off)."""
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def wall(command: list[str], env: dict, stdin: str | None = None, cwd: Path | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, text=True, capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    assert done.returncode in (0, 1), done.stderr
    return elapsed


def test_check_end_to_end_vs_the_pddl_librarys_own_parse(tmp_path):
    env = user_env(tmp_path / "cache")
    bundle = next(b for b in load_bundled() if b.name == "blocksworld")
    answer = tmp_path / "answer.txt"
    answer.write_text(bundle.domain.action("stack").to_pddl())
    ours_cmd = [str(SCRIPT), "check", "blocksworld", "stack", str(answer)]
    pddl_cmd = [sys.executable, "-c", f"from pddl import parse_domain; parse_domain({str(bundle.path)!r})"]
    domains_cmd = [str(SCRIPT), "domains"]
    wall(ours_cmd, env)  # the first run per machine builds the cached parser tables
    ours, theirs, domains = [], [], []
    for _ in range(RUNS):
        ours.append(wall(ours_cmd, env))
        theirs.append(wall(pddl_cmd, env))
        domains.append(wall(domains_cmd, env))
    # the median of the pairs' ratios: each pair ran back to back, so a burst of load on a shared
    # machine lands on both sides of one pair instead of on one side's median
    ratio = median([o / t for o, t in zip(ours, theirs)])
    report("domain-drafter check (end to end) vs pddl.parse_domain (blocksworld)", [
        ("median domain-drafter check", f"{median(ours) * 1000:.0f} ms"),
        ("median python -c parse_domain", f"{median(theirs) * 1000:.0f} ms"),
        ("median ratio check / parse_domain (of 9 pairs)", f"{ratio:.2f}x"),
        ("median domain-drafter domains (9 bundles)", f"{median(domains) * 1000:.0f} ms"),
    ])
    assert ratio < 1.0, "check parses the domain and the answer and still beats parse_domain alone"



def test_cli_evaluate_of_an_equivalent_answer_vs_bare_kstar_on_d_prime(tmp_path):
    cache = tmp_path / "cache"
    env = user_env(cache)
    planner = KStarPlanner(k=100)
    plan_cache = PlanCache(planner, cache / "plans")
    bundles = load_bundled()
    for bundle in bundles:  # reference plans are planned once per machine
        for problem in bundle.problems:
            plan_cache.plans(bundle.domain.to_pddl(), problem.text)
        # so are the parser tables and the parsed bundle: a user's second command finds them
        subprocess.run([str(SCRIPT), "check", bundle.name, bundle.action_names[0]],
                       input=bundle.domain.action(bundle.action_names[0]).to_pddl(), text=True,
                       capture_output=True, env=env, check=True)
    def cli_seconds(bundle, action: str, answer: str, *mode: str) -> tuple[float, str]:
        start = time.perf_counter()
        done = subprocess.run([str(SCRIPT), "evaluate", bundle.name, action, "--no-cache", *mode], input=answer,
                              text=True, capture_output=True, env=env)
        assert done.returncode in (0, 1), done.stdout + done.stderr
        return time.perf_counter() - start, done.stdout

    ratios, paper_ratios, mutant_ratios, clis, bares = [], [], [], [], []
    for bundle in bundles:
        for action in bundle.action_names:
            schema = bundle.domain.action(action)
            answer = schema.to_pddl().replace("?", "?v_")  # D' is never in any cache
            generated = bundle.domain.with_action(schema)
            bare = bare_kstar_seconds(planner, generated.to_pddl(), bundle.problems)
            cli, out = cli_seconds(bundle, action, answer)
            assert out.startswith("Equivalent\n  Equivalent, proven"), out
            paper, out = cli_seconds(bundle, action, answer, "--equivalence", "paper")
            assert out.startswith("Equivalent"), out
            # a mutant the shortcut cannot decide: the proof explores the reachable states
            mutant = replace(schema, effect=schema.effect[1:]) if len(schema.effect) > 1 else schema
            explored, _ = cli_seconds(bundle, action, mutant.to_pddl())
            ratios.append(cli / bare)
            paper_ratios.append(paper / bare)
            mutant_ratios.append(explored / bare)
            clis.append(cli)
            bares.append(bare)
    report(f"CLI evaluate vs bare K* on D' ({len(ratios)} actions, cached reference plans)", [
        ("median ratio CLI (proven, Equivalent) / bare K*", f"{median(ratios):.2f}x"),
        ("min / max ratio", f"{min(ratios):.2f}x / {max(ratios):.2f}x"),
        ("median ratio CLI (proven, a mutant: states explored) / bare K*", f"{median(mutant_ratios):.2f}x"),
        ("median ratio CLI (--equivalence paper, Equivalent) / bare K*", f"{median(paper_ratios):.2f}x"),
        ("median CLI evaluate (proven, Equivalent)", f"{median(clis) * 1000:.0f} ms"),
        ("median bare K* (all problems, one after the other)", f"{median(bares) * 1000:.0f} ms"),
    ])
    assert median(ratios) <= 1.1 and median(mutant_ratios) <= 1.1
