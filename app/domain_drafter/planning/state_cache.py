"""On-disk cache of the reference domain's reachable states per problem, beside the reference plans.

A second answer for the same domain then pays only the comparison. Keys are versioned like
the plan cache's (`versioned_key`: a schema, the Domain Drafter version, the domain and
problem texts). An exploration stopped by the state budget is kept too: breadth-first order
is deterministic, so its first B states are exactly what a budget of B explores. One stopped
by the clock is not kept. A file that does not decode is a miss, never an error.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from domain_drafter.core.paths import atomic_write_bytes, cache_dir, private_dir
from domain_drafter.planning.plan_cache import versioned_key
from domain_drafter.planning.state_space import ReachableStates

SCHEMA = "states-1"
MAX_STORED_STATES = 300_000    # beyond this a file costs more to read than the exploration saves


class StateCache:
    """Reachable states of reference problems, in memory and in `folder`."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder or cache_dir() / "states"
        self._memory: dict[str, ReachableStates] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(domain_text: str, problem_text: str) -> str:
        return versioned_key(SCHEMA, domain_text, problem_text)

    def get(self, key: str, budget: int) -> ReachableStates | None:
        with self._lock:
            found = self._memory.get(key)
        if found is None:
            found = self._load(key)
            if found is not None:
                with self._lock:
                    self._memory[key] = found
        served = _serve(found, budget) if found is not None else None
        with self._lock:
            if served is None:
                self.misses += 1
            else:
                self.hits += 1
        return served

    def in_memory(self, key: str) -> bool:
        """Whether `get(key, ...)` would find the states without reading a file or exploring."""
        with self._lock:
            return key in self._memory

    def put(self, key: str, space: ReachableStates) -> None:
        if not space.complete and not space.stopped.startswith("state budget"):
            return
        with self._lock:
            self._memory[key] = space
        if len(space.states) > MAX_STORED_STATES:
            return
        labels: dict[str, int] = {}
        via = [labels.setdefault(v, len(labels)) for v in space.via]
        payload = {"schema": SCHEMA, "atoms": [list(a) for a in space.atoms],
                   "states": [format(s, "x") for s in space.states], "parent": space.parent,
                   "labels": list(labels), "via": via, "complete": space.complete, "stopped": space.stopped}
        path = self._path(key)
        try:
            private_dir(path.parent)
            atomic_write_bytes(path, json.dumps(payload, separators=(",", ":")).encode("utf-8"))
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def _load(self, key: str) -> ReachableStates | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            if data["schema"] != SCHEMA:
                return None
            atoms = [tuple(str(x) for x in a) for a in data["atoms"]]
            states = [int(s, 16) for s in data["states"]]
            parent = [int(p) for p in data["parent"]]
            labels = [str(x) for x in data["labels"]]
            via = [labels[i] for i in data["via"]]
            if not (len(states) == len(parent) == len(via)) or not states:
                return None
            return ReachableStates(atoms, states, parent, via, bool(data["complete"]), str(data["stopped"]))
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
            return None


def _serve(space: ReachableStates, budget: int) -> ReachableStates | None:
    """The stored exploration as a run with `budget` would have left it, or None if it would go further."""
    if space.complete and len(space.states) <= budget:
        return space
    if len(space.states) >= budget:
        if len(space.states) == budget and not space.complete:
            return space
        return ReachableStates(space.atoms, space.states[:budget], space.parent[:budget], space.via[:budget],
                               False, f"state budget {budget} reached")
    return None
