"""A plan validator that agrees with VAL on typed STRIPS, fast enough for hundreds of plans per answer.

Action schemas are compiled once per (domain, problem) into index-based templates; a plan is
then checked step by step on a set of ground atoms. Unlike VAL, a plan with a type error is
invalid (VAL prints "Bad plan description!" and still exits 0).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from domain_drafter.core.model import EQUALITY, ActionSchema, Domain, Problem
from domain_drafter.core.plan_text import read_plan  # noqa: F401 - re-exported: plans are read where they are checked

Step = tuple[str, ...]          # ("stack", "a", "b")
GroundAtom = tuple[str, ...]    # ("on", "a", "b")


class PlanStatus(enum.Enum):
    VALID = "valid"
    INVALID = "invalid"


class FailureKind(enum.Enum):
    UNKNOWN_ACTION = "unknown action"
    WRONG_ARITY = "wrong number of arguments"
    UNKNOWN_OBJECT = "unknown object"
    WRONG_TYPE = "wrong type"
    PRECONDITION = "unsatisfied precondition"
    GOAL = "goal not reached"


@dataclass(frozen=True)
class PlanValidation:
    """The verdict on one plan. For an invalid plan: where (1-based step, or None for the goal) and why."""

    status: PlanStatus
    kind: FailureKind | None = None
    step: int | None = None
    action: str | None = None
    atoms: tuple[str, ...] = ()
    message: str = ""

    @property
    def valid(self) -> bool:
        return self.status is PlanStatus.VALID

    def __bool__(self) -> bool:
        return self.valid

    def to_dict(self) -> dict:
        return {"status": self.status.value, "kind": self.kind.value if self.kind else None, "step": self.step,
                "action": self.action, "atoms": list(self.atoms), "message": self.message}


def plan_validation_from_dict(data: dict) -> PlanValidation:
    return PlanValidation(PlanStatus(data["status"]), FailureKind(data["kind"]) if data.get("kind") else None,
                          data.get("step"), data.get("action"), tuple(data.get("atoms", ())), data.get("message", ""))


VALID = PlanValidation(PlanStatus.VALID, message="the plan is valid")

_Arg = int | str   # a parameter index, or a constant's name


@dataclass(frozen=True)
class _CompiledAction:
    name: str
    types: tuple[str, ...]
    pre_pos: tuple[tuple[str, tuple[_Arg, ...]], ...]
    pre_neg: tuple[tuple[str, tuple[_Arg, ...]], ...]
    equal: tuple[tuple[_Arg, _Arg, bool], ...]    # (left, right, must_be_equal)
    add: tuple[tuple[str, tuple[_Arg, ...]], ...]
    delete: tuple[tuple[str, tuple[_Arg, ...]], ...]


def _compile(action: ActionSchema) -> _CompiledAction:
    index = {p.name: i for i, p in enumerate(action.parameters)}

    def atom(a) -> tuple[str, tuple[_Arg, ...]]:
        return a.predicate, tuple(index.get(x, x) for x in a.args)

    equal = tuple((index.get(l.atom.args[0], l.atom.args[0]), index.get(l.atom.args[1], l.atom.args[1]), l.positive)
                  for l in action.precondition if l.atom.predicate == EQUALITY and len(l.atom.args) == 2)
    return _CompiledAction(
        name=action.name,
        types=tuple(p.type for p in action.parameters),
        pre_pos=tuple(atom(l.atom) for l in action.precondition if l.positive and l.atom.predicate != EQUALITY),
        pre_neg=tuple(atom(l.atom) for l in action.precondition if not l.positive and l.atom.predicate != EQUALITY),
        equal=equal,
        add=tuple(atom(a) for a in dict.fromkeys(l.atom for l in action.effect if l.positive)),
        delete=tuple(atom(a) for a in dict.fromkeys(l.atom for l in action.effect if not l.positive)),
    )


def _ground(template: tuple[str, tuple[_Arg, ...]], args: Step) -> GroundAtom:
    pred, slots = template
    return (pred, *[args[s] if isinstance(s, int) else s for s in slots])


def _show(atom: GroundAtom) -> str:
    return f"({' '.join(atom)})"


def _show_equality(left: str, right: str, equal: bool) -> str:
    return f"(= {left} {right})" if equal else f"(not (= {left} {right}))"


class PlanValidator:
    """Validates plans of one problem in one domain; build once, call `validate` many times."""

    def __init__(self, domain: Domain, problem: Problem):
        self.domain = domain
        self.problem = problem
        self._actions = {a.name: _compile(a) for a in domain.actions}
        objects = {**{c.name: c.type for c in domain.constants}, **{o.name: o.type for o in problem.objects}}
        self._object_types = objects
        self._init = frozenset((a.predicate, *a.args) for a in problem.init)
        self._goal_pos = tuple((l.atom.predicate, *l.atom.args) for l in problem.goal if l.positive)
        self._goal_neg = tuple((l.atom.predicate, *l.atom.args) for l in problem.goal if not l.positive)
        self._type_ok: dict[tuple[str, str], bool] = {}

    def _is_a(self, obj: str, type_name: str) -> bool:
        key = (obj, type_name)
        ok = self._type_ok.get(key)
        if ok is None:
            ok = self.domain.types.is_subtype(self._object_types[obj], type_name)
            self._type_ok[key] = ok
        return ok

    def validate(self, plan: Sequence[Sequence[str]]) -> PlanValidation:
        """Check every step's applicability in order, then the goal."""
        state = set(self._init)
        for number, raw in enumerate(plan, start=1):
            step = tuple(x.lower() for x in raw)
            shown = f"({' '.join(step)})"
            action = self._actions.get(step[0]) if step else None
            if action is None:
                return PlanValidation(PlanStatus.INVALID, FailureKind.UNKNOWN_ACTION, number, shown,
                                      message=f"step {number} {shown}: the domain has no action '{step[0] if step else ''}'")
            args = step[1:]
            if len(args) != len(action.types):
                return PlanValidation(PlanStatus.INVALID, FailureKind.WRONG_ARITY, number, shown,
                                      message=f"step {number} {shown}: '{action.name}' takes {len(action.types)} "
                                              f"arguments, got {len(args)}")
            for arg, type_name in zip(args, action.types):
                if arg not in self._object_types:
                    return PlanValidation(PlanStatus.INVALID, FailureKind.UNKNOWN_OBJECT, number, shown,
                                          message=f"step {number} {shown}: '{arg}' is no object of the problem")
                if not self._is_a(arg, type_name):
                    return PlanValidation(PlanStatus.INVALID, FailureKind.WRONG_TYPE, number, shown,
                                          message=f"step {number} {shown}: '{arg}' is a {self._object_types[arg]}, "
                                                  f"not a {type_name}")
            missing = [_ground(t, args) for t in action.pre_pos if _ground(t, args) not in state]
            present = [_ground(t, args) for t in action.pre_neg if _ground(t, args) in state]
            unequal = [(l, r, eq) for l, r, eq in action.equal
                       if ((args[l] if isinstance(l, int) else l) == (args[r] if isinstance(r, int) else r)) != eq]
            if missing or present or unequal:
                atoms = ([_show(a) for a in missing] + [f"(not {_show(a)})" for a in present]
                         + [_show_equality(args[l] if isinstance(l, int) else l,
                                           args[r] if isinstance(r, int) else r, eq) for l, r, eq in unequal])
                return PlanValidation(PlanStatus.INVALID, FailureKind.PRECONDITION, number, shown, tuple(atoms),
                                      message=f"step {number} {shown}: precondition{'s' if len(atoms) > 1 else ''} "
                                              f"{' '.join(atoms)} not satisfied")
            # delete first, then add: an atom both deleted and added stays true (as in VAL and Fast Downward)
            for t in action.delete:
                state.discard(_ground(t, args))
            for t in action.add:
                state.add(_ground(t, args))
        unmet = [_show(g) for g in self._goal_pos if g not in state] + \
                [f"(not {_show(g)})" for g in self._goal_neg if g in state]
        if unmet:
            return PlanValidation(PlanStatus.INVALID, FailureKind.GOAL, None, None, tuple(unmet),
                                  message=f"after {len(plan)} step{'' if len(plan) == 1 else 's'}, goal{'s' if len(unmet) > 1 else ''} "
                                          f"{' '.join(unmet)} not reached")
        return VALID
