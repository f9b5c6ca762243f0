"""Plans in words: each step as a sentence from the action's summary, with what it changes.

"(unstack c a)" becomes "unstack c a: the hand lifts block c off block a; now the hand is
holding block c, nothing is on top of block a, block c is not on top of block a". A step that
cannot happen says what stands in its way ("block a is not on the table"), and the replay
stops there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain_drafter.core.descriptions import Descriptions, describe_literal, fill
from domain_drafter.core.model import EQUALITY, Atom, Domain, Literal, Problem


@dataclass(frozen=True)
class StepInWords:
    """One step of a plan, told."""

    number: int
    call: str                       # "unstack c a"
    sentence: str                   # "the hand lifts block c off block a"
    now: tuple[str, ...] = ()       # what became true or false, as sentences
    failed: str | None = None       # why the step cannot happen, if it cannot

    @property
    def text(self) -> str:
        head = f"{self.call}: {self.sentence}" if self.sentence != self.call else self.call
        if self.failed is not None:
            return f"{head}; this cannot happen: {self.failed}"
        return f"{head}; now {', '.join(self.now)}" if self.now else f"{head}; nothing changes"


@dataclass(frozen=True)
class PlanInWords:
    steps: tuple[StepInWords, ...]
    goal_unmet: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.goal_unmet and all(s.failed is None for s in self.steps)

    def lines(self) -> list[str]:
        out = [f"{s.number}. {s.text}" for s in self.steps]
        if self.steps and self.steps[-1].failed is not None:
            return out
        out.append("the goal is reached" if not self.goal_unmet
                   else f"the goal is not reached: {', '.join(self.goal_unmet)}")
        return out


def _sentence(summary: str | None, values: dict[str, str], call: str) -> str:
    if not summary:
        return call
    text = fill(summary, values).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def plan_in_words(domain: Domain, descriptions: Descriptions, problem: Problem,
                  plan: Sequence[Sequence[str]]) -> PlanInWords:
    """Replay `plan` from the problem's initial state, telling each step and its changes."""
    state = set(problem.init)

    def say(literal: Literal) -> str:
        return describe_literal(literal, domain, descriptions)

    steps: list[StepInWords] = []
    for number, raw in enumerate(plan, start=1):
        step = tuple(str(x).lower() for x in raw)
        call = " ".join(step)
        action = domain.action_map.get(step[0]) if step else None
        if action is None or len(step) - 1 != len(action.parameters):
            why = "the domain has no such action" if action is None else \
                f"'{action.name}' takes {len(action.parameters)} arguments"
            steps.append(StepInWords(number, call, call, failed=why))
            return PlanInWords(tuple(steps))
        binding = dict(zip(action.parameter_names, step[1:]))
        values = {k.lstrip("?"): v for k, v in binding.items()}
        sentence = _sentence(descriptions.actions.get(action.name), values, call)

        def ground(atom: Atom, binding: dict[str, str] = binding) -> Atom:   # this step's binding, bound now
            return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))

        unmet: list[str] = []
        for literal in action.precondition:
            atom = ground(literal.atom)
            holds = (atom.args[0] == atom.args[-1]) if atom.predicate == EQUALITY else atom in state
            if holds != literal.positive:
                # say what holds instead: "block a is not on the table" for an unmet (ontable a)
                unmet.append(str(Literal(atom, not literal.positive)) if atom.predicate == EQUALITY
                             else say(Literal(atom, not literal.positive)))
        if unmet:
            steps.append(StepInWords(number, call, sentence, failed=", ".join(unmet)))
            return PlanInWords(tuple(steps))
        deleted = {ground(a) for a in action.delete}
        added = {ground(a) for a in action.add}
        after = (state - deleted) | added
        changes: dict[str, None] = {}   # in the order the effect is written
        for literal in action.effect:
            atom = ground(literal.atom)
            if literal.positive and atom in after and atom not in state:
                changes[say(Literal(atom))] = None
            elif not literal.positive and atom in state and atom not in after:
                changes[say(Literal(atom, False))] = None
        steps.append(StepInWords(number, call, sentence, tuple(changes)))
        state = after
    unmet_goal = tuple(say(l) for l in problem.goal if (l.atom in state) != l.positive)
    return PlanInWords(tuple(steps), unmet_goal)
