"""Actions the reference does not have: prompt and draft them, check them, and "try" them.

There is no reference to be equivalent to, so an answer is judged by the judge without a reference
(drafting/judges.py, as Draft N and the search do): the syntax and semantic checks against the
domain's vocabulary, the domain's problems that stay solvable, and the domain's tests, whose failing
cases in words go into the answer's message. An answer that passes the checks but fails some of the
domain's tests is asked again: the conversation so far, the answer, and what is wrong with it
(drafting/feedback.judgement_feedback: the failing cases in words, and any problem it leaves
unsolvable; feedback.follow_up), for at most TEST_ROUNDS rounds (or the settings' corrective
retries + 1, if more), stopping as soon as every case passes. An answer that fails the checks is not
asked again (no case was run on it). These rounds are the one search (drafting/search.py) with New
action's preset (`presets.new_action_options`). Every round is kept on the answer and recorded as an
attempt. Try it is practical: plan the domain's problems with the working domain plus the new action
and show whether, and where, the plans use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain_drafter.core.answers import CheckReport
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.errors import DomainError, ModelError, SourceLocation, UsageError
from domain_drafter.core.plan_words import plan_in_words
from domain_drafter.core.prompt import Prompt, PromptTemplate, build_prompt, load_template
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.judges import Judge, Judgement, checked_verdict, checks_only_judge
from domain_drafter.drafting.options import DraftOptions
from domain_drafter.drafting.presets import new_action_options
from domain_drafter.drafting.records import SearchNode
from domain_drafter.drafting.search import search_action
from domain_drafter.drafting.workspace import Attempt, WorkingCopy
from domain_drafter.llm.backend import GenerationBackend, GenerationStats
from domain_drafter.planning.kstar import KStarPlanner, PlannerStatus
from domain_drafter.planning.validator import PlanValidator

TEST_ROUNDS = 3   # a new action's answers at most (the first, then re-asked with what it fails), unless retries say more


def _new_entry(workspace: WorkingCopy, name: str):
    entry = workspace.entry(name)
    if entry.new is None:
        raise UsageError(f"'{entry.name}' is an action of the reference, not a new one",
                         hint="draft reference actions with draft_action")
    return entry


def provisional_bundle(workspace: WorkingCopy) -> DomainBundle:
    """The reference bundle whose domain also declares every new action (without conditions or effects)."""
    return dataclasses.replace(workspace.reference_bundle(), domain=workspace.vocabulary())


def new_action_prompt(workspace: WorkingCopy, name: str, pool: Sequence[DomainBundle], options: DraftOptions = DraftOptions(),
                      template: PromptTemplate | None = None) -> Prompt:
    """The paper's prompt for a new action: base description class (the others need a reference)."""
    entry = _new_entry(workspace, name)
    return build_prompt(provisional_bundle(workspace), entry.name, pool, DescriptionClass.BASE, options.seed,
                        options.examples, template or load_template())


@dataclass(frozen=True)
class NewActionRound:
    """One ask-and-judge round of a new action, a view over its SearchNode: what it was asked, the answer, its
    checks and judgement."""

    node: SearchNode
    prompt_text: str
    judged: bool = True       # a judge tried it on the problems and the domain's tests (else the checks alone)
    last: bool = False        # the rounds were spent: none could follow it

    @property
    def answer(self) -> str:
        return self.node.answer

    @property
    def check(self) -> CheckReport:
        return self.node.judgement.check

    @property
    def stats(self) -> GenerationStats:
        return self.node.stats

    @property
    def judgement(self) -> Judgement | None:
        """The problems and the domain's tests, where a judge was given and the checks passed."""
        return self.node.judgement if self.judged and self.check.passed else None

    @property
    def feedback(self) -> str | None:
        """What the next round was (to be) told (None: no next round)."""
        return None if self.last else self.node.feedback

    @property
    def verdict(self) -> str:
        """The checks' subclass, or `passed the checks, 2/2 problems solvable, tests: 7 of 8 pass`."""
        if self.check.subclass is not None:
            return self.check.subclass.value
        j = self.judgement
        return checked_verdict(j.solvable, j.tests_passed, j.tests_total) if j is not None else "passed the checks"

    @property
    def message(self) -> str:
        if self.check.findings:
            return self.check.findings[0].message
        if self.judgement is None:
            return "passed the syntax and semantic checks"
        return " ".join([self.verdict + ".", *self.judgement.tests_words])

    def to_dict(self) -> dict:
        j = self.judgement
        return {"answer": self.answer, "stats": self.stats.__dict__, "verdict": self.verdict, "message": self.message,
                "tests_passed": j.tests_passed if j is not None else None,
                "tests_total": j.tests_total if j is not None else None,
                "solvable": list(j.solvable) if j is not None else None, "feedback": self.feedback}


@dataclass(frozen=True)
class NewActionAnswer:
    """A model's answers for a new action, round by round, checked against the vocabulary (not yet recorded).
    The last round's is the answer; `error`: a model failure that ended the re-asking (the rounds before it stay)."""

    name: str
    prompt: Prompt
    rounds: tuple[NewActionRound, ...]
    model: str
    error: str | None = None

    @property
    def final(self) -> NewActionRound:
        return self.rounds[-1]

    @property
    def answer(self) -> str:
        return self.final.answer

    @property
    def check(self) -> CheckReport:
        return self.final.check

    @property
    def judgement(self) -> Judgement | None:
        return self.final.judgement

    @property
    def verdict(self) -> str:
        return self.final.verdict

    @property
    def message(self) -> str:
        return self.final.message

    def to_dict(self) -> dict:
        return {"action": self.name, "prompt": self.prompt.to_dict(), "model": self.model, "error": self.error,
                "rounds": [r.to_dict() for r in self.rounds]}


@dataclass(frozen=True)
class NewActionDraft:
    prompt: Prompt
    answer: str
    check: CheckReport
    attempt: Attempt                      # the last round's (every round is an attempt)
    rounds: tuple[NewActionRound, ...] = ()
    error: str | None = None              # a model failure that ended the re-asking


def write_new_action(prompt: Prompt, bundle: DomainBundle, name: str, backend: GenerationBackend,
                     options: DraftOptions = DraftOptions(), *, judge: Judge | None = None,
                     template: PromptTemplate | None = None, rounds: int | None = None,
                     on_token: Callable[[str], None] | None = None, task: TaskState | None = None) -> NewActionAnswer:
    """Ask the model for the new action `name` of `bundle` (the provisional bundle: its domain is the vocabulary)
    and check the answer; `judge` (a `checks_judge` of that bundle) also tries it on the problems and the domain's
    tests, and an answer that fails some case is asked again with what is wrong (the failing cases in words), for
    at most `rounds` rounds (default: TEST_ROUNDS, or the options' retries + 1 if more), until every case passes:
    the search with `presets.new_action_options`, after `prompt`.

    Touches no working copy: a front end takes the prompt and the bundle from its copy first
    (new_action_prompt, provisional_bundle), runs this in a worker, then records the answer
    where the copy lives (record_new_action)."""
    most = max(1, rounds if rounds is not None else max(TEST_ROUNDS, options.retries + 1))
    asked: list[str] = []
    nodes: list[SearchNode] = []

    def done() -> tuple[NewActionRound, ...]:
        return tuple(NewActionRound(node, asked[i], judge is not None, i + 1 >= most) for i, node in enumerate(nodes))

    try:
        search_action(bundle, name, backend, None, (), options, new_action_options(most, options.feedback),
                      template=template, prompt=prompt, judge=judge or checks_only_judge(bundle, name),
                      on_node=nodes.append, on_call=lambda _index, text: asked.append(text), on_token=on_token,
                      task=task)
    except ModelError as err:
        if not nodes:
            raise
        return NewActionAnswer(name, prompt, done(), backend.name, str(err))
    return NewActionAnswer(name, prompt, done(), backend.name)


def record_new_action(workspace: WorkingCopy, answer: NewActionAnswer, options: DraftOptions) -> Attempt:
    """Every round of the answer as an attempt of the new action in `workspace`; the last one's is returned."""
    said = {"class": "base", "seed": options.seed, "grammar": options.grammar}
    attempt = None
    for number, round_ in enumerate(answer.rounds, start=1):
        check = round_.check
        attempt = workspace.add_attempt(answer.name, round_.answer, source="model", model=answer.model,
                                        options=said | {"round": number},
                                        subclass=check.subclass.value if check.subclass else None,
                                        message=round_.message)
    assert attempt is not None
    return attempt


def draft_new_action(workspace: WorkingCopy, name: str, backend: GenerationBackend, pool: Sequence[DomainBundle],
                     options: DraftOptions = DraftOptions(), *, template: PromptTemplate | None = None,
                     judge: Judge | None = None, rounds: int | None = None,
                     on_token: Callable[[str], None] | None = None, task: TaskState | None = None) -> NewActionDraft:
    """Prompt, write, check (and with `judge`, a `checks_judge` of `provisional_bundle(workspace)`, judge and
    re-ask while the domain's tests fail) and record the new action in one call (for a caller that owns
    `workspace` on this thread, e.g. a script)."""
    entry = _new_entry(workspace, name)
    prompt = new_action_prompt(workspace, entry.name, pool, options, template)
    answer = write_new_action(prompt, provisional_bundle(workspace), entry.name, backend, options, judge=judge,
                              template=template, rounds=rounds, on_token=on_token, task=task)
    attempt = record_new_action(workspace, answer, options)
    return NewActionDraft(prompt, answer.answer, answer.check, attempt, answer.rounds, answer.error)


@dataclass(frozen=True)
class TriedProblem:
    """How the plans of one problem use the new action."""

    problem: str
    status: str
    plans: int
    using: int                       # plans that use the action
    example: tuple[str, ...] = ()    # the first plan that uses it
    steps: tuple[int, ...] = ()      # where it uses it (1-based)
    words: tuple[str, ...] = ()      # that plan in words
    invalid: int = 0                 # plans our validator rejects (should be 0)

    @property
    def message(self) -> str:
        if self.status != PlannerStatus.SOLVED.value:
            return f"{self.problem}: no plan ({self.status})"
        if not self.using:
            return f"{self.problem}: none of {self.plans} plans uses it"
        where = ", ".join(map(str, self.steps))
        return (f"{self.problem}: {self.using} of {self.plans} plans use it; the first such plan at "
                f"step{'s' if len(self.steps) > 1 else ''} {where}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self) | {"message": self.message}


@dataclass(frozen=True)
class TryReport:
    action: str
    problems: tuple[TriedProblem, ...]

    @property
    def used(self) -> bool:
        return any(p.using for p in self.problems)

    def to_dict(self) -> dict:
        return {"action": self.action, "used": self.used, "problems": [p.to_dict() for p in self.problems]}


def try_action(workspace: WorkingCopy, name: str, planner: KStarPlanner, *, text: str | None = None,
               task: TaskState | None = None) -> TryReport:
    """Plan every problem with the working domain plus `text` (default: the accepted definition of `name`)."""
    entry = workspace.entry(name)
    if text is None:
        if entry.accepted is None:
            raise UsageError(f"'{entry.name}' has no accepted definition to try", hint="accept an attempt, or pass the text")
        text = entry.accepted
    check = workspace.check(entry.name, text)
    if not check.passed or check.action is None:
        finding = check.findings[0]
        raise DomainError(f"cannot try this '{entry.name}': {finding.subclass.value}: {finding.message}",
                          where=SourceLocation.from_offset(text, finding.span[0]))
    working = workspace.working_domain()
    actions = tuple(a for a in working.actions if a.name != entry.name) + (check.action,)
    domain = dataclasses.replace(working, actions=actions)
    domain_text = domain.to_pddl()
    tried = []
    for problem in workspace.bundle.require_problems():
        if task is not None:
            task.check_cancelled()
        result = planner.plan(domain_text, problem.text, task=task, label=f"try/{problem.name}")
        validator = PlanValidator(domain, problem.problem)
        invalid = sum(1 for p in result.plans if not validator.validate(p).valid)
        using = [p for p in result.plans if any(step[0] == entry.name for step in p)]
        example: tuple[str, ...] = ()
        steps: tuple[int, ...] = ()
        words: tuple[str, ...] = ()
        if using:
            first = using[0]
            example = tuple(f"({' '.join(s)})" for s in first)
            steps = tuple(i for i, s in enumerate(first, start=1) if s[0] == entry.name)
            if workspace.descriptions is not None:
                words = tuple(plan_in_words(domain, workspace.descriptions, problem.problem, first).lines())
        tried.append(TriedProblem(problem.name, result.status.value, len(result.plans), len(using), example,
                                  steps, words, invalid))
    return TryReport(entry.name, tuple(tried))
