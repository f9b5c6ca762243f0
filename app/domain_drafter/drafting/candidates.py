"""Draft N candidate answers for one action in one batch, judge each, and rank them: the search
(drafting/search.py) with Draft N's preset (`presets.draft_n_options`), its answers seen as `Candidate`s.

Two ways to get N different answers (METHOD's protocol is greedy, one prompt):
* **prompt seeds** (default, greedy): N prompts built with the seeds seed .. seed+N-1 (other
  context examples, other random descriptions), each decoded greedily as the paper does;
  decoded together with the llama.cpp backend's `generate_batch`.
* **sampled**: one prompt, read once, and N answers sampled at a temperature > 0 with the
  decoding seeds seed .. seed+N-1 (`generate_candidates`, which copies the prompt's cache).
A backend without these methods (the HTTP one) writes the answers one at a time (search.write_batch).

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
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.core.tasks import TaskState
from domain_drafter.drafting.candidate_options import (  # noqa: F401 - re-exported
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLE_TEMPERATURE,
    MAX_CANDIDATES,
    CandidateOptions,
)
from domain_drafter.drafting.judges import Judge, Judgement, checked_verdict, checks_judge, reference_judge
from domain_drafter.drafting.options import DraftOptions
from domain_drafter.drafting.presets import draft_n_options
from domain_drafter.drafting.records import SearchNode, SearchResult
from domain_drafter.drafting.search import search_action
from domain_drafter.llm.backend import Generation, GenerationBackend, GenerationStats
from domain_drafter.planning.evaluate import EvaluationResult, Evaluator

_WORST = 10**9


@dataclass(frozen=True)
class Candidate:
    """One judged answer as the candidates lists show it: a view over its SearchNode, with its place in the
    ranking."""

    node: SearchNode
    sampled_roots: bool = False         # Draft N sampled from one prompt: a root's seed is its decoding seed
    searched: bool = False              # from a search that expands answers: its score and origin are shown
    agreement: int = 0                  # candidates with the same canonical action, itself included (0: none parsed)
    rank: int = 0                       # 1 = best, once ranked
    rank_key: tuple = field(default=(), compare=False)

    @property
    def index(self) -> int:
        """Drafting order, 0-based."""
        return self.node.id

    @property
    def sampled(self) -> bool:
        return self.sampled_roots or self.node.parent is not None

    @property
    def seed(self) -> int:
        """The prompt seed (prompt seeds) or the decoding seed (sampled)."""
        return self.node.decoding_seed if self.sampled else self.node.seed

    @property
    def answer(self) -> str:
        return self.node.answer

    @property
    def stats(self) -> GenerationStats:
        return self.node.stats

    @property
    def judgement(self) -> Judgement:
        """The verdict with a reference; the checks, problems and tests without."""
        return self.node.judgement

    @property
    def score(self) -> float | None:
        """The agreement score (METHOD 6b), where the search gave one."""
        return self.node.score if self.searched else None

    @property
    def origin(self) -> str:
        """Where a searched answer came from: "call 3, child of #2"."""
        node = self.node
        if not self.searched:
            return ""
        where = "root" if node.parent is None else f"child of #{node.parent + 1}"
        if node.repair_of is not None:
            where = f"quick fix of #{node.repair_of + 1}"
        if node.duplicate_of is not None:
            where += f", same as #{node.duplicate_of + 1}"
        return f"call {node.call}, {where}"

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


# --- judging -----------------------------------------------------------------------------------
def judge_candidate(bundle: DomainBundle, action: str, index: int, seed: int, sampled: bool, generation: Generation,
                    evaluator: Evaluator, reference: bool, *, judge: Judge | None = None,
                    task: TaskState | None = None) -> Candidate:
    """One answer judged as Draft N judges it: by the Evaluator with a reference; else by `judge` (default: a new
    `checks_judge`: the checks, the problems, the domain's tests; one judge for a batch judges agreeing answers
    once)."""
    if reference:
        judged = reference_judge(bundle, action, evaluator, task)(generation.text)
    else:
        judged = (judge or checks_judge(bundle, action, evaluator, task))(generation.text)
    node = SearchNode(index, None, 0, index + 1, seed, seed, generation.text, generation.stats, judged)
    return Candidate(node, sampled_roots=sampled)


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
    """N answers for `action` drafted in one batch, each judged (`on_candidate` as it is), ranked best first:
    the search with `presets.draft_n_options`. A cancel or a model failure is raised.

    `reference` None: judged against the bundle's action when it has one (`has_reference`). The
    corrective rounds of `options.retries` are not run: each candidate is one answer.
    """
    search = draft_n_options(n, sampled, temperature)

    def on_node(node: SearchNode) -> None:
        if on_candidate is not None:
            on_candidate(Candidate(node, sampled_roots=sampled))

    result = search_action(bundle, action, backend, evaluator, bundled, options, search, template=template,
                           reference=reference, on_node=on_node, task=task)
    return rank_candidates([Candidate(node, sampled_roots=sampled) for node in result.nodes])


# --- the search's answers as candidates -------------------------------------------------------
def node_candidate(node: SearchNode) -> Candidate:
    """A searched answer as a Candidate, for the lists that show candidates (Draft until proven)."""
    return Candidate(node, searched=True)


def ranked_nodes(result: SearchResult) -> list[Candidate]:
    """Every answer of the tree as a Candidate, best first (the frontier's order), `rank` 1..N."""
    order = sorted(result.nodes, key=lambda n: (n.duplicate_of is not None, n.judgement.key, n.id))
    return [replace(node_candidate(n), rank=i) for i, n in enumerate(order, start=1)]
