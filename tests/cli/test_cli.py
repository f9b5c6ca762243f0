"""The command line: subcommands, exit codes, messages. In-process through main(), plus the console script."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

from domain_drafter.cli import main

PUT_DOWN = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
            ":effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))")


def run(capsys, monkeypatch, *argv: str, stdin: str = ""):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_domains_lists_nine_bundles_with_counts(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "domains")
    assert code == 0
    assert "9 domains, 32 actions" in out
    assert "blocksworld            5       4        2" in out


def test_prompt_prints_the_prompt(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "prompt", "blocksworld", "put-down", "--class", "flipped", "--seed", "0")
    assert code == 0 and out.endswith("PDDL Action:\n")
    assert "The action can only happen if the hand is holding block ?x." in out


def test_check_of_the_reference_passes_with_are_zero(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "check", "blocksworld", "put-down", "-", stdin="Sure!\n" + PUT_DOWN)
    assert code == 0
    assert "passed syntax and semantic checks" in out and "ARE 0" in out


def test_check_json_reports_class_spans_and_are(capsys, monkeypatch, tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(PUT_DOWN.replace("(handempty)", "(arm-empty)"))
    code, out, _ = run(capsys, monkeypatch, "check", "blocksworld", "put-down", str(answer), "--json")
    data = json.loads(out)
    assert code == 1
    assert data["subclass"] == "PAError" and data["findings"][0]["reason"] == "undefined-predicate"
    assert data["are"]["add"]["missing"] == ["(handempty)"]


def test_check_shows_a_caret_under_the_problem(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, "check", "blocksworld", "put-down", stdin=PUT_DOWN.replace("?x - block", "?x - cube"))
    assert "TError" in out and "^^^^" in out


def test_unknown_domain_exits_2_with_the_valid_names(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, "check", "blockworld", "put-down")
    assert code == 2
    assert "unknown domain 'blockworld'" in err and "trap-newspapers" in err


def test_unknown_action_exits_2_with_the_valid_names(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, "prompt", "gripper", "grab")
    assert code == 2 and "valid actions: move, pick, drop" in err


def test_user_domain_with_syntax_error_reports_file_line_col(capsys, monkeypatch, tmp_path, bundles):
    folder = tmp_path / "mine"
    shutil.copytree(bundles["gripper"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "domain.pddl"
    path.write_text(path.read_text().replace("(free ?g - gripper)", "(free ?g - )"))
    code, _, err = run(capsys, monkeypatch, "check", str(folder), "move", stdin=PUT_DOWN)
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if "(free ?g - )" in l)
    assert code == 3
    assert f"{path}:{line}:" in err


def test_console_script_runs_as_installed(tmp_path):
    script = Path(sys.executable).parent / "domain-drafter"
    assert script.exists(), "install the project: make setup (pip install -e '.[test]')"
    done = subprocess.run([str(script), "check", "blocksworld", "put-down"], input=PUT_DOWN, text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "ARE 0" in done.stdout


def test_evaluate_reference_is_equivalent_and_exit_0(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path))
    code, out, _ = run(capsys, monkeypatch, "evaluate", "blocksworld", "put-down", stdin=PUT_DOWN)
    assert code == 0 and out.startswith("Equivalent\n  Equivalent, proven: ")
    code, out, _ = run(capsys, monkeypatch, "evaluate", "blocksworld", "put-down", "--equivalence", "paper",
                       stdin=PUT_DOWN)
    assert code == 0 and out.startswith("Equivalent\n  Equivalent (paper heuristic, no proof requested): all ")


def test_evaluate_mutant_prints_counterexample_with_failing_step(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path))
    mutant = ("(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and (at ?obj ?room) "
              "(at-robby ?room) (free ?g) (free left)) :effect (and (carry ?obj ?g) (not (at ?obj ?room)) "
              "(not (free ?g))))")
    paper = ("--equivalence", "paper")
    code, out, _ = run(capsys, monkeypatch, "evaluate", "gripper", "pick", "--json", *paper, stdin=mutant)
    data = json.loads(out)
    assert code == 1
    assert data["class"] == "Different domain" and data["subclass"] == "OPApp" and data["proof"] is None
    cx = data["equivalence"]["counterexample"]
    assert cx["validation"]["atoms"] == ["(free left)"]
    assert cx["plan"][cx["validation"]["step"] - 1] == cx["validation"]["action"]
    assert data["are"]["pre"]["extra"] == ["(free left)"]
    code, out, _ = run(capsys, monkeypatch, "evaluate", "gripper", "pick", *paper, stdin=mutant)
    assert "<-- fails here" in out and "(cached)" in out


def test_evaluate_proves_a_mutant_different_with_the_state_where_the_domains_part(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path))
    mutant = PUT_DOWN.replace("(clear ?x)", "")   # the block put down is no longer clear
    code, out, _ = run(capsys, monkeypatch, "evaluate", "blocksworld", "put-down", "--json", stdin=mutant)
    data = json.loads(out)
    assert code == 1 and data["equivalence_mode"] == "proven" and data["proof"]["proven"] is True
    cx = data["proof"]["counterexample"]
    assert cx["valid_in"] == "reference" and cx["reference_validation"]["status"] == "valid"
    assert cx["generated_validation"]["status"] == "invalid" and cx["plan"][-1].startswith("(put-down ")
    assert "(:goal" in cx["problem_pddl"]
    code, out, _ = run(capsys, monkeypatch, "evaluate", "blocksworld", "put-down", stdin=mutant)
    assert "parts the two domains" in out and "<-- the domains part here" in out and "atoms that matter" in out


def test_evaluate_accepts_a_folder_without_descriptions(capsys, monkeypatch, tmp_path, bundles):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "plain"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__", "*.toml"))
    code, out, _ = run(capsys, monkeypatch, "evaluate", str(folder), "put-down", stdin=PUT_DOWN)
    assert code == 0 and "Equivalent" in out


def test_validate_is_val_like(capsys, monkeypatch, tmp_path, bundles):
    b = bundles["blocksworld"].folder
    plan = tmp_path / "plan"
    plan.write_text("(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n")
    args = ("validate", str(b / "domain.pddl"), str(b / "problems" / "p01.pddl"), str(plan))
    code, out, _ = run(capsys, monkeypatch, *args)
    assert code == 0 and "Plan valid: 6 steps" in out
    plan.write_text("(unstack c a)\n(pick-up b)\n")
    code, out, _ = run(capsys, monkeypatch, *args)
    assert code == 1 and "step 2 (pick-up b): precondition (handempty) not satisfied" in out
    plan.write_text("(unstack c a)\nnonsense\n")
    code, _, err = run(capsys, monkeypatch, *args)
    assert code == 3 and f"{plan}:2:1" in err


def test_generate_streams_an_answer_and_prints_its_verdict(capsys, monkeypatch, tmp_path):
    from tiny_gguf import write_tiny_llama

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    code, out, _ = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(model), "--grammar")
    assert code in (0, 1)
    assert "(:action stack" in out
    assert ("Different domain" in out) or ("Equivalent" in out)
    code, out, _ = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(model), "--json",
                       "--retries", "1")
    data = json.loads(out)
    assert code == 1 and len(data["rounds"]) == 2 and data["prompt"]["action"] == "stack"


def test_generate_search_streams_each_call_and_stops_at_its_budget(capsys, monkeypatch, tmp_path):
    from tiny_gguf import write_tiny_llama

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    code, out, _ = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(model), "--grammar",
                       "--search", "--budget", "3", "--width", "2", "--children", "1", "--max-tokens", "48")
    assert code in (0, 1)
    assert "budget 3 model calls, 2 roots, 1 children per expansion" in out
    assert [line.split(" #")[0] for line in out.splitlines() if line.startswith("-- call ")][:3] == [
        "-- call 1/3", "-- call 2/3", "-- call 3/3"]
    code, _, err = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(model), "--search",
                       "--budget", "0", "--no-repair")
    assert code == 2 and "'budget' must be a whole number of at least 1" in err
    code, out, _ = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(model), "--grammar",
                       "--search", "--budget", "4", "--width", "2", "--children", "2", "--max-tokens", "48",
                       "--batch-children", "--speculate-children", "--json")
    options = json.loads(out)["options"]
    assert code in (0, 1) and options["batch_children"] is True and options["speculate_children"] is True


def test_generate_with_a_missing_model_file_says_which_file(capsys, monkeypatch, tmp_path):
    code, _, err = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(tmp_path / "none.gguf"))
    assert code == 5 and "none.gguf" in err


def test_models_lists_the_default_model(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "models")
    assert code == 0 and "default" in out and "gemma" in out.lower()
    from domain_drafter.llm.catalogue import RAM_NOTE, load_catalogue

    qwen = load_catalogue().get("qwen2.5-coder-1.5b")
    assert RAM_NOTE in out and qwen.ram_text in next(line for line in out.splitlines() if qwen.name in line)


def test_unknown_description_class_exits_2_with_the_valid_names(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, "prompt", "blocksworld", "put-down", "--class", "flip")
    assert code == 2
    assert "unknown description class 'flip'" in err and "base, flipped, random" in err


def test_malformed_descriptions_exit_3_with_file_and_line(capsys, monkeypatch, tmp_path, bundles):
    folder = tmp_path / "mine"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "descriptions.toml"
    path.write_text(path.read_text().replace("[actions.stack]\nsummary = ", "[actions]\nstack = [1]\nx = "))
    code, _, err = run(capsys, monkeypatch, "prompt", str(folder), "stack")
    assert code == 3
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if l.startswith("stack = "))
    assert f"{path}:{line}:" in err and "Traceback" not in err


# Twelve blocks from four towers to one: K* with k = 100000 plans for far longer than the test waits.
SLOW_PROBLEM = """(define (problem twelve) (:domain blocksworld)
  (:objects b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 - block)
  (:init (ontable b1) (on b7 b1) (on b10 b7) (clear b10) (ontable b0) (on b6 b0) (on b11 b6) (clear b11)
         (ontable b4) (on b5 b4) (on b2 b5) (clear b2) (ontable b8) (on b9 b8) (on b3 b9) (clear b3) (handempty))
  (:goal (and (on b0 b2) (on b1 b0) (on b6 b1) (on b10 b6) (on b11 b10) (on b5 b11) (on b9 b5) (on b3 b9)
              (on b8 b3) (on b4 b8) (on b7 b4))))"""


def processes_working_in(folder: Path) -> list[str]:
    """Processes whose working directory lies under `folder` (K* runs inside its temp dir)."""
    import os

    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd").startswith(str(folder)):
                    found.append(entry)
            except OSError:
                continue
    return found


def test_sigint_twice_stops_evaluate_with_130_and_leaves_no_planner_or_temp_dir(tmp_path, bundles):
    import os
    import signal
    import time

    folder = tmp_path / "slow"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "problems" / "p03.pddl").write_text(SLOW_PROBLEM)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp), DOMAIN_DRAFTER_CACHE=str(tmp_path / "cache"))
    script = Path(sys.executable).parent / "domain-drafter"
    # A user's terminal delivers Ctrl-C: start the command with SIGINT at its default even when this test run was
    # itself started in the background (where the shell has SIGINT ignored, and children inherit that).
    proc = subprocess.Popen([str(script), "evaluate", str(folder), "put-down", "--k", "100000", "--time-limit", "120",
                             "--equivalence", "paper"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc.stdin.write(PUT_DOWN)
    proc.stdin.close()
    deadline = time.monotonic() + 60
    while not processes_working_in(temp) and time.monotonic() < deadline:  # wait until K* really runs
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    assert processes_working_in(temp), "K* never started"
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # an impatient second Ctrl-C must not cut the clean-up short
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("evaluate did not stop within 10 s of SIGINT") from None
    stopped = time.monotonic() - sent
    assert code == 130, proc.stderr.read()
    assert stopped < 10
    assert processes_working_in(temp) == []
    assert list(temp.iterdir()) == []


def test_generate_prompt_format_reaches_the_model(capsys, monkeypatch, tmp_path):
    from tiny_gguf import CHATML_TEMPLATE, write_tiny_llama

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    plain = write_tiny_llama(tmp_path / "tiny.gguf")
    code, _, err = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(plain),
                       "--prompt-format", "chat")
    assert code == 5 and "no chat template" in err and 'prompt_format "completion"' in err
    # a file the catalogue lists as a chat model: "auto" (the default) reads it in its chat template
    chat = write_tiny_llama(tmp_path / "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", chat_template=CHATML_TEMPLATE)
    tokens = {}
    for fmt in ("auto", "completion"):
        code, out, _ = run(capsys, monkeypatch, "generate", "blocksworld", "stack", "--model", str(chat),
                           "--json", "--grammar", "--prompt-format", fmt)
        data = json.loads(out)
        tokens[data["prompt_format"]] = data["rounds"][0]["stats"]["prompt_tokens"]
    assert tokens["chat"] > tokens["completion"] > 0   # the template's turn markers around the same prompt
