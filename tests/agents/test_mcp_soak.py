"""Soak: one server, 2,000 calls over every tool, a fifth of them bad input (an unknown domain, unbalanced
parentheses, a wrong arity, an undeclared predicate, a plan step that does not parse, a 10 MB text).

Asserted: the server process never dies (the same pid answers the last call), every bad input is a structured
tool error of a known kind (never 'internal'), every good input an answer, and the resident memory at the end
is within 50 MB of its value after the first 200 calls. The cheap tools carry most of the calls; K*, the
whole-domain comparison and the model a few each (each once within the first 200 calls: the model's first
load alone is some 50 MB), so the run stays near half a minute.
"""

from __future__ import annotations

import random
import time

import anyio
from mcp_client import mcp_session, rss_bytes, server_pid

from domain_drafter.core.bundle import load_bundled

CALLS = 2000
BAD_SHARE = 0.2
WARM = 200
MAX_GROWTH = 50 * 2**20
HUGE = "(" * 10 * 2**20


def good_calls(tiny_model: str) -> list[tuple[str, dict, int]]:
    """(tool, arguments, weight): every tool on every bundled domain where it is cheap."""
    calls: list[tuple[str, dict, int]] = [("list_domains", {}, 4)]
    for b in load_bundled():
        d = {"domain": b.name}
        calls.append(("describe_domain", d, 2))
        for a in b.action_names:
            ref = b.domain.action(a).to_pddl(indent="")
            calls.append(("check_action", {**d, "action": a, "answer": ref}, 4))
            calls.append(("evaluate_action", {**d, "action": a, "answer": ref}, 2))
            calls.append(("prompt", {**d, "action": a}, 1))
            args = [next((o.name for o in b.problems[0].problem.objects
                          if b.domain.types.is_subtype(o.type, p.type)), None) for p in b.domain.action(a).parameters]
            if None not in args:
                calls.append(("applicable", {**d, "step": f"({a} {' '.join(args)})"}, 2))
        calls.append(("validate_plan", {**d, "plan": "; nothing\n"}, 3))
        calls.append(("run_tests", d, 1))
    calls += [("plan", {"domain": "blocksworld", "problem": "p01"}, 0),
              ("compare_domains", {"domain": "gripper", "candidate_text": load_bundled()[2].domain_text}, 0),
              ("draft_action", {"domain": "gripper", "action": "drop", "model": tiny_model, "budget": 1,
                                "max_tokens": 8, "n_ctx": 4096}, 0)]
    return calls


def bad_calls() -> list[tuple[str, dict]]:
    blocks = next(b for b in load_bundled() if b.name == "blocksworld").domain_text
    unbalanced = blocks.rstrip()[:-1]
    arity = blocks.replace("      (on ?x ?y)\n      (clear ?x)\n      (handempty)\n",
                           "      (on ?x)\n      (clear ?x)\n      (handempty)\n", 1)
    undeclared = blocks.replace("      (holding ?x)\n      (clear ?y)\n", "      (holding ?x)\n      (clearr ?y)\n", 1)
    out: list[tuple[str, dict]] = []
    for tool, extra in (("describe_domain", {}), ("check_action", {"action": "stack", "answer": "x"}),
                        ("evaluate_action", {"action": "stack", "answer": "x"}), ("run_tests", {}),
                        ("validate_plan", {"plan": "(pick-up a)"}), ("applicable", {"step": "(pick-up a)"}),
                        ("prompt", {"action": "stack"}), ("plan", {}), ("compare_domains", {"candidate_text": "x"}),
                        ("draft_action", {"action": "stack", "budget": 1})):
        out.append((tool, {"domain": "no-such-domain", **extra}))
        for text in (unbalanced, arity, undeclared):
            out.append((tool, {"domain_text": text, **extra}))
        out.append((tool, {"domain_text": HUGE, **extra}))
    out += [("validate_plan", {"domain": "blocksworld", "plan": "(pick-up a"}),
            ("validate_plan", {"domain": "blocksworld", "plan": "pick-up a"}),
            ("applicable", {"domain": "blocksworld", "step": "(pick-up"}),
            ("check_action", {"domain": "blocksworld", "action": "stack", "answer": HUGE}),
            ("validate_plan", {"domain": "blocksworld", "plan": HUGE})]
    return out


def test_two_thousand_calls_with_a_fifth_bad_input_never_crash_the_server_or_grow_its_memory(cache, tiny_model):
    rng = random.Random(40)
    good = good_calls(str(tiny_model))
    bad = bad_calls()
    rare = [c for c in good if c[2] == 0]
    weighted = [(t, a) for t, a, w in good for _ in range(w)]
    schedule: list[tuple[str, dict, bool]] = []
    for i in range(CALLS):
        if rng.random() < BAD_SHARE:
            schedule.append((*bad[i % len(bad)], True))
        elif i % 400 in (7, 57, 107):     # K*, the comparison and the model: each within the warm-up, then again
            tool, args, _ = rare[(i % 400) // 50]
            schedule.append((tool, args, False))
        else:
            schedule.append((*rng.choice(weighted), False))
    assert {t for t, _, _ in schedule} == {t for t, _, _ in good}

    async def body() -> dict:
        seen = {"bad": 0, "good": 0, "kinds": set(), "rss_warm": 0}
        async with mcp_session(cache) as s:
            pid = server_pid()
            started = time.perf_counter()
            for i, (tool, args, is_bad) in enumerate(schedule, start=1):
                result = await s.call_tool(tool, args)
                if is_bad:
                    assert result.is_error, (tool, result.content[0].text[:300])
                    error = result.structured_content["error"]
                    assert error["kind"] not in ("internal",) and error["what"] and error["tool"] == tool, error
                    seen["kinds"].add(error["kind"])
                    seen["bad"] += 1
                else:
                    assert not result.is_error, (tool, args.get("domain"), result.content[0].text[:300])
                    assert result.structured_content is not None
                    seen["good"] += 1
                if i == WARM:
                    seen["rss_warm"] = rss_bytes(pid)
            seen["rss_end"] = rss_bytes(pid)
            assert server_pid() == pid
            seen["wall_s"] = time.perf_counter() - started
        return seen

    seen = anyio.run(body)
    print(f"\nmcp soak: {CALLS} calls ({seen['bad']} bad) in {seen['wall_s']:.1f} s; RSS after {WARM} calls "
          f"{seen['rss_warm'] / 2**20:.1f} MiB, at the end {seen['rss_end'] / 2**20:.1f} MiB; error kinds "
          f"{sorted(seen['kinds'])}")
    assert seen["bad"] + seen["good"] == CALLS and seen["bad"] >= 0.15 * CALLS
    assert seen["rss_end"] - seen["rss_warm"] < MAX_GROWTH
