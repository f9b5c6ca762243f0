"""Every tool of `domain-drafter mcp` through the SDK's real client and a spawned server: on a bundled domain
and on a user's folder, answers as structured content, nothing written where it must not be."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import anyio
import pytest
from mcp_client import mcp_session

from domain_drafter.core.bundle import bundled_root

STACK = ("(:action stack :parameters (?x - block ?y - block) :precondition (and (holding ?x) (clear ?y)) "
         ":effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))")
STACK_RENAMED = STACK.replace("?x", "?top").replace("?y", "?below")
STACK_WRONG = STACK.replace(" (clear ?y))", ")", 1)     # may stack on a covered block
TOOLS = {"list_domains", "describe_domain", "check_action", "evaluate_action", "run_tests", "validate_plan",
         "applicable", "plan", "compare_domains", "prompt", "draft_action"}


def tree_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my-blocks"
    shutil.copytree(bundled_root() / "blocksworld", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert result.content[0].text.strip()       # the short summary beside the data
    return result.structured_content


@pytest.mark.parametrize("where", ["bundled", "folder"])
def test_every_tool_answers_with_data_on_a_bundled_domain_and_on_a_user_folder(where, user_folder, cache, tiny_model,
                                                                              tmp_path):
    domain = "blocksworld" if where == "bundled" else str(user_folder)
    bundled_before, user_before = tree_digest(bundled_root()), tree_digest(user_folder)
    candidate = tmp_path / "candidate"
    shutil.copytree(user_folder, candidate)
    text = (candidate / "domain.pddl").read_text()
    (candidate / "domain.pddl").write_text(text.replace("      (holding ?x)\n      (clear ?y)\n",
                                                        "      (holding ?x)\n", 1))

    async def body() -> None:
        async with mcp_session(cache) as s:
            assert {t.name for t in (await s.list_tools()).tools} == TOOLS
            names = [d["name"] for d in ok(await s.call_tool("list_domains", {}))["domains"]]
            assert "blocksworld" in names and len(names) == 9

            described = ok(await s.call_tool("describe_domain", {"domain": domain}))
            assert [a["name"] for a in described["actions"]] == ["pick-up", "put-down", "stack", "unstack"]
            assert described["predicates"][1]["text"].startswith("the hand is holding")

            checked = ok(await s.call_tool("check_action", {"domain": domain, "action": "stack",
                                                            "answer": STACK.replace("(clear ?y))", "(clr ?y))")}))
            assert checked["passed"] is False and checked["findings"][0]["line"] == 1
            assert checked["findings"][0]["column"] == STACK.index("(clear ?y))") + 1

            right = ok(await s.call_tool("evaluate_action", {"domain": domain, "action": "stack",
                                                             "answer": STACK_RENAMED}))
            assert right["subclass"] == "Equivalent" and right["proof"]["proven"] is True
            wrong = ok(await s.call_tool("evaluate_action", {"domain": domain, "action": "stack",
                                                             "answer": STACK_WRONG}))
            assert wrong["subclass"] != "Equivalent" and "(:goal" in wrong["counterexample_problem"]
            assert wrong["are"]["total"] >= 1
            paper = ok(await s.call_tool("evaluate_action", {"domain": domain, "action": "stack",
                                                             "answer": STACK_RENAMED, "equivalence": "paper"}))
            assert paper["subclass"] == "Equivalent" and paper["equivalence_mode"] == "paper"

            tests = ok(await s.call_tool("run_tests", {"domain": domain}))
            assert tests["failed"] == 0 and tests["passed"] >= 20
            inline = ('[cases.picks-a-clear-block]\nkind = "applicable"\nproblem = "p01"\n'
                      'action = "(pick-up b)"\n')
            one = ok(await s.call_tool("run_tests", {"domain": domain, "tests_text": inline}))
            assert (one["passed"], one["failed"]) == (1, 0)

            invalid = ok(await s.call_tool("validate_plan", {"domain": domain, "problem": "p01",
                                                             "plan": "(pick-up a)\n(stack a b)"}))
            assert invalid["valid"] is False and invalid["step"] == 1 and invalid["atoms"] == ["(clear a)"]

            app = ok(await s.call_tool("applicable", {"domain": domain, "problem": "p01", "step": "(pick-up b)"}))
            assert app["applicable"] is True and "(holding b)" in app["added"] and "(handempty)" in app["deleted"]
            held = ok(await s.call_tool("applicable", {"domain": domain, "problem": "p01", "step": "(pick-up b)",
                                                       "state": "(ontable b)"}))
            assert held["applicable"] is False and set(held["unsatisfied"]) == {"(clear b)", "(handempty)"}

            planned = ok(await s.call_tool("plan", {"domain": domain, "problem": "p01", "k": 3}))
            assert planned["status"] == "solved" and len(planned["plans"]) == 3
            replayed = ok(await s.call_tool("validate_plan", {"domain": domain, "problem": "p01",
                                                              "plan": "\n".join(planned["plans"][0])}))
            assert replayed["valid"] is True

            same = ok(await s.call_tool("compare_domains", {"domain": domain, "candidate_text": text}))
            assert same["verdict"] == "Equivalent"
            differs = ok(await s.call_tool("compare_domains", {"domain": domain, "candidate": str(candidate)}))
            assert differs["verdict"] != "Equivalent" and "stack" in str(differs["actions"])

            prompt = ok(await s.call_tool("prompt", {"domain": domain, "action": "stack"}))
            assert "Allowed Predicates" in prompt["text"] and prompt["action"] == "stack"

            drafted = ok(await s.call_tool("draft_action", {"domain": domain, "action": "stack",
                                                            "model": str(tiny_model), "budget": 1, "max_tokens": 24,
                                                            "n_ctx": 4096}))
            assert drafted["calls"] == 1 and drafted["best_verdict"] and drafted["answers"][0]["answer"]

            resources = (await s.list_resources()).resources
            uri = next(str(r.uri) for r in resources if str(r.uri).endswith("blocksworld/domain.pddl"))
            read = await s.read_resource(uri)
            assert "(define (domain blocksworld)" in read.contents[0].text
            guide = await s.get_prompt("write-and-prove-an-action", {"domain": domain, "action": "stack"})
            assert "evaluate_action" in guide.messages[0].content.text

    anyio.run(body)
    assert tree_digest(bundled_root()) == bundled_before
    assert tree_digest(user_folder) == user_before
