"""How one action is drafted (class, seed, examples, decoding, grammar, corrective rounds), as a small
module of its own: front ends read its defaults at start-up without importing the parser or the planner."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.errors import UsageError
from domain_drafter.llm.backend import DecodingOptions


class Feedback(enum.Enum):
    """What a corrective round may tell the model. Every kind includes the checks' findings."""

    CHECKS = "checks"        # syntax and semantic findings, and for NoPlan what the answer's own domain cannot
                             # reach (goal atoms, actions that never apply): nothing of the reference leaks
    PLANS = "plans"          # also the distinguishing state against the reference: missing precondition or effect
    LANDMARKS = "landmarks"  # also the reference's fact landmarks that the answer's domain can no longer reach
    ALL = "all"              # checks, plans and landmarks together

    @property
    def uses_reference(self) -> bool:
        return self is not Feedback.CHECKS

    @property
    def label(self) -> str:
        """The kind as a chooser shows it: its name, and whether it uses the reference."""
        return f"{self.value} ({'uses the reference' if self.uses_reference else 'no reference'})"

    @classmethod
    def help(cls) -> str:
        """One line per kind, for --help and tooltips."""
        return "; ".join(f"{k.value}: {k.summary}" for k in cls)

    @property
    def summary(self) -> str:
        return {
            "checks": "the checks, and for NoPlan which goal atoms and actions the answer's own domain never "
                      "reaches (no reference)",
            "plans": "also the state where the answer parts from the reference, as a missing precondition or "
                     "effect (uses the reference)",
            "landmarks": "also the facts every plan of the reference needs that the answer's domain cannot reach "
                         "(uses the reference)",
            "all": "checks, plans and landmarks (uses the reference)",
        }[self.value]


FEEDBACK_KINDS: tuple[str, ...] = tuple(k.value for k in Feedback)


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


DEFAULT_BUDGET = 16          # model calls per action (the equal-cost budget)
DEFAULT_WIDTH = 4            # root answers, one per prompt seed
DEFAULT_CHILDREN = 4         # answers per expansion
DEFAULT_TEMPERATURE = 0.8    # the children's sampling temperature
DEFAULT_REHEAT = 0.2         # added to it for each earlier expansion of the same node, and each repeat in one
MAX_TEMPERATURE = 1.5        # the most a reheated expansion samples at
SEARCH_POLICIES = ("best-first", "linear")
# the flags of the presets that are not searches (Draft N, Generate's and New action's rounds), with their
# defaults: to_dict names one only where it is set otherwise
_FLAGS = {"conversation": False, "merge": True, "raises": False, "batch": False, "sample_roots": False,
          "failing_tests_only": False, "forbid_learned": False, "batch_children": False, "speculate_children": False}


@dataclass(frozen=True)
class SearchOptions:
    """The search's shape and budget. A budget of None is no limit on that measure (calls always count)."""

    budget: int = DEFAULT_BUDGET              # model calls
    width: int = DEFAULT_WIDTH                # root answers (prompt seeds)
    children: int = DEFAULT_CHILDREN          # answers per expansion
    feedback: Feedback = Feedback.ALL
    temperature: float = DEFAULT_TEMPERATURE  # the children's sampling temperature
    max_tokens: int | None = None             # generated tokens over the whole search
    time_limit_s: float | None = None         # wall-clock seconds over the whole search
    policy: str = "best-first"                # or "linear": always expand the last answer (linear retries)
    repair: bool = True                       # judge a check-failing answer's quick fix too (core/answer_repair)
    reheat: float = DEFAULT_REHEAT            # temperature added per earlier expansion of a node
    rotate: bool = True                       # an expansion's children after the roots' prompts in turn
    # guided: under the grammar, a child may not write a literal its parent's feedback told to take out (the
    # distinguishing state's "extra precondition/effect"; from the reference, so with feedback plans or all)
    forbid_removed: bool = False
    # under the grammar, no call writes an answer judged before (the literal guard will not close the effect into
    # one); needs no reference. Guided search sets both.
    refuse_judged: bool = False
    # under the grammar, no call writes a precondition literal an answer judged before showed no acceptable answer
    # holds (drafting/nogoods.py: a test case's plan shows it false at the action's first step); needs no reference.
    # Blind search sets it.
    forbid_learned: bool = False
    # corrective rounds (DraftOptions.retries, drafting/loop.draft_action; New action's rounds): each re-prompt
    # continues the whole conversation, every call decodes as the draft says, and the rounds end when the feedback
    # has nothing to say
    conversation: bool = False
    merge: bool = True                        # an answer equal up to renaming to one judged before takes its judgement
    raises: bool = False                      # a cancel or a model failure is raised, not kept in the result
    # the roots are written together, in one batch where the backend can, and every one is judged (Draft N)
    batch: bool = False
    # the roots are sampled from one prompt (the draft's seed) with the decoding seeds seed, seed+1, ..., at the
    # draft's temperature, or at `temperature` where the draft decodes greedily (else one prompt per seed)
    sample_roots: bool = False
    # an answer is asked again only while it fails some of the domain's test cases (New action: one that fails the
    # checks ran no case, one that passes every case is done)
    failing_tests_only: bool = False
    # an expansion's children are written together, in one batch where the backend can (llm/batch.py, each slot
    # starting from its root prompt's kept state), then judged in turn: all at the expansion's first temperature
    # and refused the answers judged before the expansion (one at a time, a child knows its elder siblings')
    batch_children: bool = False
    # the children (sampled calls) decode with speculation from the prompt (llm/speculate.py: the exact
    # accept/reject rule, deterministic for a seed); greedy calls (the roots, one-shot) decode as the draft says
    speculate_children: bool = False

    def child_temperature(self, expansions: int, repeats: int = 0) -> float:
        """The temperature of a child in a node's `expansions`-th expansion (0-based) after `repeats` of its
        siblings in this expansion wrote an answer judged before: hotter each time, so that a node whose
        children repeat is asked with more spread rather than given up."""
        if not self.temperature:
            return 0.0
        return min(MAX_TEMPERATURE, self.temperature + self.reheat * (expansions + repeats))

    def __post_init__(self) -> None:
        for name in ("budget", "width", "children"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"the search's '{name}' must be a whole number of at least 1, not {value!r}",
                                 hint="e.g. a budget of 16 model calls, width 4, 4 children per expansion")
        if self.policy not in SEARCH_POLICIES:
            raise UsageError(f"the search's 'policy' must be one of {', '.join(SEARCH_POLICIES)}, not {self.policy!r}")
        if self.temperature < 0:
            raise UsageError(f"the children's 'temperature' must be 0 (greedy) or above, not {self.temperature}",
                             hint="children are sampled so that they differ from their parent; try 0.8")
        if self.reheat < 0:
            raise UsageError(f"the search's 'reheat' must be 0 or above, not {self.reheat}",
                             hint="the temperature added for each re-expansion of a node; try 0.2")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise UsageError(f"the search's 'max_tokens' (generated tokens in all) must be at least 1, "
                             f"not {self.max_tokens}")
        if self.time_limit_s is not None and self.time_limit_s <= 0:
            raise UsageError(f"the search's 'time_limit_s' must be above 0 seconds, not {self.time_limit_s}")

    def to_dict(self) -> dict:
        return {"budget": self.budget, "width": self.width, "children": self.children,
                "feedback": self.feedback.value, "temperature": self.temperature, "max_tokens": self.max_tokens,
                "time_limit_s": self.time_limit_s, "policy": self.policy, "repair": self.repair,
                "reheat": self.reheat, "rotate": self.rotate, "forbid_removed": self.forbid_removed,
                "refuse_judged": self.refuse_judged,
                **{name: getattr(self, name) for name, default in _FLAGS.items() if getattr(self, name) != default}}
