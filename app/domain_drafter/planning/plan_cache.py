"""On-disk cache of the reference domain's top-k plans: they never change, so plan them once per machine.

Also remembered: a reference problem that is unsolvable (it stays so), and one that timed out
(for that time limit or a shorter one), so a broken bundle does not cost a full planner run
at every evaluation. Entries are keyed with a schema version and the Domain Drafter and K*
versions; an entry that does not decode (another version, a damaged file) is a miss and is
replaced.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import domain_drafter
from domain_drafter.core.paths import atomic_write_bytes, cache_dir, private_dir
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.kstar import KStarPlanner, PlannerResult, PlannerStatus

SCHEMA = "plans-2"
_REMEMBERED = (PlannerStatus.SOLVED, PlannerStatus.UNSOLVABLE, PlannerStatus.TIMEOUT)


def versioned_key(*parts: str) -> str:
    """A sha256 over the parts and the running Domain Drafter version, NUL-separated."""
    h = hashlib.sha256()
    for part in (*parts, domain_drafter.__version__):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class PlanCache:
    """Reference planner results keyed by the content of domain + problem + k + versions.

    Solved and unsolvable results are kept for good; a time-out only serves planners whose
    time limit is not longer. Crashes and cancellations are never remembered. Writes are
    atomic (temp file + rename), so parallel processes can share the folder.
    """

    def __init__(self, planner: KStarPlanner, folder: Path | None = None):
        self.planner = planner
        self.folder = folder or cache_dir() / "plans"
        self._memory: dict[str, PlannerResult] = {}
        self._limits: dict[str, float] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def key(self, domain_text: str, problem_text: str) -> str:
        return versioned_key(SCHEMA, domain_text, problem_text, str(self.planner.k), self.planner.version)

    def plans(self, domain_text: str, problem_text: str, *, task: TaskState | None = None,
              label: str = "") -> PlannerResult:
        """The remembered result, or plan now (and remember it if it is worth remembering)."""
        key = self.key(domain_text, problem_text)
        with self._lock:
            if key in self._memory and self._serves(self._memory[key], self._limits.get(key)):
                self.hits += 1
                return self._memory[key]
        stored = self._load(key)
        if stored is not None:
            result, limit = stored
            with self._lock:
                self.hits += 1
                self._memory[key], self._limits[key] = result, limit
            return result
        result = self.planner.plan(domain_text, problem_text, task=task, label=label)
        with self._lock:
            self.misses += 1
            if result.status in _REMEMBERED:
                self._memory[key], self._limits[key] = result, self.planner.time_limit_s
        if result.status in _REMEMBERED:
            self._store(key, result)
        return result

    def _serves(self, result: PlannerResult, limit: float | None) -> bool:
        """A time-out answers only for a time limit no longer than the one that ran out."""
        return result.status is not PlannerStatus.TIMEOUT or (limit is not None
                                                              and self.planner.time_limit_s <= limit)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def _load(self, key: str) -> tuple[PlannerResult, float] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            status = PlannerStatus(data["status"])
            plans = tuple(tuple(tuple(_word(w) for w in step) for step in plan) for plan in data["plans"])
            limit = float(data["time_limit_s"])
            message = str(data["message"])
            command = tuple(str(c) for c in data.get("command", ()))
            if status not in _REMEMBERED or (status is PlannerStatus.SOLVED) != bool(plans):
                return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError):
            return None  # absent, damaged or from another version: plan again and overwrite
        result = PlannerResult(status=status, plans=plans, wall_time_s=0.0, exit_code=None, command=command,
                               message=f"from the plan cache: {message}", log_tail="")
        return (result, limit) if self._serves(result, limit) else None

    def _store(self, key: str, result: PlannerResult) -> None:
        path = self._path(key)
        payload = json.dumps({"schema": SCHEMA, "status": result.status.value,
                              "plans": [list(map(list, p)) for p in result.plans],
                              "time_limit_s": self.planner.time_limit_s, "message": result.message,
                              "command": list(result.command), "planner": self.planner.version})
        try:
            private_dir(path.parent)
            atomic_write_bytes(path, payload.encode("utf-8"))
        except OSError:
            pass  # a cache that cannot be written only costs time


def _word(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("a plan step holds a non-string")
    return value
