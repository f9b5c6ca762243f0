"""Adapter around the K* top-k planner: one isolated, time-limited, cancellable process per call."""

from __future__ import annotations

import ast
import enum
import importlib
import json
import logging
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.tasks import TaskState
from domain_drafter.planning import exitcodes

logger = logging.getLogger("domain_drafter.planning")

Plan = tuple[tuple[str, ...], ...]
"""A plan: steps `(action_name, arg1, ...)`, all lower-case."""

INSTALL_HINT = "install it with `pip install kstar-planner` (into the interpreter that runs the planner)"
_POLL_S = 0.02
PLANS_FILE = "plans.json"
_LOG_TAIL_CHARS = 2000
_ERROR_LINE = re.compile(r"error|reason|could not|not support|unsupported|exception|no module named", re.I)
_NOISE_LINE = re.compile(r"exit code|driver aborting|^\[t=|^info ", re.I)


class PlannerStatus(str, enum.Enum):
    """How a planner run ended (str-valued, so results serialise to the same JSON strings)."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    TRANSLATOR_ERROR = "translator_error"
    CRASHED = "crashed"
    CANCELLED = "cancelled"
    SKIPPED = "skipped"   # not run: its result could not have changed the verdict

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class PlannerResult:
    """Outcome of one `KStarPlanner.plan` call; `plans` are distinct and in K*'s (cost) order."""

    status: PlannerStatus
    plans: tuple[Plan, ...]
    wall_time_s: float
    exit_code: int | None
    command: tuple[str, ...]
    message: str
    log_tail: str
    costs: tuple[float, ...] = ()

    @property
    def solved(self) -> bool:
        """True if K* found at least one plan."""
        return self.status is PlannerStatus.SOLVED

    @property
    def timed_out(self) -> bool:
        """True if the time limit stopped K*."""
        return self.status is PlannerStatus.TIMEOUT


def parse_step(text: str) -> tuple[str, ...]:
    """Parse one K* action string ('pick-up a', '(pick-up a)', 'noop ') into a lower-case tuple."""
    return tuple(text.strip().lstrip("(").rstrip(")").lower().split())


def parse_plans(data: object) -> tuple[tuple[Plan, ...], tuple[float, ...]]:
    """Turn K*'s JSON (`{"plans": [{"cost": c, "actions": [...]}]}`) into distinct plans and their costs."""
    if not isinstance(data, dict) or not isinstance(data.get("plans"), list):
        raise ValueError("no 'plans' list in K*'s JSON")
    seen: set[Plan] = set()
    plans: list[Plan] = []
    costs: list[float] = []
    for entry in data["plans"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("actions"), list):
            raise ValueError(f"malformed plan entry: {entry!r}"[:200])
        plan = tuple(step for step in map(parse_step, map(str, entry["actions"])) if step)
        if plan not in seen:
            seen.add(plan)
            plans.append(plan)
            costs.append(float(entry.get("cost", len(plan))))
    return tuple(plans), tuple(costs)


def _kstar_paths() -> tuple[Path, str] | None:
    """The K* build directory and version string, or None if kstar_planner is not installed here."""
    try:
        version_mod = importlib.import_module("kstar_planner.__version__")
        driver_mod = importlib.import_module("kstar_planner.driver.version")
    except ImportError:
        return None
    build = Path(version_mod.__file__).resolve().parent / "builds" / "release" / "bin"
    return build, f"kstar-planner {version_mod.__version__} (driver {driver_mod.__version__})"


def _error_lines(log: str) -> str:
    """The lines of a driver log that explain an error (decoding the driver's b'...' reprs)."""
    lines: list[str] = []
    for raw in log.splitlines():
        raw = raw.strip()
        if raw[:2] in ("b'", 'b"'):
            try:
                raw = ast.literal_eval(raw).decode("utf-8", "replace")
            except (ValueError, SyntaxError):
                pass
        for line in raw.splitlines():
            line = line.strip()
            if line and _ERROR_LINE.search(line) and not _NOISE_LINE.search(line) and line not in lines:
                lines.append(line)
    return " ".join(lines[-3:])


def _group_members(pgid: int) -> list[int]:
    """PIDs in process group `pgid` (Linux /proc; empty elsewhere)."""
    members: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return members
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()
            if len(fields) > 2 and int(fields[2]) == pgid:
                members.append(int(entry))
    return members


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    """Kill the driver's whole process group and reap it, leaving no orphans or zombies.

    The driver's children (translator, search) are killed first so the still-living driver
    reaps them; then the driver itself is killed and reaped by us.
    """
    deadline = time.monotonic() + 0.5
    while proc.poll() is None and time.monotonic() < deadline:
        children = [pid for pid in _group_members(proc.pid) if pid != proc.pid]
        if not children:
            break
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=_POLL_S)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


class KStarPlanner:
    """Finds the k cheapest plans of a PDDL task with K* (`kstar(lmcut())`)."""

    def __init__(self, k: int = 100, time_limit_s: float = 30.0, memory_limit_mb: int | None = 2048,
                 python: str = sys.executable) -> None:
        if k < 1 or time_limit_s <= 0:
            raise ValueError("k must be >= 1 and time_limit_s > 0")
        self.k = k
        self.time_limit_s = time_limit_s
        self.memory_limit_mb = memory_limit_mb
        self.python = python

    @property
    def version(self) -> str:
        """Planner identity for cache keys, e.g. 'kstar-planner 1.6.0 (driver 21.12+)'."""
        found = _kstar_paths()
        return found[1] if found else "kstar-planner (not installed)"

    def command(self, workdir: Path, build: Path) -> tuple[str, ...]:
        """The driver command line for a run in `workdir` (domain.pddl/problem.pddl there)."""
        cpu_limit = math.ceil(self.time_limit_s) + 1  # backstop only; we enforce the wall-clock limit
        limits = ["--overall-time-limit", f"{cpu_limit}s"]
        if self.memory_limit_mb is not None:
            limits += ["--overall-memory-limit", f"{int(self.memory_limit_mb)}M"]
        # Relative to the driver's working directory (`workdir`): the search option is parsed by
        # K*'s option parser, which cannot read a path holding spaces, commas or parentheses.
        search = f"kstar(lmcut(), k={self.k}, dump_plan_files=false, json_file_to_dump={PLANS_FILE})"
        return (self.python, "-B", "-m", "kstar_planner.driver.main", "--build", str(build), *limits,
                "domain.pddl", "problem.pddl",
                "--translate-options", "--invariant-generation-max-candidates", "0",
                "--search-options", "--search", search)

    def plan(self, domain_text: str, problem_text: str, *, task: TaskState | None = None,
             label: str = "") -> PlannerResult:
        """Run K* on the given PDDL texts; planner failures come back as a status, never raised."""
        what = f"problem {label}" if label else "the problem"
        start = time.monotonic()
        if task is not None and task.cancelled:
            message = f"K* cancelled before it started on {what}"
            return PlannerResult(PlannerStatus.CANCELLED, (), 0.0, None, (), message, "")
        found = _kstar_paths()
        if found is None or not (found[0] / "downward").is_file():
            message = f"K* is not installed or its binaries are missing; {INSTALL_HINT}"
            return PlannerResult(PlannerStatus.CRASHED, (), time.monotonic() - start, None, (), message, "")
        with tempfile.TemporaryDirectory(prefix="kstar-", ignore_cleanup_errors=True) as tmp:
            workdir = Path(tmp)
            (workdir / "domain.pddl").write_text(domain_text, encoding="utf-8")
            (workdir / "problem.pddl").write_text(problem_text, encoding="utf-8")
            command = self.command(workdir, found[0])
            log_path = workdir / "planner.log"
            code: int | None = None
            with open(log_path, "wb") as log_file:
                try:
                    proc = subprocess.Popen(command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=log_file,
                                            stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                                            start_new_session=True)
                except OSError as err:
                    message = f"cannot start K* with {self.python!r} ({err}); {INSTALL_HINT}"
                    return PlannerResult(PlannerStatus.CRASHED, (), time.monotonic() - start, None, command,
                                         message, "")
                logger.info("K* pid %d on %s: %s", proc.pid, what, shlex.join(command))
                stopped = self._wait(proc, start + self.time_limit_s, task)
                if stopped is None:
                    code = proc.returncode
            log = log_path.read_text(encoding="utf-8", errors="replace")
            if stopped is PlannerStatus.CANCELLED:
                status, message, plans, costs = stopped, f"K* cancelled on {what}", (), ()
            elif stopped is PlannerStatus.TIMEOUT:
                status, message, plans, costs = stopped, f"K* timed out after {self.time_limit_s:g} s on {what}", (), ()
            else:
                assert code is not None
                status, message, plans, costs = self._classify(code, log, workdir / PLANS_FILE, what)
        wall = time.monotonic() - start
        logger.info("K* on %s: %s in %.3f s (%s)", what, status.name, wall, exitcodes.describe(code))
        return PlannerResult(status, plans, wall, code, command, message, log[-_LOG_TAIL_CHARS:], costs)

    @staticmethod
    def _wait(proc: subprocess.Popen[bytes], deadline: float, task: TaskState | None) -> PlannerStatus | None:
        """Wait for the driver; kill it on cancel or time-out and say which (None: it exited by itself)."""
        stopped: PlannerStatus | None = None
        try:
            while stopped is None:
                try:
                    proc.wait(timeout=_POLL_S)
                    return None
                except subprocess.TimeoutExpired:
                    pass
                if task is not None and task.cancelled:
                    stopped = PlannerStatus.CANCELLED
                elif time.monotonic() >= deadline:
                    stopped = PlannerStatus.TIMEOUT
        finally:
            if proc.poll() is None:
                _terminate(proc)
        return stopped

    def _classify(self, code: int, log: str, json_path: Path,
                  what: str) -> tuple[PlannerStatus, str, tuple[Plan, ...], tuple[float, ...]]:
        """Map a driver run that ended by itself (exit code, log, JSON) to status, message, plans, costs."""
        plans: tuple[Plan, ...] = ()
        costs: tuple[float, ...] = ()
        if json_path.is_file() and json_path.stat().st_size > 0:
            try:
                plans, costs = parse_plans(json.loads(json_path.read_text(encoding="utf-8")))
            except (ValueError, UnicodeDecodeError) as err:
                return PlannerStatus.CRASHED, f"K* wrote an unreadable plans file on {what}: {err}", (), ()
        name = exitcodes.describe(code)
        detail = _error_lines(log) or "see the log"
        hint = f"; {INSTALL_HINT}" if re.search(r"No module named|Could not find", log) else ""
        # The driver prints "<component> exit code: N" and exits with the last N; any other exit
        # (a Python error in the driver, a signal in a component) is not a planner verdict.
        reports = re.findall(r"^(\w+) exit code: (-?\d+)\s*$", log, re.M)
        if code not in exitcodes.DRIVER_ERRORS and (not reports or int(reports[-1][1]) != code):
            stage = f"; its {reports[-1][0]} ended with {exitcodes.describe(int(reports[-1][1]))}" if reports else ""
            return PlannerStatus.CRASHED, f"K* driver failed on {what} ({name}{stage}): {detail}{hint}", plans, costs
        translate_failed = reports[-1][0] == "translate" and code != exitcodes.SUCCESS if reports else False
        if code in exitcodes.PLAN_FOUND and plans and not translate_failed:
            span = f"cost {costs[0]:g}" if costs[0] == costs[-1] else f"costs {costs[0]:g}..{costs[-1]:g}"
            return PlannerStatus.SOLVED, f"K* found {len(plans)} distinct plan(s) ({span}) on {what}", plans, costs
        if code in exitcodes.UNSOLVABLE and not plans:
            return PlannerStatus.UNSOLVABLE, f"K* proved {what} unsolvable ({name})", (), ()
        if code in exitcodes.OUT_OF_TIME:
            return PlannerStatus.TIMEOUT, f"K* ran out of CPU time on {what} ({name})", plans, costs
        if code in exitcodes.OUT_OF_MEMORY:
            message = f"K* ran out of memory (limit {self.memory_limit_mb} MB) on {what} ({name})"
            return PlannerStatus.CRASHED, message, plans, costs
        if code in exitcodes.INPUT_REJECTED:
            stage = "search" if code == exitcodes.SEARCH_UNSUPPORTED else "translator"
            return PlannerStatus.TRANSLATOR_ERROR, f"K* {stage} rejected the PDDL of {what} ({name}): {detail}", (), ()
        if code == exitcodes.SUCCESS:
            return PlannerStatus.CRASHED, f"K* exited normally but wrote no plans on {what}", (), ()
        return PlannerStatus.CRASHED, f"K* failed on {what} ({name}): {detail}{hint}", plans, costs
