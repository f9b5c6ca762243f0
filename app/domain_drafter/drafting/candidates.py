"""Draft N candidate answers for one action in one batch, judge each, and rank them.

Two ways to get N different answers (METHOD's protocol is greedy, one prompt):
* **prompt seeds** (default, greedy): N prompts built with the seeds seed .. seed+N-1 (other
  context examples, other random descriptions), each decoded greedily as the paper does;
  decoded together with the llama.cpp backend's `generate_batch`.
* **sampled**: one prompt, read once, and N answers sampled at a temperature > 0 with the
  decoding seeds seed .. seed+N-1 (`generate_candidates`, which copies the prompt's cache).
A backend without these methods (the HTTP one) writes the answers one at a time.

With a reference action every answer is judged by the Evaluator and the ranking is: Equivalent
first, then by class (and subclass) order, then the smaller ARE. Without one (a new action, or a
placeholder without conditions and effects) an answer gets the syntax and semantic checks against
the domain's vocabulary and the domain's tests, by the search's judge without a reference
(drafting/judges.py, `checks_judge`), and the ranking is: checks passed, then how many of the domain's
problems can still reach their goal with the candidate in the domain (explored state by state, K* when
the exploration cannot finish) and how many of the domain's test cases pass, counted together as the
search scores them; each candidate says "tests: 7 of 8 pass" and the failing cases in words. Then
agreement (how many candidates have the same canonical action), which breaks the remaining ties in
both cases, then the drafting order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from domain_drafter.core.answers import CheckReport
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import canonical_action
from domain_drafter.core.prompt import PromptTemplate, build_prompt, load_template
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.candidate_options import (  # noqa: F401 - re-exported
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLE_TEMPERATURE,
    MAX_CANDIDATES,
    CandidateOptions,
)
from domain_drafter.drafting.judges import (
    Judge,
    Judgement,
    checked_verdict,
    checks_judge,
    has_reference,
    reference_judge,
)
from domain_drafter.drafting.options import DraftOptions
from domain_drafter.drafting.records import SearchNode, SearchResult
from domain_drafter.drafting.search import draft_decoding
from domain_drafter.llm.backend import DecodingOptions, Generation, GenerationBackend, GenerationStats
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator

_WORST = 10**9


@dataclass(frozen=True)
class Candidate:
    """One drafted answer with its judgement and its place in the ranking (plain data)."""

    index: int                          # drafting order, 0-based
    seed: int                           # the prompt seed (prompt seeds) or the decoding seed (sampled)
    sampled: bool
    answer: str
    stats: GenerationStats
    judgement: Judgement                # the verdict with a reference; the checks, problems and tests without
    agreement: int = 0                  # candidates with the same canonical action, itself included (0: none parsed)
    rank: int = 0                       # 1 = best, once ranked
    rank_key: tuple = field(default=(), compare=False)
    score: float | None = None          # the agreement score (METHOD 6b), where the search gave one
    origin: str = ""                    # where a searched answer came from: "root", "child of #2"

    @property
    def check(self) -> CheckReport:
        return self.judgement.check

    @property
    def evaluation(self) -> EvaluationResult | None:
        """None without a reference."""
        return self.judgement.evaluation

    @property
    def solvable(self) -> tuple[bool | None, ...]:
        """Without a reference: per problem, goal reachable (None: unknown)."""
        return self.judgement.solvable

    @property
    def tests_passed(self) -> int:
        """Without a reference: the domain's test cases that pass with it (0 of 0: no tests, or failed checks)."""
        return self.judgement.tests_passed

    @property
    def tests_total(self) -> int:
        return self.judgement.tests_total

    @property
    def tests_words(self) -> tuple[str, ...]:
        """The failing cases in words."""
        return self.judgement.tests_words

    @property
    def subclass(self) -> Subclass | None:
        return self.evaluation.subclass if self.evaluation is not None else self.check.subclass

    @property
    def passed_checks(self) -> bool:
        return self.check.passed

    @property
    def solved(self) -> int:
        return sum(1 for s in self.solvable if s)

    @property
    def tests(self) -> str:
        """`tests: 7 of 8 pass` (empty when no tests were run)."""
        return f"tests: {self.tests_passed} of {self.tests_total} pass" if self.tests_total else ""

    @property
    def canonical(self) -> str | None:
        return canonical_action(self.check.action) if self.check.action is not None else None

    @property
    def verdict(self) -> str:
        """`Equivalent`, `OPApp`, `passed the checks, 2/3 problems solvable`, `PAError`..."""
        if self.evaluation is not None:
            return self.evaluation.subclass.value if self.evaluation.subclass else "no verdict"
        if self.check.subclass is not None:
            return self.check.subclass.value
        return checked_verdict(self.solvable, self.tests_passed, self.tests_total)

    @property
    def message(self) -> str:
        if self.evaluation is not None:
            return self.evaluation.message
        if self.check.findings:
            return self.check.findings[0].message
        return " ".join([self.verdict + ".", *self.tests_words]) if self.tests_words else self.verdict

    def to_dict(self) -> dict:
        return {"index": self.index, "seed": self.seed, "sampled": self.sampled, "rank": self.rank,
                "answer": self.answer, "stats": self.stats.__dict__, "verdict": self.verdict,
                "subclass": self.subclass.value if self.subclass else None, "message": self.message,
                "agreement": self.agreement, "solvable": list(self.solvable), "tests_passed": self.tests_passed,
                "tests_total": self.tests_total, "tests_words": list(self.tests_words),
                "check": self.check.to_dict(),
                "evaluation": self.evaluation.to_dict() if self.evaluation is not None else None}


# --- generation ---------------------------------------------------------------------------------
def _generate(backend: GenerationBackend, prompts: Sequence[str], decodings: Sequence[DecodingOptions],
              sampled: bool, task: TaskState) -> list[Generation]:
    """One answer per decoding: in one batch when the backend can, else one at a time."""
    n = len(decodings)
    limit = n * max(d.max_tokens for d in decodings)
    written = [0]

    def on_token(_index: int, _piece: str) -> None:
        written[0] += 1
        if written[0] % 8 == 0:
            task.report(min(written[0], limit), limit, f"writing {n} candidates: {written[0]} tokens")

    task.report(0, limit, f"writing {n} candidates")
    if sampled and hasattr(backend, "generate_candidates"):
        return list(backend.generate_candidates(prompts[0], n, list(decodings), task=task, on_token=on_token))
    if not sampled and hasattr(backend, "generate_batch"):
        return list(backend.generate_batch(list(prompts), list(decodings), task=task, on_token=on_token))
    out = []
    for j, decoding in enumerate(decodings):
        task.check_cancelled()
        task.report(j, n, f"writing candidate {j + 1} of {n}")
        out.append(backend.generate(prompts[0] if sampled else prompts[j], decoding, task=task))
    return out


# --- judging -----------------------------------------------------------------------------------
def judge_candidate(bundle: DomainBundle, action: str, index: int, seed: int, sampled: bool, generation: Generation,
                    evaluator: Evaluator, reference: bool, *, judge: Judge | None = None,
                    task: TaskState | None = None) -> Candidate:
    """One answer judged: by the Evaluator with a reference; else by `judge` (default: a new `checks_judge`:
    the checks, the problems, the domain's tests; one judge for a batch judges agreeing answers once)."""
    if reference:
        judged = reference_judge(bundle, action, evaluator, task)(generation.text)
    else:
        judged = (judge or checks_judge(bundle, action, evaluator, task))(generation.text)
    return Candidate(index, seed, sampled, generation.text, generation.stats, judged)


# --- ranking -----------------------------------------------------------------------------------
def _subclass_rank(subclass: Subclass | None) -> int:
    return len(Subclass) if subclass is None else subclass.rank   # later in the checks' order: got further


def rank_key(candidate: Candidate) -> tuple:
    """Smaller is better (see the module's docstring)."""
    evaluation = candidate.evaluation
    if evaluation is not None:
        subclass = evaluation.subclass
        are = evaluation.are.total if evaluation.are is not None else _WORST
        return (subclass is not Subclass.EQUIVALENT, -(subclass.result_class.rank if subclass else -1),
                -(subclass.rank if subclass else -1), are, -candidate.agreement, candidate.index)
    return (not candidate.passed_checks, -_subclass_rank(candidate.check.subclass),
            -(candidate.solved + candidate.tests_passed), -candidate.agreement, candidate.index)


def rank_candidates(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates with their agreement counts, best first, `rank` 1..N."""
    canon = [c.canonical for c in candidates]
    counted = [replace(c, agreement=canon.count(k) if k is not None else 0) for c, k in zip(candidates, canon)]
    keyed = sorted((replace(c, rank_key=rank_key(c)) for c in counted), key=lambda c: c.rank_key)
    return [replace(c, rank=i) for i, c in enumerate(keyed, start=1)]


# --- the whole job -----------------------------------------------------------------------------
def draft_candidates(bundle: DomainBundle, action: str, backend: GenerationBackend, evaluator: Evaluator,
                     bundled: Sequence[DomainBundle], options: DraftOptions, n: int, *, sampled: bool = False,
                     temperature: float = DEFAULT_SAMPLE_TEMPERATURE, reference: bool | None = None,
                     template: PromptTemplate | None = None,
                     on_candidate: Callable[[Candidate], None] | None = None,
                     task: TaskState | None = None) -> list[Candidate]:
    """N answers for `action` drafted in one batch, each judged (`on_candidate` as it is), ranked best first.

    `reference` None: judged against the bundle's action when it has one (`has_reference`). The
    corrective rounds of `options.retries` are not run: each candidate is one answer.
    """
    if not 1 <= n <= MAX_CANDIDATES:
        raise ValueError(f"the number of candidates must be 1..{MAX_CANDIDATES}, got {n}")
    task = task or TaskState()
    template = template or load_template()
    action = bundle.require_action(action)
    reference = has_reference(bundle, action) if reference is None else reference
    decoding = draft_decoding(bundle, action, options)
    if sampled:
        temp = decoding.temperature if decoding.temperature > 0 else temperature
        decodings = [replace(decoding, temperature=temp, seed=options.seed + j) for j in range(n)]
        seeds = [options.seed + j for j in range(n)]
        prompts = [build_prompt(bundle, action, bundled, options.description_class, options.seed,
                                options.examples, template).text]
    else:
        decodings = [decoding] * n
        seeds = [options.seed + j for j in range(n)]
        prompts = [build_prompt(bundle, action, bundled, options.description_class, s, options.examples,
                                template).text for s in seeds]
    task.check_cancelled()
    generations = _generate(backend, prompts, decodings, sampled, task)
    if any(g.stats.stop_reason == "cancelled" for g in generations):
        task.check_cancelled()
    judged: list[Candidate] = []
    judge = None if reference else checks_judge(bundle, action, evaluator, task)
    for j, generation in enumerate(generations):
        task.check_cancelled()
        task.report(j, n, f"judging candidate {j + 1} of {n}")
        candidate = judge_candidate(bundle, action, j, seeds[j], sampled, generation, evaluator, reference,
                                    judge=judge, task=task)
        judged.append(candidate)
        if on_candidate is not None:
            on_candidate(candidate)
    task.report(n, n, f"{n} candidates judged")
    return rank_candidates(judged)


# --- the search's answers as candidates -------------------------------------------------------
def node_candidate(node: SearchNode) -> Candidate:
    """A searched answer as a Candidate, for the lists that show candidates (Draft until proven)."""
    where = "root" if node.parent is None else f"child of #{node.parent + 1}"
    if node.repair_of is not None:
        where = f"quick fix of #{node.repair_of + 1}"
    if node.duplicate_of is not None:
        where += f", same as #{node.duplicate_of + 1}"
    return Candidate(node.id, node.decoding_seed if node.parent is not None else node.seed, node.parent is not None,
                     node.answer, node.stats, node.judgement, score=node.judgement.score,
                     origin=f"call {node.call}, {where}")


def ranked_nodes(result: SearchResult) -> list[Candidate]:
    """Every answer of the tree as a Candidate, best first (the frontier's order), `rank` 1..N."""
    order = sorted(result.nodes, key=lambda n: (n.duplicate_of is not None, n.judgement.key, n.id))
    return [replace(node_candidate(n), rank=i) for i, n in enumerate(order, start=1)]
