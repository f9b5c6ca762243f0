"""On-disk cache of the reference domain's top-k plans: they never change, so plan them once per machine."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from domain_drafter.core.paths import atomic_write_bytes, cache_dir
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.kstar import KStarPlanner, PlannerResult, PlannerStatus


class PlanCache:
    """Reference plans keyed by the content of domain + problem + k + planner version.

    Only solved results are stored (a time-out or crash must be retried, never remembered).
    Writes are atomic (temp file + rename), so parallel processes can share the folder.
    """

    def __init__(self, planner: KStarPlanner, folder: Path | None = None):
        self.planner = planner
        self.folder = folder or cache_dir() / "plans"
        self._memory: dict[str, PlannerResult] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def key(self, domain_text: str, problem_text: str) -> str:
        h = hashlib.sha256()
        for part in (domain_text, problem_text, str(self.planner.k), self.planner.version):
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()

    def plans(self, domain_text: str, problem_text: str, *, task: TaskState | None = None,
              label: str = "") -> PlannerResult:
        """The cached result, or plan now (and store it if solved)."""
        key = self.key(domain_text, problem_text)
        with self._lock:
            if key in self._memory:
                self.hits += 1
                return self._memory[key]
        stored = self._load(key)
        if stored is not None:
            with self._lock:
                self.hits += 1
                self._memory[key] = stored
            return stored
        result = self.planner.plan(domain_text, problem_text, task=task, label=label)
        with self._lock:
            self.misses += 1
            if result.status is PlannerStatus.SOLVED:
                self._memory[key] = result
        if result.status is PlannerStatus.SOLVED:
            self._store(key, result)
        return result

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def _load(self, key: str) -> PlannerResult | None:
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            plans = tuple(tuple(tuple(step) for step in plan) for plan in data["plans"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent or damaged: plan again and overwrite
        return PlannerResult(status=PlannerStatus.SOLVED, plans=plans, wall_time_s=0.0, exit_code=0,
                             command=tuple(data.get("command", ())), message="from the plan cache", log_tail="")

    def _store(self, key: str, result: PlannerResult) -> None:
        path = self._path(key)
        payload = json.dumps({"plans": [list(map(list, p)) for p in result.plans],
                              "command": list(result.command), "planner": self.planner.version})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, payload.encode("utf-8"))
        except OSError:
            pass  # a cache that cannot be written only costs time
