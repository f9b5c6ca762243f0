"""Ask a model for one action and judge the answer; optionally re-ask with the diagnostic (corrective mode).

The GUI's generate button, the `generate` command and the batch benchmark's corrective mode run it:
the one search (drafting/search.py) with Generate's preset (`presets.corrective_options`), its answers
kept round by round as data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.prompt import Prompt, PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.feedback import feedback_text, follow_up  # noqa: F401 - follow_up: re-exported
from domain_drafter.drafting.options import DraftOptions, Feedback
from domain_drafter.drafting.presets import corrective_options
from domain_drafter.drafting.records import SearchNode
from domain_drafter.drafting.search import search_action
from domain_drafter.llm.backend import Generation, GenerationBackend
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator


@dataclass(frozen=True)
class DraftRound:
    """One ask-and-judge round, a view over its SearchNode."""

    node: SearchNode
    prompt_text: str
    last: bool = False              # the retries were spent: no round could follow it

    @property
    def generation(self) -> Generation:
        return Generation(self.node.answer, self.node.stats)

    @property
    def evaluation(self) -> EvaluationResult:
        """The verdict against the reference (Generate's rounds are always judged against it)."""
        evaluation = self.node.judgement.evaluation
        assert evaluation is not None
        return evaluation

    @property
    def diagnostic(self) -> str | None:
        """What the next round was told, if there was one."""
        return None if self.last else self.node.feedback

    def to_dict(self) -> dict:
        stats = self.generation.stats
        return {"answer": self.generation.text, "stats": stats.__dict__, "evaluation": self.evaluation.to_dict(),
                "diagnostic": self.diagnostic}


@dataclass(frozen=True)
class Draft:
    """All rounds for one action; the last round's evaluation is the verdict."""

    prompt: Prompt
    rounds: tuple[DraftRound, ...]
    grammar: str | None = None

    @property
    def final(self) -> EvaluationResult:
        return self.rounds[-1].evaluation

    @property
    def first(self) -> EvaluationResult:
        return self.rounds[0].evaluation

    def to_dict(self) -> dict:
        return {"prompt": self.prompt.to_dict(), "grammar": self.grammar,
                "rounds": [r.to_dict() for r in self.rounds]}


def diagnostic_for(bundle: DomainBundle, action: str, result: EvaluationResult, feedback: Feedback) -> str | None:
    """The failure in plain words for a corrective round, or None if there is nothing we may say."""
    return feedback_text(bundle, action, result, feedback)


def draft_action(
    bundle: DomainBundle,
    action: str,
    backend: GenerationBackend,
    evaluator: Evaluator,
    pool: Sequence[DomainBundle],
    options: DraftOptions = DraftOptions(),
    *,
    template: PromptTemplate | None = None,
    on_token: Callable[[str], None] | None = None,
    on_round: Callable[[DraftRound], None] | None = None,
    on_round_start: Callable[[int, str], None] | None = None,
    task: TaskState | None = None,
) -> Draft:
    """Prompt the model for `action`, evaluate, and (with retries) re-ask with the diagnostic: the search
    (drafting/search.py) with `presets.corrective_options`, its answers as rounds.

    `on_round_start(index, prompt_text)` fires before each round's first token, `on_token` for
    each piece of the answer, `on_round` when a round's verdict is known. A cancel or a model failure raises.
    """
    rounds: list[DraftRound] = []
    asked: list[str] = []

    def on_call(index: int, prompt: str) -> None:
        asked.append(prompt)
        if on_round_start is not None:
            on_round_start(index, prompt)

    def on_node(node: SearchNode) -> None:
        attempt = len(rounds)
        round_ = DraftRound(node, asked[attempt], attempt >= options.retries)
        rounds.append(round_)
        if on_round is not None:
            on_round(round_)

    result = search_action(bundle, action, backend, evaluator, pool, options,
                           corrective_options(options.retries, options.feedback), template=template, reference=True,
                           on_node=on_node, on_call=on_call, on_token=on_token, task=task)
    return Draft(result.prompt, tuple(rounds), result.grammar)
