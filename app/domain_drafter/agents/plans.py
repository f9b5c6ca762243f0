"""The plan tools of the warm engine: validate a plan, apply one ground action in a state, ask K* for plans."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from domain_drafter.agents.engine import Result, WarmEngine
from domain_drafter.agents.errors import check_size
from domain_drafter.agents.sources import problem_of
from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.errors import DrafterError, SourceLocation, UsageError
from domain_drafter.core.tasks import TaskState

_MAX_K = 1000


def _problem(engine: WarmEngine, args: Mapping, *, state: str | None = None) -> tuple[object, ProblemFile]:
    """The bundle and the problem the arguments name: 'problem' (a name of the bundle) or 'problem_text';
    `state` (PDDL atoms) replaces its initial state."""
    bundle = engine.bundle(args)
    text = args.get("problem_text")
    check_size("problem_text", text)
    if text is not None:
        inline = engine.sources.bundle(domain_text=bundle.domain_text, problems={"problem": text})
        chosen = inline.problems[0]
    else:
        chosen = problem_of(bundle, args.get("problem"))
    if state is None:
        return bundle, chosen
    check_size("state", state)
    empty = dataclasses.replace(chosen.problem, init=frozenset()).to_pddl()
    head, sep, tail = empty.partition("  (:init\n")
    if not sep:
        raise UsageError("cannot place the state in this problem")
    try:
        inline = engine.sources.bundle(domain_text=bundle.domain_text, problems={"state": head + sep + state + tail})
    except DrafterError as err:
        raise UsageError(f"the state is not a set of ground atoms of this problem: {err.what}",
                         where=_in_state(err, state, bundle.domain, head + sep, tail),
                         hint="give atoms such as '(on a b) (clear a)' over the problem's objects") from None
    return bundle, inline.problems[0]


STATE = Path("state")      # the state argument, located as an inline text of its own
_MAX_ATOMS_TRIED = 500     # a well-formed state's atoms tried one by one to find the one the domain refuses


def _in_state(err: DrafterError, state: str, domain, before: str, after: str) -> SourceLocation | Path:
    """Where in `state` (placed between `before` and `after` in a problem) the error is: the parser's line and
    column taken back into the state, or, for a state that parses but does not fit the domain, the first atom
    that does not fit on its own."""
    from domain_drafter.core.bundle import check_problem
    from domain_drafter.core.reader import read_problem

    where = err.where
    if isinstance(where, SourceLocation):
        text = before + state + after
        lines = text.split("\n")
        offset = sum(len(line) + 1 for line in lines[:where.line - 1]) + where.column - 1
        return SourceLocation.from_offset(state, offset - len(before), STATE)
    for start, end in _atom_spans(state)[:_MAX_ATOMS_TRIED]:
        try:
            check_problem(domain, read_problem(before + state[start:end] + "\n" + after), STATE)
        except DrafterError:
            return SourceLocation.from_offset(state, start, STATE)
    return STATE


def _atom_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the top-level parenthesised groups of `text`, past ';' comments."""
    spans, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == ";":
            i = text.find("\n", i)
            if i < 0:
                break
        elif c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
        i += 1
    return spans


def _step(text: str | None):
    from domain_drafter.core.plan_text import read_plan

    if not text:
        raise UsageError("no 'step' given", hint="give one ground action such as '(pick-up a)'")
    check_size("step", text)
    steps = read_plan(text)
    if len(steps) != 1:
        raise UsageError(f"'step' holds {len(steps)} steps; give exactly one", where="step")
    return steps[0]


def validate_plan(engine: WarmEngine, args: Mapping) -> Result:
    from domain_drafter.core.plan_text import read_plan
    from domain_drafter.planning.validator import PlanValidator

    bundle, problem = _problem(engine, args)
    plan_text = args.get("plan")
    if plan_text is None:
        raise UsageError("no 'plan' given", hint="one '(action arg ...)' per line")
    check_size("plan", plan_text)
    plan = read_plan(plan_text)
    verdict = PlanValidator(bundle.domain, problem.problem).validate(plan)
    out = {"valid": verdict.valid, "problem": problem.name, "steps": len(plan), **verdict.to_dict()}
    if verdict.valid:
        return out, f"Plan valid: {len(plan)} steps reach the goal of {problem.problem.name}."
    return out, f"Plan invalid: {verdict.message}"


def applicable(engine: WarmEngine, args: Mapping) -> Result:
    from domain_drafter.planning.formula_tasks import replay
    from domain_drafter.planning.validator import FailureKind, PlanValidator

    bundle, problem = _problem(engine, args, state=args.get("state"))
    step = _step(args.get("step"))
    shown = f"({' '.join(step)})"
    p = dataclasses.replace(problem.problem, goal=())
    verdict = PlanValidator(bundle.domain, p).validate([step])
    state = sorted(str(a) for a in p.init)
    if not verdict.valid and verdict.kind is not FailureKind.GOAL:
        if verdict.kind is not FailureKind.PRECONDITION:
            raise UsageError(verdict.message, where="step",
                             hint="actions: " + ", ".join(bundle.action_names) if verdict.step else None)
        out = {"applicable": False, "step": shown, "unsatisfied": list(verdict.atoms), "message": verdict.message,
               "state": state, "successor": None}
        return out, f"{shown} is not applicable: {verdict.message}"
    successor = replay(bundle.domain, p, [tuple(x.lower() for x in step)])
    after = sorted(str(a) for a in successor)
    added = sorted(set(after) - set(state))
    deleted = sorted(set(state) - set(after))
    out = {"applicable": True, "step": shown, "unsatisfied": [], "message": "", "state": state, "successor": after,
           "added": added, "deleted": deleted}
    return out, (f"{shown} is applicable; it adds {' '.join(added) or 'nothing'} and deletes "
                 f"{' '.join(deleted) or 'nothing'}")


def plan(engine: WarmEngine, args: Mapping, task: TaskState | None = None) -> Result:
    from domain_drafter.planning.kstar import KStarPlanner

    bundle, problem = _problem(engine, args)
    k = args.get("k") or 1
    if not 1 <= k <= _MAX_K:
        raise UsageError(f"k = {k} is out of range", where="k", hint=f"ask for 1 to {_MAX_K} plans")
    base = engine.evaluator.planner
    planner = KStarPlanner(k=k, time_limit_s=args.get("time_limit") or base.time_limit_s)
    result = planner.plan(bundle.domain.to_pddl(), problem.text, task=task, label=problem.name)
    plans = [[f"({' '.join(step)})" for step in p] for p in result.plans]
    out = {"status": result.status.value, "problem": problem.name, "k": k, "plans": plans,
           "costs": list(result.costs), "message": result.message, "wall_time_s": round(result.wall_time_s, 3)}
    if not result.solved:
        return out, f"K* on {problem.name}: {result.status.value}: {result.message}"
    first = "\n".join(plans[0])
    return out, f"K* found {len(plans)} plan(s) for {problem.name}; the first ({len(plans[0])} steps):\n{first}"
