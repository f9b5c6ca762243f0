"""Precondition literals no answer the blind judge accepts can hold, known before or learned while drafting (issue 37).

A blind search has no distinguishing state to tell a child what to take out, and a small model keeps a
precondition literal the judge has shown wrong call after call. Each source here is sound: a literal it names
is one that every answer holding it fails, whatever else that answer says, so refusing it (the literal guard's
`forbidden`, under the grammar) loses no answer the judge could accept.

- Before the first call, `unreachable_preconditions`: a positive literal whose predicate and argument pattern
  match no atom that the domain's other actions make true on any problem (explored; the delete relaxation where
  the exploration is cut short, which can only say more atoms are reachable). An answer needs it true for its
  first application, which comes after the other actions alone, so that answer never applies.
- After each judged answer, `from_failed_tests`: a test case whose plan must be executable (`plan`,
  `applicable`, `effect`) fails at a step of this action, its first step of this action, on a precondition
  literal. The state before that step is the other actions' doing only, so every answer holding that literal,
  lifted over the action's parameters (each object bound to exactly one parameter, or a constant of the domain
  bound to none, which stays as written: gripper's `(free right)` in a move), fails that case too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.llm.literal_guard import spelled_literal
from domain_drafter.planning.diagnosis import reachability
from domain_drafter.planning.grounding import lift_atom
from domain_drafter.planning.invariants import literal_words, other_actions
from domain_drafter.planning.tests_report import CaseResult
from domain_drafter.planning.validator import FailureKind

EXECUTABLE_CASES = (CaseKind.PLAN, CaseKind.APPLICABLE, CaseKind.EFFECT)   # the plan (to the action) must run


def _matches(words: Sequence[str], atom: Sequence[str]) -> bool:
    """Whether the lifted positive literal `words` (predicate, then variables `?x` or constants) can be `atom`."""
    if len(words) != len(atom) or words[0] != atom[0]:
        return False
    bound: dict[str, str] = {}
    for term, obj in zip(words[1:], atom[1:]):
        if term.startswith("?"):
            if bound.setdefault(term, obj) != obj:
                return False
        elif term.lower() != obj.lower():
            return False
    return True


def unreachable_preconditions(bundle: DomainBundle, action: str, literals: Iterable[str]) -> tuple[str, ...]:
    """The positive precondition literals (as the grammar writes them) no state the other actions reach makes
    true on any of the bundle's problems. () where a problem cannot be grounded (nothing is known)."""
    if not bundle.problems:
        return ()
    reach = reachability(other_actions(bundle.domain, action), bundle.problems)
    if any(not r.exact and not r.reached for r in reach):
        return ()
    reached: dict[str, list[tuple[str, ...]]] = {}
    for r in reach:
        for atom in r.reached:
            reached.setdefault(atom[0], []).append(atom)
    out = []
    for literal in literals:
        words = literal_words(literal)
        if not words or words[0] in ("not", "="):
            continue
        if not any(_matches(words, atom) for atom in reached.get(words[0], ())):
            out.append(literal)
    return tuple(out)


def _step(shown: str) -> tuple[str, ...]:
    return tuple(shown.strip("() ").split())


def from_failed_tests(bundle: DomainBundle, action: str, failures: Iterable[CaseResult],
                      literals: Iterable[str]) -> tuple[str, ...]:
    """The precondition literals (among `literals`, as the grammar writes them) that the failed cases show
    false where the action must apply at its first step in the plan (see the module's docstring)."""
    spelled = {spelled_literal(lit): lit for lit in literals}
    schema = bundle.domain.action_map.get(action.lower())
    constants = {c.name.lower() for c in bundle.domain.constants}
    out: dict[str, None] = {}
    for result in failures:
        ev = result.evidence
        if result.kind not in EXECUTABLE_CASES or ev is None or ev.step is None or ev.validation is None:
            continue
        if ev.validation.kind is not FailureKind.PRECONDITION or len(ev.plan) < ev.step or schema is None:
            continue
        steps = [_step(s) for s in ev.plan[:ev.step]]
        key = steps[-1]
        if not key or key[0].lower() != schema.name or any(s and s[0].lower() == schema.name for s in steps[:-1]):
            continue
        if len(key) - 1 != len(schema.parameters):
            continue
        for atom in ev.validation.atoms:
            words = literal_words(atom)
            objects = words[2:] if words[:1] == ("not",) else words[1:]
            if any(key[1:].count(o) > 1 or (key[1:].count(o) == 0 and o.lower() not in constants) for o in objects):
                continue                    # an object bound to two parameters, or to none and not a constant:
                                            # the lifting is not sure
            lifted = spelled.get(spelled_literal(lift_atom(atom, key, bundle.domain)))
            if lifted is not None:
                out[lifted] = None
    return tuple(out)
