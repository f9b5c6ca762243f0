"""How many candidates Draft N candidates writes, and how they differ: the defaults, written once.

A module of its own (no engine imports), so the CLI's parser and the Settings read the defaults cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_CANDIDATES = 4            # N in Settings and in `generate --candidates`
MAX_CANDIDATES = 8               # each candidate has its own KV cache in the batch: memory grows with N
DEFAULT_SAMPLE_TEMPERATURE = 0.8  # sampled candidates, when the decoding options are greedy


@dataclass(frozen=True)
class CandidateOptions:
    """N, and whether the candidates are sampled from one prompt (else one greedy answer per prompt seed)."""

    n: int = DEFAULT_CANDIDATES
    sampled: bool = False
    temperature: float = DEFAULT_SAMPLE_TEMPERATURE

    def __post_init__(self) -> None:
        if not 1 <= self.n <= MAX_CANDIDATES:
            raise ValueError(f"the number of candidates must be 1..{MAX_CANDIDATES}, got {self.n}")
        if self.temperature <= 0:
            raise ValueError(f"the sampling temperature must be > 0, got {self.temperature}")
