"""`domain-drafter --self-test`: run every part of the app once, time each, and say what to do if one fails.

Stages, in order: load a bundled domain; find (or assemble) the default model and let it write one
action with the grammar on (the drafting loop the app uses); judge that answer with K*; start the
desktop app offscreen in a child process and draw its main window. The packaged app runs this same
code. Never imports Qt: the GUI stage is a child process (`domain_drafter.gui.startup.gui_self_test`).
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from domain_drafter import __version__

DOMAIN = "blocksworld"
ACTION = "put-down"
GUI_MODULE = "domain_drafter.gui.startup.gui_self_test"
GUI_TIMEOUT_S = 120.0
PLANNER_TIME_LIMIT_S = 60.0
FROZEN = bool(getattr(sys, "frozen", False))
REINSTALL = ("unpack the packaged app again" if FROZEN
             else "pip install --force-reinstall domain-drafter (or, from a checkout, `make setup`)")


def _reinstall(package: str) -> str:
    """How to repair one dependency: pip for an installed app, a fresh copy for the packaged one."""
    return "unpack the packaged app again" if FROZEN else f"`pip install --force-reinstall {package}`"
QT_LIBS = ("install the Linux libraries Qt needs: `sudo sh packaging/linux-system-packages.sh` from a checkout, "
           "or the list in the README's 'System packages (Linux desktops)' section")


@dataclass(frozen=True)
class StageResult:
    """One stage: did it work, how long it took, what it found, and (when it failed) what to do."""

    name: str
    ok: bool
    seconds: float
    detail: str
    fix: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "ok": self.ok, "seconds": round(self.seconds, 3), "detail": self.detail,
                "fix": self.fix}


@dataclass(frozen=True)
class SelfTestReport:
    stages: tuple[StageResult, ...]
    header: str

    @property
    def passed(self) -> bool:
        return bool(self.stages) and all(s.ok for s in self.stages)

    def format(self) -> str:
        """One screen: a header, one line per stage (plus what to do under a failed one), a verdict."""
        lines = [self.header]
        for s in self.stages:
            lines.append(f"  {'ok  ' if s.ok else 'FAIL'}  {s.name:<8}{s.seconds:7.2f} s  {s.detail}")
            if not s.ok and s.fix:
                lines.append(f"{'':24}what to do: {s.fix}")
        total = sum(s.seconds for s in self.stages)
        failed = [s.name for s in self.stages if not s.ok]
        lines.append(f"all {len(self.stages)} stages passed in {total:.1f} s" if not failed
                     else f"{len(failed)} of {len(self.stages)} stages failed ({', '.join(failed)}); "
                          "run `domain-drafter --self-test` again after the fix")
        return "\n".join(lines)


def _header() -> str:
    where = f"packaged app in {os.path.dirname(sys.executable)}" if FROZEN \
        else f"Python {platform.python_version()} at {sys.executable}"
    return f"Domain Drafter {__version__} self-test ({where})"


def _timed(name: str, body: Callable[[], tuple[str, str]], fix: Callable[[BaseException], str]) -> StageResult:
    """Run a stage body returning (detail, fix-if-failed); an exception fails the stage with fix(exc)."""
    start = time.perf_counter()
    try:
        detail, failure_fix = body()
    except Exception as exc:
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return StageResult(name, False, time.perf_counter() - start, message.splitlines()[0], fix(exc))
    return StageResult(name, not failure_fix, time.perf_counter() - start, detail, failure_fix)


def _hint(exc: BaseException, otherwise: str) -> str:
    """The hint a DrafterError carries, else `otherwise`."""
    return getattr(exc, "hint", None) or otherwise


def run_self_test(*, gui: bool = True) -> SelfTestReport:
    """Run every stage (a failed stage does not stop the later ones) and return the report."""
    from domain_drafter.core.bundle import bundled_root, load_bundle, load_bundled

    state: dict = {}
    stages: list[StageResult] = []

    def domain() -> tuple[str, str]:
        bundle = state["bundle"] = load_bundle(DOMAIN)
        bundle.require_descriptions()
        problems = bundle.require_problems()
        state["pool"] = load_bundled()
        return (f"{bundle.name}: {len(bundle.action_names)} actions, {len(problems)} problems; "
                f"{len(state['pool'])} bundled domains in {bundled_root()}"), ""

    stages.append(_timed("domain", domain, lambda e: _hint(e, f"the installation is damaged: {REINSTALL}")))
    if "bundle" not in state:
        return SelfTestReport(tuple(stages), _header())

    stages.append(_timed("model", lambda: _model_stage(state), _model_fix))
    stages.append(_timed("planner", lambda: _planner_stage(state), _planner_fix))
    if gui:
        stages.append(_timed("gui", _gui_stage, lambda e: QT_LIBS))
    return SelfTestReport(tuple(stages), _header())


def _model_stage(state: dict) -> tuple[str, str]:
    """What the drafting loop's first round does up to the answer: prompt, grammar, local generation."""
    from domain_drafter.core.prompt import build_prompt
    from domain_drafter.llm.backend import DecodingOptions
    from domain_drafter.llm.grammar import ActionGrammar
    from domain_drafter.llm.llama import LlamaCppBackend
    from domain_drafter.llm.models import resolve_model

    bundle = state["bundle"]
    path = resolve_model("default")
    prompt = build_prompt(bundle, ACTION, state["pool"])
    decoding = ActionGrammar(bundle.domain, ACTION).decoding(DecodingOptions())
    with LlamaCppBackend(path) as backend:
        generation = backend.generate(prompt.text, decoding)
    state["answer"] = generation.text
    stats = generation.stats
    return (f"{path.name} wrote {ACTION}: {stats.generated_tokens} tokens at {stats.tokens_per_s:.0f} tokens/s "
            f"after a {stats.prompt_tokens}-token prompt"), ""


def _evaluator():
    """An evaluator that always runs K* beside the proof (no cached verdicts) with a generous time limit."""
    from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator

    return Evaluator(EvaluationOptions(time_limit_s=PLANNER_TIME_LIMIT_S, use_verdict_cache=False, paper_too=True))


def _model_fix(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, ImportError) or (isinstance(exc, OSError) and "llama" in text.lower()):
        return "llama.cpp cannot load: " + _reinstall("--no-cache-dir llama-cpp-python")
    return _hint(exc, "run `domain-drafter models` to see which models are found; see models/README.md")


def _planner_stage(state: dict) -> tuple[str, str]:
    bundle = state["bundle"]
    answer, what = state.get("answer"), "the model's answer"
    if answer is None:  # the model stage failed: still check the planner, on the reference action
        answer, what = bundle.domain.action(ACTION).to_pddl(), "the reference action"
    with _evaluator() as evaluator:
        result = evaluator.evaluate(bundle, ACTION, answer)
    if result.error:
        return result.error.message, _planner_fix(RuntimeError(result.error.message))
    if result.equivalence is None:  # the grammar allows only answers that pass the checks
        return f"{what} failed the checks before K* ran: {result.message}", (
            f"this is a bug: report it with the output of `domain-drafter generate {DOMAIN} {ACTION} --grammar`")
    paper = result.equivalence.subclass.value if result.equivalence.subclass else "no verdict"
    how = f"{result.proof.method.value}" if result.proof is not None else "not run"
    return (f"K* judged {what}: {paper} ({len(bundle.problems)} problems); proven verdict {result.subclass.value} "
            f"(by {how})"), ""


def _planner_fix(exc: BaseException) -> str:
    if "not installed" in str(exc) or isinstance(exc, ImportError):
        return "the planner is missing: " + _reinstall("kstar-planner")
    return (f"run `domain-drafter evaluate {DOMAIN} {ACTION}` on an answer to see K*'s log; "
            f"if it says a file is missing: {_reinstall('kstar-planner')}")


def _gui_stage() -> tuple[str, str]:
    """Start `python -m domain_drafter.gui.startup.gui_self_test` offscreen (the frozen app emulates `-m`)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        done = subprocess.run([sys.executable, "-m", GUI_MODULE], env=env, capture_output=True, text=True,
                              timeout=GUI_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"the window was not drawn within {GUI_TIMEOUT_S:g} s", (
            "run `domain-drafter-gui` in a terminal and look at what it prints")
    report = _last_json_line(done.stdout)
    if report is not None and report.get("ok"):
        return (f"main window drawn offscreen: {report['width']}x{report['height']} px, {report['colours']} colours, "
                f"{report['domains']} domains listed, with its icon"), ""
    error = (report or {}).get("error") or _last_line(done.stderr) or f"exit code {done.returncode}"
    return error, _gui_fix(done.stderr + error)


def _gui_fix(text: str) -> str:
    sound = re.search(r"PySide6-Essentials==[0-9.]+", text)
    if "reference count of None" in text and sound:   # the GUI's start-up guard refused the binding
        return "Qt for Python is unsound here: " + _reinstall(sound.group())
    if "No module named 'PySide6'" in text:
        return "Qt for Python is missing: " + _reinstall("PySide6-Essentials")
    if "cannot open shared object file" in text or "platform plugin" in text:
        return QT_LIBS
    return "run `domain-drafter-gui` in a terminal and look at what it prints"


def _last_json_line(text: str) -> dict | None:
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def main(*, gui: bool = True) -> int:
    """Print the report; exit status 0 only if every stage passed."""
    print(_header().replace("self-test", "self-test: running"), flush=True)
    report = run_self_test(gui=gui)
    print("\n".join(report.format().splitlines()[1:]))
    return 0 if report.passed else 1
