"""Write one benchmark task's answer with a loaded backend: the same code in this process, in a generator
process, in an endpoint's thread and on a Dask worker.

A `TaskDrafter` holds what a model's tasks share (the domains, the prompt template, the grammars, and an
Evaluator for the strategies that judge as they go). `draft(row, backend)` returns a `Drafted`: the answer
and its records, plus the verdict when the strategy judged it already (retries, best-of, search). The
caller stores it: only the run's parent process writes the results file.

Decoding is reproducible per task (greedy, or sampled from the task's own seed), so the answer of a task
does not depend on which generator wrote it or on what that generator wrote before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from domain_drafter.bench.spec import ExperimentSpec, ModelSpec
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import Cancelled, TaskState

# The columns of a task row a drafter reads (a plain dict of them crosses process boundaries).
ROW_FIELDS = ("key", "system", "domain", "action", "description_class", "seed", "grammar")


def row_dict(row: Mapping) -> dict[str, Any]:
    """The fields of a task row (an sqlite3.Row or a dict) that a drafter needs, as plain data."""
    return {name: row[name] for name in ROW_FIELDS}


@dataclass(frozen=True)
class Drafted:
    """One task's answer. `evaluation` is its verdict when the strategy judged it, else None (judge it)."""

    key: str
    answer: str
    prompt: dict | None
    generation: dict
    evaluation: dict | None = None

    def with_generator(self, label: str) -> Drafted:
        """The same answer, its generation record naming who wrote it (a generator or an endpoint)."""
        return replace(self, generation={**self.generation, "generator": label})


@dataclass
class TaskDrafter:
    """What one model's tasks share; `draft` writes one task's answer with a backend."""

    spec: ExperimentSpec
    model: ModelSpec
    _bundles: dict = field(default_factory=dict, init=False)
    _grammars: dict = field(default_factory=dict, init=False)
    _evaluator: Any = field(default=None, init=False)
    _pool: list | None = field(default=None, init=False)
    _template: Any = field(default=None, init=False)

    def _bundle(self, name: str):
        from domain_drafter.core.bundle import load_bundle

        if name not in self._bundles:
            self._bundles[name] = load_bundle(name)
        return self._bundles[name]

    def _shared(self):
        """The context-example pool (the bundled domains and the run's own, by name) and the prompt template."""
        if self._pool is None:
            from domain_drafter.core.bundle import load_bundled
            from domain_drafter.core.prompt import load_template

            self._template = load_template()
            run = [self._bundle(name) for name in self.spec.domain_names()]
            self._pool = list({b.name: b for b in [*load_bundled(), *run]}.values())
        return self._pool, self._template

    def evaluator(self):
        """The Evaluator of the strategies that judge while they draft (made on first use)."""
        if self._evaluator is None:
            from domain_drafter.bench.worker import bench_options
            from domain_drafter.planning.evaluate import Evaluator

            self._evaluator = Evaluator(bench_options(self.spec.k, self.spec.time_limit_s, self.spec.equivalence))
        return self._evaluator

    def prepared(self, row: Mapping):
        """The row's one-shot prompt and decoding options (the paper's protocol)."""
        from domain_drafter.core.descriptions import DescriptionClass
        from domain_drafter.core.prompt import build_prompt
        from domain_drafter.llm.backend import DecodingOptions
        from domain_drafter.llm.grammar import ActionGrammar

        bundle = self._bundle(row["domain"])
        _, template = self._shared()
        decoding = DecodingOptions(max_tokens=self.spec.max_tokens, seed=row["seed"])
        prompt = build_prompt(bundle, row["action"], self._shared()[0],
                              DescriptionClass.parse(row["description_class"]), row["seed"], self.spec.examples,
                              template)
        if row["grammar"]:
            ident = (bundle.name, row["action"])
            if ident not in self._grammars:
                self._grammars[ident] = ActionGrammar(bundle.domain, row["action"], lock_signature=True).decoding(
                    DecodingOptions())
            made = self._grammars[ident]
            decoding = replace(decoding, grammar=made.grammar, literals=made.literals)
        return prompt, decoding

    def draft(self, row: Mapping, backend, task: TaskState | None = None,
              on_token: Callable[[str], None] | None = None) -> Drafted:
        """Write the row's answer. Raises Cancelled when `task` is cancelled (nothing is half-written) and
        ModelError when the model fails."""
        strategy = self.spec.strategy_of().get(row["system"], "one-shot")
        if strategy != "one-shot" or self.spec.blind:     # a blind one-shot is a blind search of one call
            return self._strategy(row, strategy, backend, task)
        if self.spec.retries > 0:
            return self._corrective(row, backend, task)
        prompt, decoding = self.prepared(row)
        generation = backend.generate(prompt.text, decoding, task=task, on_token=on_token)
        if generation.stats.stop_reason == "cancelled":
            raise Cancelled()
        return Drafted(row["key"], generation.text, prompt_record(prompt),
                       {"backend": backend.name, "prompt_format": self.model.prompt_format, "batch": 1,
                        "stats": generation.stats.__dict__})

    def _draft_options(self, row: Mapping, **extra):
        from domain_drafter.core.descriptions import DescriptionClass
        from domain_drafter.drafting.options import DraftOptions
        from domain_drafter.llm.backend import DecodingOptions

        return DraftOptions(description_class=DescriptionClass.parse(row["description_class"]), seed=row["seed"],
                            examples=self.spec.examples,
                            decoding=DecodingOptions(max_tokens=self.spec.max_tokens, seed=row["seed"]),
                            grammar=bool(row["grammar"]), **extra)

    def _strategy(self, row: Mapping, strategy: str, backend, task: TaskState | None) -> Drafted:
        """Search for the row's answer (bench/strategies.py); the best answer, with its whole tree."""
        from domain_drafter.bench.strategies import strategy_options
        from domain_drafter.drafting.records import Stopped
        from domain_drafter.drafting.search import search_action

        bundle = self._bundle(row["domain"])
        _, template = self._shared()
        options, searched, judge, named = strategy_options(strategy, self.spec), bundle, None, _naming(task, row, strategy)
        if self.spec.blind:      # the blind judge drafts; the reference judges the answer after (the stored verdict)
            from domain_drafter.drafting.blind import blind_setup

            setup = blind_setup(bundle, row["action"], self.evaluator(), options, named,
                                use_tests=self.spec.blind != "no-tests")
            options, searched, judge = setup.options, setup.bundle, setup.judge
        result = search_action(searched, row["action"], backend, self.evaluator(), self._shared()[0],
                               self._draft_options(row), options, template=template, judge=judge,
                               reference=None if judge else True, task=named)
        if result.stopped is Stopped.CANCELLED:
            raise Cancelled()
        if result.stopped is Stopped.ERROR:
            raise ModelError(f"the model failed during the {strategy} of {row['domain']}/{row['action']} "
                             f"after {result.calls} calls: {result.error}")
        best = result.best
        assert best is not None
        evaluation = best.judgement.evaluation
        if self.spec.blind:
            from domain_drafter.drafting.blind import reference_verdict

            evaluation = reference_verdict(bundle, row["action"], best.answer, self.evaluator(), named).evaluation
        assert evaluation is not None
        record = {"backend": backend.name, "strategy": strategy,
                  "prompt_format": getattr(backend, "prompt_format", "completion"),
                  "calls": result.calls, "generated_tokens": result.generated_tokens,
                  "prompt_tokens": result.prompt_tokens, "wall_s": result.wall_s,
                  "equivalent_at": result.equivalent_at, "search": result.to_dict()}
        if self.spec.blind:
            # the search's "equivalent" is the blind judge's acceptance: recorded as such, and equivalent_at only
            # when the reference proves the accepted answer (the stored verdict is the reference's)
            proven = evaluation.subclass is Subclass.EQUIVALENT
            record.update(blind=self.spec.blind, blind_accepted=best.judgement.equivalent,
                          accepted_at=result.equivalent_at,
                          equivalent_at=result.equivalent_at if proven and best.judgement.equivalent else None)
        return Drafted(row["key"], best.answer, prompt_record(result.prompt), record, evaluation.to_dict())

    def _corrective(self, row: Mapping, backend, task: TaskState | None) -> Drafted:
        """The spec's linear corrective rounds (`retries`): each verdict is needed before the next prompt."""
        from domain_drafter.drafting.loop import Feedback, draft_action

        bundle = self._bundle(row["domain"])
        _, template = self._shared()
        options = self._draft_options(row, retries=self.spec.retries, feedback=Feedback(self.spec.feedback))
        draft = draft_action(bundle, row["action"], backend, self.evaluator(), self._shared()[0], options,
                             template=template, task=_naming(task, row, "corrective rounds"))
        final = draft.rounds[-1]
        return Drafted(row["key"], final.generation.text, prompt_record(draft.prompt),
                       {"backend": backend.name, "rounds": [r.to_dict() for r in draft.rounds]},
                       final.evaluation.to_dict())

    def close(self) -> None:
        if self._evaluator is not None:
            self._evaluator.close()
            self._evaluator = None


def _naming(task: TaskState | None, row: Mapping, what: str) -> TaskState | None:
    """`task`, its progress messages (a search's "model call 5 of 16; best score so far 93%") led by the row's
    action and `what` runs on it, so that a long benchmark shows what it is doing between answers."""
    return None if task is None else task.within(0, 1, f"{row['domain']}/{row['action']} {what}")


def prompt_record(prompt) -> dict:
    """The prompt as stored: everything but its text, which is rebuilt exactly from the seed."""
    data = prompt.to_dict()
    data.pop("text", None)
    return data
