"""The ways of drafting, named once: each is a preset of the search's options (drafting/search.py).

The CLI (`generate --search/--guided`), the GUI Settings (Draft until proven, Guided) and the bench's
strategies (bench/strategies.py) all build their SearchOptions here, so a preset means the same
search everywhere:
- one-shot: one greedy answer (budget 1), no quick fix: the paper's protocol;
- retries: linear corrective rounds, each re-prompted with the last answer and its feedback, greedy;
- best-of: one greedy answer per prompt seed (width = budget), the best kept;
- search: best-first over answers and their feedback (width roots, children sampled per expansion);
- guided-search: the search with `guided_flags(True)`: no call writes an answer judged before, and under
  the grammar a child may not write a literal its parent's feedback told it to take out.
Three presets are not searches but run on the same engine, each named here too:
- Generate's own rounds (one-shot, then DraftOptions.retries corrective rounds; drafting/loop.draft_action)
  are `corrective_options`: the conversation continued round after round, until nothing is left to say;
- Draft N (drafting/candidates.draft_candidates) is `draft_n_options`: N answers in one batch, each judged;
- New action's rounds (drafting/new_action.write_new_action) are `new_action_options`: the conversation
  continued while the answer fails some of the domain's test cases.
"""

from __future__ import annotations

import enum

from domain_drafter.drafting.candidate_options import DEFAULT_SAMPLE_TEMPERATURE, MAX_CANDIDATES
from domain_drafter.drafting.options import Feedback, SearchOptions


class Preset(enum.Enum):
    """A way of drafting, as the bench spec and the reports name it."""

    ONE_SHOT = "one-shot"
    RETRIES = "retries"
    BEST_OF = "best-of"
    SEARCH = "search"
    GUIDED_SEARCH = "guided-search"


PRESETS: tuple[str, ...] = tuple(p.value for p in Preset)


def guided_flags(guided: bool) -> dict[str, bool]:
    """The one "guided" switch as the search's two flags (the only place that maps it)."""
    return {"forbid_removed": guided, "refuse_judged": guided}


def is_guided(options: SearchOptions) -> bool:
    """Does `options` ask for a guided search (either flag)."""
    return options.forbid_removed or options.refuse_judged


def preset_options(preset: Preset | str, *, budget: int | None = None, feedback: Feedback = Feedback.ALL,
                   max_tokens: int | None = None, time_limit_s: float | None = None, repair: bool | None = None,
                   width: int | None = None, children: int | None = None, temperature: float | None = None,
                   reheat: float | None = None, rotate: bool | None = None,
                   batch_children: bool | None = None, speculate_children: bool | None = None) -> SearchOptions:
    """The search options that `preset` stands for. None: the SearchOptions default. `width`, `children`,
    `temperature`, `reheat`, `rotate`, `batch_children` and `speculate_children` shape only the (guided) search;
    one-shot never repairs."""
    preset = Preset(preset)
    defaults = SearchOptions()
    budget = defaults.budget if budget is None else budget
    common = dict(feedback=feedback, max_tokens=max_tokens, time_limit_s=time_limit_s,
                  repair=defaults.repair if repair is None else repair)
    if preset is Preset.ONE_SHOT:
        return SearchOptions(budget=1, width=1, children=1, **{**common, "repair": False})
    if preset is Preset.RETRIES:
        return SearchOptions(budget=budget, width=1, children=1, policy="linear", temperature=0.0, **common)
    if preset is Preset.BEST_OF:
        return SearchOptions(budget=budget, width=budget, children=1, **common)
    return SearchOptions(budget=budget, width=defaults.width if width is None else width,
                         children=defaults.children if children is None else children,
                         temperature=defaults.temperature if temperature is None else temperature,
                         reheat=defaults.reheat if reheat is None else reheat,
                         rotate=defaults.rotate if rotate is None else rotate,
                         batch_children=defaults.batch_children if batch_children is None else batch_children,
                         speculate_children=(defaults.speculate_children if speculate_children is None
                                             else speculate_children),
                         **guided_flags(preset is Preset.GUIDED_SEARCH), **common)


def corrective_options(retries: int, feedback: Feedback) -> SearchOptions:
    """Generate's rounds as the search runs them: one answer, then up to `retries` corrective rounds, each
    continuing the conversation with the last answer and its `feedback`, every answer judged against the
    reference, no quick fix; they end at the first round with nothing to say (Equivalent, an error)."""
    return SearchOptions(budget=retries + 1, width=1, children=1, feedback=feedback, temperature=0.0,
                         policy="linear", repair=False, conversation=True, merge=False, raises=True)


def draft_n_options(n: int, sampled: bool = False, temperature: float = DEFAULT_SAMPLE_TEMPERATURE) -> SearchOptions:
    """Draft N as the search runs it: `n` roots written in one batch (one greedy answer per prompt seed, or
    `sampled` from one prompt with `n` decoding seeds, at `temperature` where the draft decodes greedily), each
    judged once (none merged, no quick fix, all judged even after an Equivalent one), a cancel or a model failure
    raised; drafting/candidates.rank_candidates ranks them. Its feedback is the cheapest kind: no answer is
    asked again."""
    if not 1 <= n <= MAX_CANDIDATES:
        raise ValueError(f"the number of candidates must be 1..{MAX_CANDIDATES}, got {n}")
    return SearchOptions(budget=n, width=n, children=1, feedback=Feedback.CHECKS, temperature=temperature,
                         repair=False, merge=False, raises=True, batch=True, sample_roots=sampled)


def new_action_options(rounds: int, feedback: Feedback) -> SearchOptions:
    """New action's rounds as the search runs them: one answer, then up to `rounds` - 1 more, each continuing the
    conversation with the last answer and its `feedback` (then the failing test cases in words), asked again only
    while the answer fails some of the domain's test cases; no quick fix, a cancel or a model failure raised."""
    return SearchOptions(budget=rounds, width=1, children=1, feedback=feedback, temperature=0.0, policy="linear",
                         repair=False, conversation=True, merge=False, raises=True, failing_tests_only=True)
