"""Quick fixes for an answer the semantic checks refuse, from the domain's own declarations alone.

A small model often writes an action that is nearly right but names a predicate of a context
example (logistics' `in-city` in depot), gives a type the domain does not declare, or writes a
literal with the wrong number of arguments. The checks stop there (METHOD 3), so the proof never
sees the rest of the action. `repair_answer` takes out what the checks refuse and keeps the rest:

- the action's name becomes the requested one;
- a parameter of an undeclared type, or left untyped in a typed domain, gets the type its predicates
  expect (the narrowest of its uses, else the first);
- every literal the checks still refuse (an undeclared predicate, the wrong arity, a term that is
  neither a parameter nor a constant, an argument of the wrong type, a negated precondition the
  requirements do not allow) is dropped, with its duplicates.

It uses no reference, so it is fair in the benchmark as in a user's own domain. The result is checked
again and returned only when it passes every check, as data: the repaired action and the edits, in
words. Nothing is applied here; the search in feedback space judges the repair as an answer of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from domain_drafter.core.answers import CheckReport, check_answer
from domain_drafter.core.model import EQUALITY, OBJECT, ActionSchema, Domain, Literal, TypedName
from domain_drafter.core.types import type_members


@dataclass(frozen=True)
class Repair:
    """The answer's action with what the checks refuse taken out."""

    action: ActionSchema
    edits: tuple[str, ...]        # in words, e.g. "dropped (in-city ?from ?c): 'in-city' is not declared"

    @property
    def text(self) -> str:
        return self.action.to_pddl(indent="")

    @property
    def summary(self) -> str:
        return "; ".join(self.edits)


def repair_answer(check: CheckReport, domain: Domain) -> Repair | None:
    """A repaired action for an answer that parsed but failed the semantic checks; None when there is
    nothing to repair (it passed, or did not parse) or the repair would still fail (e.g. no effect left)."""
    action = check.action
    if check.passed or action is None:
        return None
    edits: list[str] = []
    if action.name != check.target:
        edits.append(f"renamed the action from '{action.name}' to '{check.target}'")
        action = replace(action, name=check.target)
    parameters = tuple(_declared_parameter(p, action, domain, edits) for p in action.parameters)
    types = {p.name: p.type for p in parameters}
    kept: dict[str, list[Literal]] = {"precondition": [], "effect": []}
    for part in ("precondition", "effect"):
        for literal in getattr(action, part):
            why = _refused(literal, part, types, domain)
            if why is not None:
                edits.append(f"dropped {literal} from the {part}: {why}")
            elif literal not in kept[part]:
                kept[part].append(literal)
    if not kept["effect"] or not edits:
        return None
    repaired = ActionSchema(action.name, parameters, tuple(kept["precondition"]), tuple(kept["effect"]))
    if not check_answer(repaired.to_pddl(indent=""), domain, check.target).passed:
        return None
    return Repair(repaired, tuple(edits))


def _declared_parameter(param: TypedName, action: ActionSchema, domain: Domain, edits: list[str]) -> TypedName:
    """`param`, or with the type its uses expect when its own type is not declared, or when it is left
    untyped in a typed domain (the most specific type its predicates expect, else the first use's)."""
    declared = all(t == OBJECT or t in domain.types for t in type_members(param.type))
    if declared and not (param.type == OBJECT and domain.types.declared):
        return param
    uses = []
    for literal in (*action.precondition, *action.effect):
        signature = domain.predicate_map.get(literal.atom.predicate)
        if signature is None or len(signature.parameters) != len(literal.atom.args):
            continue
        uses += [(expected.type, literal.atom) for arg, expected in zip(literal.atom.args, signature.parameters)
                 if arg == param.name and expected.type != OBJECT]
    if not uses:
        if declared:
            return param
        edits.append(f"gave {param.name} the type 'object' ('{param.type}' is not declared)")
        return replace(param, type=OBJECT)
    narrowest = next((u for u in uses if all(domain.types.is_subtype(u[0], other) for other, _ in uses)), uses[0])
    why = f"'{param.type}' is not declared" if not declared else "it had no type"
    edits.append(f"gave {param.name} the type '{narrowest[0]}' that {narrowest[1]} expects ({why})")
    return replace(param, type=narrowest[0])


def _refused(literal: Literal, part: str, types: dict[str, str], domain: Domain) -> str | None:
    """Why the checks refuse `literal` in `part` of the action, or None."""
    atom = literal.atom
    for arg in atom.args:
        if arg.startswith("?") and arg not in types:
            return f"{arg} is not a parameter"
        if not arg.startswith("?") and arg not in domain.constant_map:
            return f"'{arg}' is neither a parameter nor a constant"
    if atom.predicate == EQUALITY:
        return None
    signature = domain.predicate_map.get(atom.predicate)
    if signature is None:
        return f"the domain does not declare '{atom.predicate}'"
    if len(atom.args) != signature.arity:
        return f"'{atom.predicate}' takes {signature.arity} argument{'' if signature.arity == 1 else 's'}"
    for arg, expected in zip(atom.args, signature.parameters):
        actual = types[arg] if arg.startswith("?") else domain.constant_map[arg].type
        if not all(domain.types.is_subtype(t, expected.type) for t in type_members(actual)):
            return f"{arg} is of type '{actual}', where '{atom.predicate}' expects '{expected.type}'"
    if (part == "precondition" and not literal.positive and atom.predicate in domain.fluent_predicates
            and not domain.has_requirement("negative-preconditions")):
        return "the domain does not declare :negative-preconditions"
    return None
