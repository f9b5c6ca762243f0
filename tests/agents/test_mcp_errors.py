"""Bad input through the real client: a tool error with what, where (the file:line:col the CLI gives for the
same text) and what to do; the server answers the next call as if nothing happened."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp_client import mcp_session, server_env

from domain_drafter.core.bundle import load_bundle

BLOCKS = load_bundle("blocksworld").domain_text
BROKEN_DOMAINS = {
    "unbalanced parentheses": BLOCKS.rstrip()[:-1],
    "undeclared predicate": BLOCKS.replace("      (holding ?x)\n      (clear ?y)\n", "      (holding ?x)\n"
                                                                                  "      (clearr ?y)\n", 1),
    "wrong arity": BLOCKS.replace("      (on ?x ?y)\n      (clear ?x)\n      (handempty)\n",
                                  "      (on ?x)\n      (clear ?x)\n      (handempty)\n", 1),
    "unknown type": BLOCKS.replace("(holding ?x - block)", "(holding ?x - brick)", 1),
}
LOCATION = re.compile(r"domain\.pddl:(\d+):(\d+): ")


def cli(*args: str, cache: Path, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "domain_drafter.cli", *args], input=stdin, capture_output=True,
                          text=True, env=server_env(cache), timeout=120)


def error_of(result) -> dict:
    assert result.is_error, result.content[0].text
    error = result.structured_content["error"]
    assert error["what"] and error["kind"] != "internal", error
    assert error["what"] in result.content[0].text
    return error


@pytest.mark.parametrize("fault", list(BROKEN_DOMAINS))
def test_an_inline_domain_with_an_error_gives_the_line_and_column_the_cli_gives(fault, cache, tmp_path):
    text = BROKEN_DOMAINS[fault]
    folder = tmp_path / "broken"
    (folder / "problems").mkdir(parents=True)
    (folder / "domain.pddl").write_text(text)
    run = cli("check", str(folder), "stack", cache=cache, stdin="(:action stack)")
    found = LOCATION.search(run.stderr)
    assert run.returncode != 0 and found, run.stderr
    line, column = int(found.group(1)), int(found.group(2))

    async def body() -> None:
        async with mcp_session(cache) as s:
            for tool, extra in (("describe_domain", {}), ("check_action", {"action": "stack", "answer": "x"}),
                                ("run_tests", {"tests_text": ""})):
                error = error_of(await s.call_tool(tool, {"domain_text": text, **extra}))
                assert error["where"] == {"file": "<inline>/domain.pddl", "line": line, "column": column}
                assert error["tool"] == tool
            assert not (await s.call_tool("describe_domain", {"domain": "blocksworld"})).is_error

    anyio.run(body)


def test_an_answer_and_a_plan_with_errors_are_located_as_the_cli_locates_them(cache, tmp_path):
    answer = ("(:action stack\n  :parameters (?x - block ?y - block)\n  :precondition (and (holding ?x) (clr ?y))\n"
              "  :effect (and (on ?x ?y) (not (holding ?x))))")
    (tmp_path / "answer.pddl").write_text(answer)
    run = cli("check", "blocksworld", "stack", str(tmp_path / "answer.pddl"), cache=cache)
    cli_line, cli_column = map(int, re.search(r"^  (\d+):(\d+) ", run.stdout, re.M).groups())
    (tmp_path / "plan.txt").write_text("(pick-up b)\n(stack b c\n")
    bundle = load_bundle("blocksworld")
    run = cli("validate", str(bundle.path), str(bundle.problems[0].path), str(tmp_path / "plan.txt"), cache=cache)
    plan_line, plan_column = map(int, re.search(r"plan\.txt:(\d+):(\d+)", run.stderr).groups())

    async def body() -> None:
        async with mcp_session(cache) as s:
            checked = await s.call_tool("check_action", {"domain": "blocksworld", "action": "stack",
                                                         "answer": answer})
            finding = checked.structured_content["findings"][0]
            assert (finding["line"], finding["column"]) == (cli_line, cli_column) == (3, 35)
            error = error_of(await s.call_tool("validate_plan", {"domain": "blocksworld",
                                                                 "plan": "(pick-up b)\n(stack b c\n"}))
            assert (error["where"]["line"], error["where"]["column"]) == (plan_line, plan_column) == (2, 1)

    anyio.run(body)


def test_bad_arguments_are_structured_errors_and_a_ten_megabyte_text_is_refused(cache):
    huge = "(" * 10 * 2**20

    async def body() -> None:
        async with mcp_session(cache) as s:
            unknown = error_of(await s.call_tool("check_action", {"domain": "no-such-domain", "action": "stack",
                                                                  "answer": "x"}))
            assert "blocksworld" in unknown["hint"]
            action = error_of(await s.call_tool("evaluate_action", {"domain": "blocksworld", "action": "fly",
                                                                    "answer": "x"}))
            assert "stack" in action["hint"]
            for tool, args in (("check_action", {"domain": "blocksworld", "action": "stack", "answer": huge}),
                               ("describe_domain", {"domain_text": huge}),
                               ("validate_plan", {"domain": "blocksworld", "plan": huge})):
                error = error_of(await s.call_tool(tool, args))
                assert "limit" in error["what"] and error["hint"]
            step = error_of(await s.call_tool("applicable", {"domain": "blocksworld", "step": "(pick-up a b)"}))
            assert "arguments" in step["what"]
            state = error_of(await s.call_tool("applicable", {"domain": "blocksworld", "step": "(pick-up a)",
                                                              "state": "(flying a)"}))
            assert state["where"] == {"file": "state", "line": 1, "column": 1}
            problem = error_of(await s.call_tool("plan", {"domain": "blocksworld", "problem": "p99"}))
            assert "p01" in problem["hint"]
            both = error_of(await s.call_tool("describe_domain", {}))
            assert "domain_text" in both["hint"]
            typed = await s.call_tool("plan", {"domain": "blocksworld", "k": "many"})
            assert typed.is_error   # the SDK's own argument validation, still a tool error
            assert not (await s.call_tool("list_domains", {})).is_error

    anyio.run(body)


def test_a_state_with_an_error_is_located_by_line_and_column_within_the_state(cache):
    broken = {
        "(on a b)\n(clear a) oops\n": (2, 11, "syntax"),          # the parser's place, taken back into the state
        "(on a b)\n(clear a)\n  (ontable zz)": (3, 3, "zz"),      # parses, but names no object: its atom
        "(on a b)\n  (clera a)\n": (2, 3, "clera"),               # an undeclared predicate: its atom
    }

    async def body() -> None:
        async with mcp_session(cache) as s:
            for state, (line, column, word) in broken.items():
                error = error_of(await s.call_tool("applicable", {"domain": "blocksworld", "step": "(pick-up a)",
                                                                  "state": state}))
                assert error["where"] == {"file": "state", "line": line, "column": column}, (state, error)
                assert f"state:{line}:{column}: " in (await s.call_tool(
                    "applicable", {"domain": "blocksworld", "step": "(pick-up a)", "state": state})).content[0].text
                assert word == "syntax" or word in error["what"]
            fine = await s.call_tool("applicable", {"domain": "blocksworld", "step": "(pick-up a)",
                                                    "state": "(clear a)\n(ontable a)\n(handempty)"})
            assert fine.structured_content["applicable"] is True

    anyio.run(body)
