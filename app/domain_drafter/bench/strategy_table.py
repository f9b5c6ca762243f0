"""Strategies compared at equal cost: per system, proven Equivalent %, mean score, and what an action cost.

Read from the results file's rows: the verdict (class, and whether the proof finished), the
agreement score (METHOD 6b) of the stored answer, and the generation record (model calls, tokens
generated, seconds, and the call that found the first proven Equivalent). A one-shot answer is
one call. A blind run (the spec's `blind`, drafting/blind.py) adds per system the answers the blind
judge accepted and its false accepts: accepted, and the reference's verdict is not Equivalent. `curve` gives the share of actions proven Equivalent within x model calls, for the figure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from domain_drafter.bench.store import ResultsStore


@dataclass(frozen=True)
class StrategyStats:
    system: str
    strategy: str
    tasks: int
    proven_equivalent: int
    score_sum: float
    scored: int
    calls: int
    tokens: int
    wall_s: float
    found_at: tuple[int, ...] = field(default=())   # per task proven Equivalent: the call that found it
    by_quick_fix: int = 0      # of the proven Equivalent: a quick fix of a model's answer (drafting/search.py)
    blind: bool = False        # drafted with the blind judge
    blind_accepted: int = 0    # answers the blind judge accepted
    false_accepts: int = 0     # of them, the reference's verdict is not Equivalent

    @property
    def equivalent_percent(self) -> float:
        return 100.0 * self.proven_equivalent / self.tasks if self.tasks else 0.0

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    def per_action(self, total: float) -> float:
        return total / self.tasks if self.tasks else 0.0

    def curve(self, budget: int) -> list[tuple[int, float]]:
        """(calls, % of tasks proven Equivalent within that many calls) for calls 1..budget."""
        return [(x, 100.0 * sum(1 for c in self.found_at if c <= x) / self.tasks if self.tasks else 0.0)
                for x in range(1, budget + 1)]

    def to_dict(self) -> dict:
        return {"system": self.system, "strategy": self.strategy, "tasks": self.tasks,
                "proven_equivalent": self.proven_equivalent, "proven_equivalent_percent": round(self.equivalent_percent, 2),
                "mean_score": None if self.mean_score is None else round(self.mean_score, 4),
                "calls_per_action": round(self.per_action(self.calls), 2),
                "tokens_per_action": round(self.per_action(self.tokens), 1),
                "seconds_per_action": round(self.per_action(self.wall_s), 1), "found_at": list(self.found_at),
                "by_quick_fix": self.by_quick_fix,
                **({"blind": True, "blind_accepted": self.blind_accepted, "false_accepts": self.false_accepts}
                   if self.blind else {})}


def load_strategy_stats(path: str | Path) -> list[StrategyStats]:
    """One entry per system, in the run's order; empty for a file without generation records (an import)."""
    acc: dict[str, dict] = {}
    with ResultsStore(path) as store:
        order = [r[0] for r in store.db.execute("SELECT system FROM tasks GROUP BY system ORDER BY MIN(ord)")]
        rows = store.db.execute("SELECT system, class, proof_proven, result, generation FROM tasks "
                                "WHERE status = 'evaluated'").fetchall()
    for system, cls, proven, result, generation in rows:
        gen = json.loads(generation) if generation else {}
        res = json.loads(result) if result else {}
        a = acc.setdefault(system, {"strategy": gen.get("strategy", "one-shot"), "tasks": 0, "eq": 0, "score": 0.0,
                                    "scored": 0, "calls": 0, "tokens": 0, "wall": 0.0, "found": [],
                                    "fixed": 0, "blind": bool(gen.get("blind")), "accepted": 0, "false": 0})
        a["tasks"] += 1
        is_eq = cls == "Equivalent" and proven is not None and bool(proven)
        stats = gen.get("stats") or {}
        calls = int(gen.get("calls", 1))
        a["calls"] += calls
        a["tokens"] += int(gen.get("generated_tokens", stats.get("generated_tokens", 0)) or 0)
        a["wall"] += float(gen.get("wall_s", stats.get("wall_time_s", 0.0)) or 0.0)
        score = (res.get("score") or {}).get("value")
        if score is None and res.get("class") in ("Syntax error", "Semantic error"):
            score = 0.0
        if score is not None:
            a["score"] += float(score)
            a["scored"] += 1
        if gen.get("blind_accepted"):
            a["accepted"] += 1
            a["false"] += cls != "Equivalent"
        if is_eq:
            a["eq"] += 1
            a["found"].append(int(gen.get("equivalent_at") or calls))
            a["fixed"] += _best_is_a_quick_fix(gen)
    return [StrategyStats(s, a["strategy"], a["tasks"], a["eq"], a["score"], a["scored"], a["calls"], a["tokens"],
                          a["wall"], tuple(a["found"]), a["fixed"], a["blind"], a["accepted"], a["false"])
            for s in order if (a := acc.get(s))]


def _best_is_a_quick_fix(generation: dict) -> bool:
    search = generation.get("search") or {}
    nodes, best = search.get("nodes") or [], search.get("best")
    return isinstance(best, int) and 0 <= best < len(nodes) and nodes[best].get("repair_of") is not None


def has_strategies(stats: list[StrategyStats]) -> bool:
    return any(s.strategy != "one-shot" or s.blind for s in stats)


ROWS = (("proven Equivalent %", lambda s: f"{s.equivalent_percent:.1f} ({s.proven_equivalent}/{s.tasks})"),
        ("of them by a quick fix", lambda s: str(s.by_quick_fix)),
        ("mean score", lambda s: "" if s.mean_score is None else f"{100 * s.mean_score:.1f}%"),
        ("model calls per action", lambda s: f"{s.per_action(s.calls):.1f}"),
        ("tokens per action", lambda s: f"{s.per_action(s.tokens):.0f}"),
        ("seconds per action", lambda s: f"{s.per_action(s.wall_s):.1f}"))
BLIND_ROWS = (("accepted by the blind judge", lambda s: f"{s.blind_accepted}/{s.tasks}" if s.blind else ""),
              ("false accepts (accepted, proven Different)",
               lambda s: f"{s.false_accepts}/{s.blind_accepted}" if s.blind else ""))


def rows_of(stats: list[StrategyStats]) -> tuple:
    """The table's rows: the blind judge's two beside the others when a system was drafted blind."""
    return ROWS + BLIND_ROWS if any(s.blind for s in stats) else ROWS


def strategies_markdown(stats: list[StrategyStats]) -> str:
    header = ["strategy"] + [s.system for s in stats]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, cell in rows_of(stats):
        lines.append("| " + " | ".join([label] + [cell(s) for s in stats]) + " |")
    return "\n".join(lines) + "\n"


def strategies_json(stats: list[StrategyStats]) -> str:
    return json.dumps([s.to_dict() for s in stats], indent=2)
