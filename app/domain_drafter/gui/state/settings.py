"""The user's settings as a plain dataclass, saved as JSON in the config folder (no Qt here).

Window geometry, splitter sizes and recent domains live in QSettings (gui.conf); everything
that changes what the engine does lives here, readable and editable by hand.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.paths import atomic_write_bytes, config_dir
from domain_drafter.drafting.candidate_options import MAX_CANDIDATES, CandidateOptions
from domain_drafter.drafting.loop import DraftOptions, Feedback
from domain_drafter.drafting.options import SearchOptions
from domain_drafter.drafting.presets import guided_flags, is_guided
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.factory import AUTO, PROMPT_FORMAT_CHOICES
from domain_drafter.planning.evaluate import EvaluationOptions
from domain_drafter.planning.proof_types import EquivalenceMode

log = logging.getLogger(__name__)
SETTINGS_FILE = "settings.json"


_DRAFT = DraftOptions()
_DECODING = DecodingOptions()
_EVALUATION = EvaluationOptions()
_CANDIDATES = CandidateOptions()
_SEARCH = SearchOptions()
MAX_SEARCH_BUDGET = 200


@dataclass(frozen=True)
class AppSettings:
    """Every engine option's default is read from the engine's option dataclasses (written there once)."""

    model: str = ""                       # a GGUF path; "" = the embedded default model
    threads: int = 0                      # llama.cpp CPU threads; 0 = automatic (half the CPUs)
    prompt_format: str = AUTO             # "auto" (the catalogue's format of the model), "completion" or "chat"
    grammar: bool = _DRAFT.grammar        # constrain decoding to one well-formed action
    free_signature: bool = not _DRAFT.lock_signature   # with the grammar: the model chooses the parameters
    retries: int = _DRAFT.retries         # corrective re-prompts after a failed answer
    feedback: str = _DRAFT.feedback.value  # what a corrective round may say: "checks" or "plans"
    examples: int = _DRAFT.examples       # context examples in the prompt
    max_new_tokens: int = _DECODING.max_tokens
    k: int = _EVALUATION.k                # plans per problem for the equivalence check
    planner_time_limit_s: float = _EVALUATION.time_limit_s
    equivalence: str = _EVALUATION.equivalence.value   # "proven" (METHOD 6a) or "paper" (METHOD 6)
    state_budget: int = _EVALUATION.state_budget   # the proof: reachable states per problem before the planner route
    default_class: str = _DRAFT.description_class.value
    seed: int = _DRAFT.seed
    preload_model: bool = True            # load the model in the background as soon as the window is up
    candidates: int = _CANDIDATES.n       # Draft N candidates: how many
    sample_candidates: bool = _CANDIDATES.sampled   # one prompt sampled N times (off: N prompt seeds, greedy)
    candidate_temperature: float = _CANDIDATES.temperature   # sampled candidates' temperature
    search_budget: int = _SEARCH.budget   # Draft until proven: model calls at most
    search_width: int = _SEARCH.width     # Draft until proven: root answers (prompt seeds)
    search_feedback: str = _SEARCH.feedback.value   # what the search's re-prompts say
    search_guided: bool = is_guided(_SEARCH)  # with the grammar: a child may not write what it was told to take out

    # --- what the engine gets --------------------------------------------------------------
    def draft_options(self, description_class: DescriptionClass | None = None, seed: int | None = None,
                      grammar: bool | None = None) -> DraftOptions:
        return replace(
            _DRAFT,
            description_class=description_class or DescriptionClass(self.default_class),
            seed=self.seed if seed is None else seed,
            examples=self.examples,
            decoding=replace(_DECODING, max_tokens=self.max_new_tokens),
            grammar=self.grammar if grammar is None else grammar,
            lock_signature=not self.free_signature,
            retries=self.retries,
            feedback=Feedback(self.feedback),
        )

    def candidate_options(self) -> CandidateOptions:
        return CandidateOptions(self.candidates, self.sample_candidates, self.candidate_temperature)

    def search_options(self) -> SearchOptions:
        return replace(_SEARCH, budget=self.search_budget, width=min(self.search_width, self.search_budget),
                       feedback=Feedback(self.search_feedback), temperature=self.candidate_temperature,
                       **guided_flags(self.search_guided))

    def evaluation_options(self) -> EvaluationOptions:
        return replace(_EVALUATION, k=self.k, time_limit_s=self.planner_time_limit_s,
                       equivalence=EquivalenceMode(self.equivalence), state_budget=self.state_budget)

    # --- validation ------------------------------------------------------------------------
    def checked(self) -> AppSettings:
        """The same settings with every value forced into its valid range (hand edits, old files)."""
        def clamp(value: float, low: float, high: float) -> float:
            return max(low, min(high, value))

        return replace(
            self,
            threads=int(clamp(self.threads, 0, 256)),
            prompt_format=self.prompt_format if self.prompt_format in PROMPT_FORMAT_CHOICES else AUTO,
            retries=int(clamp(self.retries, 0, 10)),
            feedback=self.feedback if self.feedback in {f.value for f in Feedback} else _DRAFT.feedback.value,
            equivalence=(self.equivalence if self.equivalence in {m.value for m in EquivalenceMode}
                         else _EVALUATION.equivalence.value),
            examples=int(clamp(self.examples, 0, 10)),
            max_new_tokens=int(clamp(self.max_new_tokens, 1, 4096)),
            k=int(clamp(self.k, 1, 1000)),
            state_budget=int(clamp(self.state_budget, 1, 10_000_000)),
            planner_time_limit_s=float(clamp(self.planner_time_limit_s, 1.0, 3600.0)),
            default_class=(self.default_class if self.default_class in {c.value for c in DescriptionClass}
                           else _DRAFT.description_class.value),
            seed=int(clamp(self.seed, 0, 1_000_000)),
            candidates=int(clamp(self.candidates, 1, MAX_CANDIDATES)),
            candidate_temperature=float(clamp(self.candidate_temperature, 0.05, 2.0)),
            search_budget=int(clamp(self.search_budget, 1, MAX_SEARCH_BUDGET)),
            search_width=int(clamp(self.search_width, 1, MAX_SEARCH_BUDGET)),
            search_feedback=(self.search_feedback if self.search_feedback in {f.value for f in Feedback}
                             else _SEARCH.feedback.value),
        )


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def load_settings(path: Path | None = None) -> AppSettings:
    """The saved settings; defaults for a missing file, and for fields that are missing or of the wrong type."""
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return AppSettings()
    except (OSError, ValueError) as err:
        log.warning("ignoring unreadable settings %s: %s", path, err)
        return AppSettings()
    if not isinstance(data, dict):
        return AppSettings()
    defaults = AppSettings()
    values = {}
    for f in fields(AppSettings):
        value = data.get(f.name, getattr(defaults, f.name))
        default = getattr(defaults, f.name)
        # bool is an int subclass: compare exact types, but let an int stand for a float
        if type(value) is type(default) or (isinstance(default, float) and type(value) is int):
            values[f.name] = value
    return AppSettings(**values).checked()


def save_settings(settings: AppSettings, path: Path | None = None) -> Path:
    """Write the settings as JSON; raises OSError (naming the file) when the folder cannot be written."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(asdict(settings), indent=2, sort_keys=True) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))
    return path
