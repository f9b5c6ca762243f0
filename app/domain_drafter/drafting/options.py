"""How one action is drafted (class, seed, examples, decoding, grammar, corrective rounds), as a small
module of its own: front ends read its defaults at start-up without importing the parser or the planner."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.llm.backend import DecodingOptions


class Feedback(enum.Enum):
    """What a corrective round may tell the model."""

    CHECKS = "checks"   # syntax, semantic and NoPlan findings only: nothing of the reference leaks
    PLANS = "plans"     # also the counterexample of NPApp / OPApp (the proof's distinguishing state, if any)


@dataclass(frozen=True)
class DraftOptions:
    description_class: DescriptionClass = DescriptionClass.BASE
    seed: int = 0
    examples: int = 3
    decoding: DecodingOptions = field(default_factory=DecodingOptions)
    grammar: bool = False
    lock_signature: bool = True
    retries: int = 0
    feedback: Feedback = Feedback.CHECKS
