"""How answers are judged, as a small module of its own: front ends read its defaults at start-up
(the command line builds its options from them) without importing the parser or the planner."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class EquivalenceMode(str, enum.Enum):
    """Which equivalence the Evaluator decides: the proof on the problems, or the paper's plan heuristic."""

    PROVEN = "proven"
    PAPER = "paper"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class EvaluationOptions:
    """How answers are judged. `equivalence` PROVEN (default) decides by the state-space proof (METHOD 6a),
    PAPER by the paper's plan heuristic (METHOD 6); `paper_too` computes the heuristic beside the proof."""

    k: int = 100
    time_limit_s: float = 30.0
    use_verdict_cache: bool = True
    equivalence: EquivalenceMode = EquivalenceMode.PROVEN
    state_budget: int = 100_000        # reachable states explored per problem before the planner route
    proof_time_limit_s: float = 20.0   # seconds for exploration plus the witness planner, per answer
    paper_too: bool = False

    def __post_init__(self) -> None:
        # settings files and experiment specs hold the mode as text ("proven" / "paper")
        object.__setattr__(self, "equivalence", EquivalenceMode(self.equivalence))
        if self.state_budget < 1 or self.proof_time_limit_s <= 0:
            raise ValueError("state_budget must be >= 1 and proof_time_limit_s > 0")
