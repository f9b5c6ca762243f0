"""The whole judgement of one answer: syntax and semantic checks, ARE, plan-based equivalence.

`Evaluator` holds what is worth keeping between answers (the planner, the reference plan
cache, the verdict cache); the GUI's worker, the CLI and the batch benchmark each own one.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from domain_drafter.core.answers import CheckReport, Finding, check_answer
from domain_drafter.core.are import AreReport, action_reconstruction_error
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.core.errors import ErrorRecord, error_fields
from domain_drafter.core.model import ActionSchema, Domain, canonical_action
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.equivalence import EquivalenceReport, check_equivalence
from domain_drafter.planning.fd_search import FastDownwardSearch
from domain_drafter.planning.kstar import KStarPlanner
from domain_drafter.planning.options import EquivalenceMode, EvaluationOptions
from domain_drafter.planning.plan_cache import PlanCache, versioned_key
from domain_drafter.planning.proof import ProofError, ProofSettings, prove_equivalence
from domain_drafter.planning.proof_types import ProofMethod, ProofReport
from domain_drafter.planning.state_cache import StateCache
from domain_drafter.planning.verdict_cache import SCHEMA as VERDICT_SCHEMA
from domain_drafter.planning.verdict_cache import CachedVerdict, VerdictCache

if TYPE_CHECKING:
    from domain_drafter.planning.domain_compare import DomainComparison
    from domain_drafter.planning.invariant_findings import InvariantReport

__all__ = ["EquivalenceMode", "EvaluationOptions", "EvaluationResult", "Evaluator", "VerdictCache",
           "canonical_action", "evaluate"]


@dataclass(frozen=True)
class EvaluationResult:
    """Everything known about one answer, as data. `subclass` is None only when `error` is set."""

    domain: str
    action: str
    answer: str
    subclass: Subclass | None
    message: str
    check: CheckReport
    are: AreReport | None = None
    equivalence: EquivalenceReport | None = None   # the paper's heuristic, whenever it was computed
    error: ErrorRecord | None = None
    cached: bool = False
    timings: dict = field(default_factory=dict, compare=False)
    reference: ActionSchema | None = field(default=None, compare=False)
    proof: ProofReport | None = None                # the proven verdict (PROVEN mode)
    equivalence_mode: EquivalenceMode = EquivalenceMode.PROVEN
    # what the domain's other actions say of the answer (planning/invariant_findings.py), where the caller asked
    # (the app's Evaluate and Generate); None otherwise. Not part of the verdict, so not compared or stored.
    invariants: InvariantReport | None = field(default=None, compare=False)

    @property
    def reference_pddl(self) -> str | None:
        """The reference action the answer was judged against (for side-by-side views)."""
        return self.reference.to_pddl(indent="") if self.reference else None

    @property
    def result_class(self) -> ResultClass | None:
        return self.subclass.result_class if self.subclass else None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.check.findings

    @property
    def generated_pddl(self) -> str | None:
        return self.check.action.to_pddl(indent="") if self.check.action else None

    def to_dict(self) -> dict:
        return {
            "domain": self.domain, "action": self.action,
            "class": self.result_class.value if self.result_class else None,
            "subclass": self.subclass.value if self.subclass else None,
            "message": self.message, **error_fields(self.error), "cached": self.cached,
            "findings": [f.to_dict() for f in self.findings],
            "candidate_span": list(self.check.candidate_span) if self.check.candidate_span else None,
            "generated_pddl": self.generated_pddl,
            "reference_pddl": self.reference_pddl,
            "are": self.are.to_dict() if self.are else None,
            "equivalence": self.equivalence.to_dict() if self.equivalence else None,
            "proof": self.proof.to_dict() if self.proof else None,
            "score": self.proof.score.to_dict() if self.proof and self.proof.score else None,
            "equivalence_mode": self.equivalence_mode.value,
            "timings": dict(self.timings),
            "answer": self.answer,
        }


class Evaluator:
    """Evaluates answers; keeps the planner, the reference plans and states, and past verdicts between calls.

    Thread-safe: the planners hold no state between calls, and the caches lock their own
    state, so several workers may call `evaluate` on one Evaluator at once.
    """

    def __init__(self, options: EvaluationOptions | None = None, *, planner: KStarPlanner | None = None,
                 plan_cache: PlanCache | None = None, verdicts: VerdictCache | None = None,
                 states: StateCache | None = None, search: FastDownwardSearch | None = None):
        self.options = options or EvaluationOptions()
        self.planner = planner or KStarPlanner(k=self.options.k, time_limit_s=self.options.time_limit_s)
        self.plan_cache = plan_cache or PlanCache(self.planner)
        self.verdicts = verdicts or VerdictCache()
        # the reference's reachable states live beside its plans
        self.states = states or StateCache(self.plan_cache.folder / "states")
        self.search = search or FastDownwardSearch(memory_limit_mb=self.planner.memory_limit_mb,
                                                   python=self.planner.python)

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.verdicts.close()

    @property
    def proof_settings(self) -> ProofSettings:
        return ProofSettings(self.options.state_budget, self.options.proof_time_limit_s)

    def verdict_key(self, bundle: DomainBundle, target: str, action: ActionSchema,
                    reference_text: str | None = None) -> str:
        """Everything the verdict depends on: schema, versions, the texts, the answer, the equivalence mode."""
        reference_text = reference_text if reference_text is not None else bundle.domain.to_pddl()
        mode = self.options.equivalence.value
        if self.options.equivalence is EquivalenceMode.PROVEN and self.options.paper_too:
            mode += "+paper"
        return versioned_key(VERDICT_SCHEMA, reference_text, *(p.text for p in bundle.problems), target,
                             canonical_action(action), str(self.planner.k), self.planner.version, mode)

    def evaluate(self, bundle: DomainBundle, action: str, answer: str, *, task: TaskState | None = None,
                 check: CheckReport | None = None) -> EvaluationResult:
        """Classify `answer` for `action` of `bundle` into one of the paper's classes. `check`: the answer's
        checks when the caller has run them already (`check_answer(answer, bundle.domain, action)`), so it is
        parsed once."""
        t0 = time.perf_counter()
        target = bundle.require_action(action)
        check = check if check is not None else check_answer(answer, bundle.domain, target)
        t1 = time.perf_counter()
        reference = bundle.domain.action(target)
        are = action_reconstruction_error(reference, check.action) if check.action else None
        t2 = time.perf_counter()
        timings = {"check_s": t1 - t0, "are_s": t2 - t1}
        mode = self.options.equivalence
        common = dict(domain=bundle.name, action=target, answer=answer, check=check, are=are, reference=reference,
                      equivalence_mode=mode)
        if not check.passed:
            return EvaluationResult(subclass=check.subclass, message=check.findings[0].message,
                                    timings=timings, **common)
        assert check.action is not None
        if task is not None:
            task.check_cancelled()
        problems = bundle.require_problems()
        reference_text = bundle.domain.to_pddl()
        key = self.verdict_key(bundle, target, check.action, reference_text)
        cached = self.verdicts.get(key) if self.options.use_verdict_cache else None
        was_cached = cached is not None and (mode is EquivalenceMode.PAPER or cached.proof is not None)
        if was_cached:
            assert cached is not None
            verdict = cached
        else:
            generated = bundle.domain.with_action(check.action, replacing=target)
            if mode is EquivalenceMode.PAPER:
                verdict = CachedVerdict(self._paper(bundle, generated, problems, reference_text, task))
            else:
                verdict = self._proven(bundle, generated, target, problems, reference_text, task)
            if self.options.use_verdict_cache:
                self.verdicts.put(key, verdict)
        report, proof = verdict.equivalence, verdict.proof
        timings["equivalence_s"] = time.perf_counter() - t2
        if report is not None:
            timings.update({f"equivalence_{k}": v for k, v in report.timings.items()})
        if proof is not None:
            timings.update({f"proof_{k.removesuffix('_s')}_s": v for k, v in proof.timings.items()
                            if k != "proof_s"})
            timings["proof_s"] = proof.timings.get("proof_s", 0.0)
        timings["total_s"] = time.perf_counter() - t0
        if proof is None:
            assert report is not None
            return EvaluationResult(subclass=report.subclass, message=report.message, equivalence=report,
                                    error=report.error, cached=was_cached, timings=timings, **common)
        message = proof.message
        if proof.method is ProofMethod.HEURISTIC and report is not None and proof.error is None:
            message = f"{report.message} (heuristic: the proof did not finish; {proof.reason})"
        return EvaluationResult(subclass=proof.subclass, message=message, equivalence=report, error=proof.error,
                                cached=was_cached, timings=timings, proof=proof, **common)

    def compare(self, bundle: DomainBundle, domain: Domain, *, task: TaskState | None = None) -> DomainComparison:
        """Judge a whole `domain` against `bundle`'s (METHOD 6, whole domain) with this Evaluator's options (the
        equivalence mode, the state budget, the proof's time limit), its state cache and its witness search."""
        from domain_drafter.planning.domain_compare import compare_domains

        return compare_domains(bundle, domain, self.planner, self.plan_cache, task=task, options=self.options,
                               states=self.states, search=self.search)

    def _paper(self, bundle: DomainBundle, generated, problems, reference_text: str,
               task: TaskState | None) -> EquivalenceReport:
        return check_equivalence(bundle.domain, generated, problems, self.planner, self.plan_cache,
                                 reference_text=reference_text, task=task)

    def _proven(self, bundle: DomainBundle, generated, target: str, problems, reference_text: str,
                task: TaskState | None) -> CachedVerdict:
        """The proof, with the paper's heuristic beside it when asked for or when the proof cannot finish."""
        try:
            proof = prove_equivalence(bundle.domain, generated, problems, actions=[target],
                                      reference_text=reference_text, settings=self.proof_settings,
                                      states=self.states, search=self.search, task=task)
        except ProofError as err:
            error = ErrorRecord.of(err)
            return CachedVerdict(None, ProofReport(None, ProofMethod.HEURISTIC, False, 0, len(problems),
                                                   error=error, reason=error.message))
        report = None
        if self.options.paper_too or not proof.proven:
            report = self._paper(bundle, generated, problems, reference_text, task)
        if not proof.proven:
            assert report is not None
            proof = dataclasses.replace(proof, subclass=report.subclass, error=report.error)
        return CachedVerdict(report, proof)


def evaluate(bundle: DomainBundle, action: str, answer: str, options: EvaluationOptions | None = None,
             *, task: TaskState | None = None) -> EvaluationResult:
    """One-shot evaluation (builds an Evaluator); long-running callers keep their own Evaluator."""
    with Evaluator(options) as evaluator:
        return evaluator.evaluate(bundle, action, answer, task=task)
