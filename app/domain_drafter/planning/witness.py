"""The question "is there a reachable state where the two domains differ?" as a planning task (METHOD 6a).

The task is D itself (on the problem's objects and initial state) plus one witness action per
way a compared ground action can behave differently, each adding the goal atom. A witness's
precondition is a difference condition over fluent atoms of the ground pair, so the cases where
two parameters are bound to the same object are covered by construction (grounding binds them):
- applicable in one domain only: that domain's precondition plus the negation of one of the
  other's precondition literals (or nothing more, where the other is never applicable);
- both applicable, atom q ends differently: both preconditions, plus q false where one side
  adds q and the other leaves it, or q true where one side deletes q and the other leaves it.
A plan is a counterexample (its last step names the pair); unsolvability is a proof.
The problem's objects become the witness domain's constants, so witnesses can name them.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.model import (
    OBJECT,
    ActionSchema,
    Atom,
    Domain,
    Literal,
    PredicateSignature,
    Problem,
    TypedName,
)
from domain_drafter.planning.grounding import AtomIndex, bits
from domain_drafter.planning.kstar_input import kstar_input
from domain_drafter.planning.state_space import ActionPair

GOAL_PREDICATE = "dd-difference-reached"
WITNESS_PREFIX = "dd-witness-"


@dataclass(frozen=True)
class WitnessTask:
    domain_text: str
    problem_text: str
    pair_of: dict[str, int]       # witness action name -> pair number
    witnesses: int


def _conditions(pair: ActionPair) -> list[tuple[int, int]]:
    """(must-be-true mask, must-be-false mask) of each way the pair can differ in a state."""
    out: list[tuple[int, int]] = []
    ref, gen = pair.reference, pair.generated
    for one, other in ((ref, gen), (gen, ref)):
        if one is None:
            continue
        if other is None:
            out.append((one.pre, one.neg))
            continue
        for i in bits(other.pre & ~one.pre):
            out.append((one.pre, one.neg | (1 << i)))
        for i in bits(other.neg & ~one.neg):
            out.append((one.pre | (1 << i), one.neg))
    if ref is not None and gen is not None:
        pos, neg = ref.pre | gen.pre, ref.neg | gen.neg
        if not pos & neg:
            for q in bits(ref.add | ref.delete | gen.add | gen.delete):
                bit = 1 << q
                ends = [("T" if g.add & bit else "F" if g.delete & bit else "keep") for g in (ref, gen)]
                if ends[0] == ends[1]:
                    continue
                if "keep" not in ends:
                    out.append((pos, neg))
                elif "T" in ends:        # differs exactly when q is false before
                    out.append((pos, neg | bit))
                else:                    # one side deletes q, the other keeps it: differs when q holds
                    out.append((pos | bit, neg))
    return [(p, n) for p, n in dict.fromkeys(out) if not p & n]


def _literals(index: AtomIndex, pos: int, neg: int) -> tuple[Literal, ...]:
    def atom(i: int) -> Atom:
        a = index.atoms[i]
        return Atom(a[0], tuple(a[1:]))
    return tuple(Literal(atom(i)) for i in bits(pos)) + tuple(Literal(atom(i), False) for i in bits(neg))


def witness_task(reference: Domain, problem: ProblemFile, index: AtomIndex, pairs: list[ActionPair]) -> WitnessTask:
    """The planning task whose plans end in a state where some pair differs (see the module docstring)."""
    witnesses: list[ActionSchema] = []
    pair_of: dict[str, int] = {}
    goal = Literal(Atom(GOAL_PREDICATE))
    for number, pair in enumerate(pairs):
        for pos, neg in _conditions(pair):
            name = f"{WITNESS_PREFIX}{len(witnesses)}"
            pair_of[name] = number
            witnesses.append(ActionSchema(name, (), _literals(index, pos, neg), (goal,)))
    objects = tuple(TypedName(o.name, o.type or OBJECT) for o in problem.problem.objects
                    if o.name not in reference.constant_map)
    domain = Domain(reference.name, reference.requirements | {"negative-preconditions"}, reference.types,
                    (*reference.constants, *objects),
                    (*reference.predicates, PredicateSignature(GOAL_PREDICATE, ())),
                    (*reference.actions, *witnesses))
    task = Problem(f"{problem.problem.name}-witness", reference.name, (), problem.problem.init, (goal,))
    texts = kstar_input(domain, domain, [ProblemFile(problem.name, problem.path, task.to_pddl(), task)])
    return WitnessTask(texts.reference, texts.problems[0], pair_of, len(witnesses))


def goal_task(generated: Domain, problem: ProblemFile) -> tuple[str, str]:
    """The generated domain and the problem as K*'s planner reads them (`either` compiled away)."""
    texts = kstar_input(generated, generated, [problem])
    return texts.generated, texts.problems[0]
