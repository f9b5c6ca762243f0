"""The proof on untyped domains (issue 38, part 3): before and after the grounding reductions, in one process.

"Before" is the same proof with `ProofSettings(reduce=False)`: every binding grounded (untyped parameters
over every object) and NoPlan decided by searching the answer's own states, as the proof did before.
"""

from __future__ import annotations

import dataclasses
import os
import time

from tests.perf.conftest import median, report
from tests.planning.untyped_answers import ANSWERS, large_shuttle_problem, untyped_bundle

from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import Subclass
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import ProofMethod

NEW = ProofSettings(shortcuts=False)
OLD = ProofSettings(shortcuts=False, reduce=False)
# the answers issue 38 names (fly, drive-truck) and the one that made the old proof give up
NAMED = {("hop", "a plane hops to a traveller"), ("hop", "fuel implies a plane, below implies fuel steps"),
         ("drive", "steering implies the kinds, roads join sites"),
         ("drive", "the road dropped too: a lorry drives to a crate"),
         ("dash", "every static precondition dropped: three free parameters")}


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the Fast Downward runs), in 10 ms ticks."""
    return sum(os.times()[:4])


def _timed(reference, generated, problems, action, settings, cpu_clock=_cpu):
    wall, cpu = time.perf_counter(), cpu_clock()
    result = prove_equivalence(reference, generated, problems, actions=[action], settings=settings, states=None)
    return result, time.perf_counter() - wall, cpu_clock() - cpu


def test_untyped_answers_are_proven_within_five_seconds():
    rows, worst = [], 0.0
    for case in ANSWERS:
        bundle = untyped_bundle(case.domain)
        check = check_answer(case.text, bundle.domain, case.action)
        generated = bundle.domain.with_action(check.action, replacing=case.action)
        new, wall, cpu = _timed(bundle.domain, generated, bundle.problems, case.action, NEW)
        assert new.proven and new.method is ProofMethod.EXPLORATION, (case.action, case.why, new.reason)
        assert (new.subclass is Subclass.EQUIVALENT) == case.equivalent, (case.action, case.why)
        worst = max(worst, cpu)
        line = f"{new.subclass.value:<10} {wall:6.2f} s wall {cpu:6.2f} s cpu"
        if (case.action, case.why) in NAMED:
            old, old_wall, old_cpu = _timed(bundle.domain, generated, bundle.problems, case.action, OLD)
            verdict = old.subclass.value if old.proven else f"unproven ({old.reason[:60]})"
            line += f"   before: {verdict}, {old_wall:.2f} s wall {old_cpu:.2f} s cpu"
        rows.append((f"{case.domain} {case.action}: {case.why}", line))
    report("untyped answers, cold (reference states explored each time): after, and before where named", rows)
    assert worst <= 5.0


def test_untyped_answers_past_the_state_budget_are_proven_within_five_seconds():
    """The 19-object shuttle problem: the budget stops the exploration, no explored state reaches the goal."""
    bundle, rows, worst = untyped_bundle("shuttle"), [], 0.0
    problems = [large_shuttle_problem()]
    for case in (a for a in ANSWERS if a.domain == "shuttle"):
        generated = bundle.domain.with_action(check_answer(case.text, bundle.domain, case.action).action,
                                              replacing=case.action)
        new, wall, cpu = _timed(bundle.domain, generated, problems, case.action, NEW)
        assert new.proven and (new.subclass is Subclass.EQUIVALENT) == case.equivalent, (case.why, new.reason)
        assert not new.score.problems[0].complete
        worst = max(worst, cpu)
        line = f"{new.subclass.value:<10} {new.method.value:<11} {wall:6.2f} s wall {cpu:6.2f} s cpu"
        if (case.action, case.why) in NAMED:
            old, old_wall, old_cpu = _timed(bundle.domain, generated, problems, case.action, OLD)
            verdict = f"{old.subclass.value} ({old.method.value})" if old.proven else \
                f"unproven ({old.reason[:60]})"
            line += f"   before: {verdict}, {old_wall:.2f} s wall {old_cpu:.2f} s cpu"
        rows.append((f"{case.action}: {case.why}", line))
    report("untyped answers on 19 objects, past the 100,000-state budget: after, and before where named", rows)
    assert worst <= 5.0


def test_bundled_judging_is_no_slower():
    """All 32 reference actions (renamed, so no shortcut: explored and compared) and each with its last effect
    dropped (Different: the counterexample and NoPlan), judged cold, old and new path interleaved, best of 3."""
    cases = []
    for bundle in load_bundled():
        for action in bundle.domain.actions:
            dropped = dataclasses.replace(action, effect=action.effect[:-1])
            for variant in (action, dropped):
                cases.append((bundle, action.name, bundle.domain.with_action(variant, replacing=action.name)))
    old_s = [float("inf")] * len(cases)
    new_s = [float("inf")] * len(cases)
    for _ in range(3):
        for i, (bundle, name, generated) in enumerate(cases):
            # milliseconds each and no planner process: this process's clock, finer than the ticks of _cpu
            old, _, old_cpu = _timed(bundle.domain, generated, bundle.problems, name, OLD, time.process_time)
            new, _, new_cpu = _timed(bundle.domain, generated, bundle.problems, name, NEW, time.process_time)
            assert (new.subclass, new.score) == (old.subclass, old.score), (bundle.name, name)
            old_s[i], new_s[i] = min(old_s[i], old_cpu), min(new_s[i], new_cpu)
    ratios = [n / o for n, o in zip(new_s, old_s)]
    report(f"bundled domains, {len(cases)} answers (32 actions, as they are and with the last effect dropped)", [
        ("total before", f"{sum(old_s) * 1000:.0f} ms cpu"),
        ("total after", f"{sum(new_s) * 1000:.0f} ms cpu"),
        ("ratio of totals after / before", f"{sum(new_s) / sum(old_s):.3f}x"),
        ("median ratio per answer", f"{median(ratios):.3f}x"),
        ("max ratio per answer", f"{max(ratios):.3f}x"),
    ])
    assert sum(new_s) / sum(old_s) <= 1.0 and median(ratios) <= 1.15
