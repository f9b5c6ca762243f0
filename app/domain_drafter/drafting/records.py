"""The search's records: each judged answer (`SearchNode`), the whole tree (`SearchResult`) and why it stopped
(`Stopped`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from domain_drafter.core.prompt import Prompt
from domain_drafter.drafting.judges import Judgement
from domain_drafter.drafting.options import SearchOptions
from domain_drafter.llm.backend import GenerationStats


class Stopped(enum.StrEnum):
    """Why a search stopped (a str, so `result.stopped == "budget"` still reads)."""

    EQUIVALENT = "equivalent"   # an answer was proven Equivalent
    BUDGET = "budget"           # the model calls are spent
    TOKENS = "tokens"           # the generated tokens are spent
    TIME = "time"               # the seconds are spent
    EXHAUSTED = "exhausted"     # no answer is left to expand
    CANCELLED = "cancelled"
    ERROR = "error"             # the model (or the drafter) failed: `SearchResult.error` says how


@dataclass(frozen=True)
class SearchNode:
    """One answer of the tree."""

    id: int
    parent: int | None            # None for a root answer
    depth: int
    call: int                     # the model call (1-based) that wrote it
    seed: int                     # the prompt seed of the root prompt it was written after
    decoding_seed: int
    answer: str
    stats: GenerationStats
    judgement: Judgement
    feedback: str | None = None   # what its children were (or would be) told
    duplicate_of: int | None = None
    repair_of: int | None = None  # a quick fix of that node's answer (no model call of its own)
    repairs: tuple[str, ...] = () # the quick fix's edits, in words
    temperature: float = 0.0      # the decoding's (0: greedy)
    dead: bool = False            # Different domain, and its action applies in no reachable state of any problem

    @property
    def score(self) -> float:
        return self.judgement.score

    @property
    def frontier_key(self) -> tuple:
        """The frontier's order (smaller first): the judgement's key with the dead answers after the live ones
        of the same class."""
        key = self.judgement.key
        return (*key[:2], self.dead, *key[2:])

    def to_dict(self) -> dict:
        ev = self.judgement.evaluation
        return {"id": self.id, "parent": self.parent, "depth": self.depth, "call": self.call, "seed": self.seed,
                "decoding_seed": self.decoding_seed, "answer": self.answer, "stats": self.stats.__dict__,
                "verdict": self.judgement.verdict, "score": self.score, "equivalent": self.judgement.equivalent,
                "are": ev.are.total if ev is not None and ev.are is not None else None,
                "solvable": list(self.judgement.solvable), "tests_passed": self.judgement.tests_passed,
                "tests_total": self.judgement.tests_total, "feedback": self.feedback,
                "duplicate_of": self.duplicate_of, "repair_of": self.repair_of, "repairs": list(self.repairs),
                "temperature": self.temperature, "dead": self.dead}


@dataclass(frozen=True)
class SearchResult:
    """The whole tree, the best answer, what was spent, and why the search stopped."""

    prompt: Prompt
    options: SearchOptions
    nodes: tuple[SearchNode, ...]
    stopped: Stopped
    calls: int                    # model calls (a quick fix is a node but not a call)
    generated_tokens: int
    prompt_tokens: int
    wall_s: float
    error: str | None = None
    grammar: str | None = None
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def best(self) -> SearchNode | None:
        nodes = [n for n in self.nodes if n.duplicate_of is None]
        return min(nodes, key=lambda n: (n.judgement.key, n.id)) if nodes else None

    @property
    def equivalent_at(self) -> int | None:
        """The model call that wrote the first proven Equivalent answer (None: none was found)."""
        return next((n.call for n in self.nodes if n.judgement.equivalent), None)

    @property
    def best_scores(self) -> list[float]:
        """After each model call, the best score so far (for the progress line and the figure); a call's
        quick fix counts with the call."""
        out, best = [], 0.0
        for n in self.nodes:
            best = max(best, n.score)
            if n.repair_of is None:
                out.append(best)
            elif out:
                out[-1] = best
        return out

    def to_dict(self) -> dict:
        best = self.best
        return {"options": self.options.to_dict(), "stopped": self.stopped.value, "error": self.error,
                "calls": self.calls, "generated_tokens": self.generated_tokens, "prompt_tokens": self.prompt_tokens,
                "wall_s": self.wall_s, "best": best.id if best is not None else None,
                "equivalent_at": self.equivalent_at, "nodes": [n.to_dict() for n in self.nodes],
                "timings": dict(self.timings)}
