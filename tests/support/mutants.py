"""Single-atom mutants of the bundled actions, judged by the proof, the bundled tests and the quick fixes (issue 22).

A mutant adds or removes one atom over the action's parameters and the domain's predicates, in
the precondition, the add list or the delete list: exactly the edits `quick_fixes` searches, so a
fix can always undo the mutation (it may also find another edit that passes every case). The
proof (METHOD 6a) with the reference says which mutants are Different; the bundled tests, without
the reference, should fail on them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from domain_drafter.core.classes import Subclass
from domain_drafter.core.model import canonical_action
from domain_drafter.core.tests_reader import load_tests
from domain_drafter.planning.domain_tests import run_tests
from domain_drafter.planning.proof import ProofSettings, prove_equivalence
from domain_drafter.planning.quick_fixes import Edit, apply_edits, candidate_edits, quick_fixes

__test__ = False


@dataclass
class MutantOutcome:
    action: str
    edit: Edit
    different: bool
    caught: bool = False
    fixed: bool = False
    restored_reference: bool = False
    fix_s: float = 0.0                    # until the first fix (or the whole search, when none is found)
    search_s: float = 0.0                 # the whole search (up to 3 fixes or the time limit)
    test_s: float = 0.0
    failing: tuple[str, ...] = ()


@dataclass
class DomainMeasure:
    domain: str
    outcomes: list[MutantOutcome] = field(default_factory=list)

    @property
    def different(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.different]

    @property
    def caught(self) -> list[MutantOutcome]:
        return [o for o in self.different if o.caught]

    @property
    def missed(self) -> list[MutantOutcome]:
        return [o for o in self.different if not o.caught]

    def catch_rate(self) -> float:
        return len(self.caught) / max(1, len(self.different))

    def fix_rate(self) -> float:
        caught = [o for o in self.caught if o.fix_s > 0]
        return sum(o.fixed for o in caught) / max(1, len(caught))


def single_atom_mutants(domain):
    """(action name, edit, mutant domain) for every single-atom edit of every action."""
    for action in domain.actions:
        for edit in candidate_edits(domain, action):
            yield action.name, edit, domain.with_action(apply_edits(action, [edit]))


def measure_domain(bundle, states, *, fixes: bool = True, only: set[str] | None = None) -> DomainMeasure:
    tests = load_tests(bundle)
    out = DomainMeasure(bundle.name)
    for name, edit, mutant in single_atom_mutants(bundle.domain):
        if only is not None and name not in only:
            continue
        proof = prove_equivalence(bundle.domain, mutant, bundle.problems, actions=[name],
                                  reference_text=bundle.domain_text, states=states,
                                  settings=ProofSettings(time_limit_s=20))
        outcome = MutantOutcome(name, edit, proof.proven and proof.subclass is not Subclass.EQUIVALENT)
        out.outcomes.append(outcome)
        if not outcome.different:
            continue
        t0 = time.perf_counter()
        report = run_tests(mutant, tests, fail_fast=True)
        outcome.test_s = time.perf_counter() - t0
        outcome.failing = tuple(r.name for r in report.failed)
        outcome.caught = bool(report.failed)
        if outcome.caught and fixes:
            t0 = time.perf_counter()
            search = quick_fixes(mutant, tests)
            outcome.fix_s = search.first_fix_s if search.fixes else time.perf_counter() - t0
            outcome.search_s = time.perf_counter() - t0
            outcome.fixed = bool(search.fixes)
            reference = canonical_action(bundle.domain.action(name))
            outcome.restored_reference = any(canonical_action(f.domain.action(name)) == reference
                                             for f in search.fixes)
    return out
