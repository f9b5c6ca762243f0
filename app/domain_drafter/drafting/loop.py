"""Ask a model for one action and judge the answer; optionally re-ask with the diagnostic (corrective mode).

This is the loop the GUI's generate button, the `generate` command and the batch benchmark
all run: prompt -> generation -> evaluation, kept round by round as data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.prompt import Prompt, PromptTemplate, build_prompt, load_template
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.feedback import feedback_text
from domain_drafter.drafting.options import DraftOptions, Feedback
from domain_drafter.llm.backend import Conversation, Generation, GenerationBackend
from domain_drafter.llm.grammar import ActionGrammar
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator


@dataclass(frozen=True)
class DraftRound:
    """One ask-and-judge round."""

    prompt_text: str
    generation: Generation
    evaluation: EvaluationResult
    diagnostic: str | None = None   # what the next round was told, if there was one

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


def follow_up(prompt: str, answer: str, diagnostic: str, template: PromptTemplate) -> Conversation:
    """The next round's prompt: the conversation so far, the model's answer, and the feedback.

    In the chat format these are real turns (the answer as the assistant's, the feedback as the
    user's); in the completion format the same text continues (the template's feedback block).
    """
    turns = list(prompt.turns) if isinstance(prompt, Conversation) else [("user", str(prompt))]
    turns += [("assistant", answer.strip()), ("user", template.render_feedback(diagnostic).strip())]
    return Conversation(turns, str(prompt) + answer.rstrip() + template.render_feedback(diagnostic))


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
    """Prompt the model for `action`, evaluate, and (with retries) re-ask with the diagnostic.

    `on_round_start(index, prompt_text)` fires before each round's first token, `on_token` for
    each piece of the answer, `on_round` when a round's verdict is known.
    """
    template = template or load_template()
    action = bundle.require_action(action)
    prompt = build_prompt(bundle, action, pool, options.description_class, options.seed, options.examples, template)
    decoding = options.decoding
    grammar_text = None
    if options.grammar:
        decoding = ActionGrammar(bundle.domain, action, lock_signature=options.lock_signature).decoding(decoding)
        grammar_text = decoding.grammar
    rounds: list[DraftRound] = []
    text = prompt.text
    for attempt in range(options.retries + 1):
        if task is not None:
            task.check_cancelled()
            task.report(attempt, options.retries + 1, f"round {attempt + 1}: generating")
        if on_round_start is not None:
            on_round_start(attempt, text)
        generation = backend.generate(text, decoding, on_token=on_token, task=task)
        if generation.stats.stop_reason == "cancelled" and task is not None:
            task.check_cancelled()
        evaluation = evaluator.evaluate(bundle, action, generation.text, task=task)
        diagnostic = diagnostic_for(bundle, action, evaluation, options.feedback) if attempt < options.retries else None
        round_ = DraftRound(text, generation, evaluation, diagnostic)
        rounds.append(round_)
        if on_round is not None:
            on_round(round_)
        if diagnostic is None:
            break
        text = follow_up(text, generation.text, diagnostic, template)
    return Draft(prompt, tuple(rounds), grammar_text)
