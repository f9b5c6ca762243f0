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

An answer that does not parse gets a first, textual stage (`_recovered`), for what free decoding
writes most (measured on Qwen2.5-Coder 1.5B's free guided search, resources/results/strategies-qwen-coder-1.5b-free):

- prose before the action ("Here is the corrected action: ..."): the action is read from its `(:action`;
- an answer cut off at the token limit, mostly a literal repeated until then: it is cut after its last
  whole literal and its parentheses are closed (its repeats are dropped when it is read);
- stray backticks and brackets around a literal, and `{:action` for `(:action`;
- an action that stops after its precondition, when it revises an earlier answer (a child in the search):
  the earlier answer's effect is kept;
- slips of form inside the action, tried only where the answer as written cannot be read (`_mended`): a literal
  wrapped twice (`((clear ?x))`), quotes in a literal (`(clear ?y")`), the action closed before the `:effect`
  written after it, a section of several literals with no `and`, or with literals after its `and` closed.
  Replayed on the seventh run's trees, these read 13 of the 49 answers the stages above could not (none of the
  13 is proven Equivalent as it stands: they become answers the search can judge and expand).

A parameter of a declared type that none of its uses takes (`(?obj ?room ?g - gripper)` types all three
as grippers) gets the one type all its uses take, when there is one. (Repeated literals are dropped
when the action is read.)

It uses no reference, so it is fair in the benchmark as in a user's own domain. The result is checked
again and returned only when it passes every check, as data: the repaired action and the edits, in
words. Nothing is applied here; the search in feedback space judges the repair as an answer of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from domain_drafter.core.answers import CheckReport, SourceLocation, check_answer, code_positions, literal_problems
from domain_drafter.core.model import OBJECT, ActionSchema, Domain, Literal, TypedName
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


def repair_answer(check: CheckReport, domain: Domain, *, revises: ActionSchema | None = None) -> Repair | None:
    """A repaired action for an answer that failed the checks; None when there is nothing to repair (it
    passed, or nothing of an action can be read from it) or the repair would still fail (no effect left).

    `revises` is the action the answer was written to correct, if any (the parent in the search): an
    answer that stops after its precondition keeps that action's effect."""
    if check.passed:
        return None
    edits: list[str] = []
    if check.action is None:
        recovered = _recovered(check.answer, domain, check.target, revises, edits)
        if recovered is None:
            return None
        check = recovered
        if check.passed:
            return Repair(check.action, tuple(edits))
    action = check.action
    assert action is not None
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
    uses = []
    for literal in (*action.precondition, *action.effect):
        signature = domain.predicate_map.get(literal.atom.predicate)
        if signature is None or len(signature.parameters) != len(literal.atom.args):
            continue
        uses += [(expected.type, literal.atom) for arg, expected in zip(literal.atom.args, signature.parameters)
                 if arg == param.name and expected.type != OBJECT]
    if declared and not (param.type == OBJECT and domain.types.declared):
        refused = [u for u in uses if not all(domain.types.is_subtype(t, u[0]) for t in type_members(param.type))]
        narrowest = next((u for u in uses if all(domain.types.is_subtype(u[0], other) for other, _ in uses)), None)
        if not refused or narrowest is None:
            return param      # fits its uses, or they disagree among themselves (the literals are dropped)
        edits.append(f"gave {param.name} the type '{narrowest[0]}' that {narrowest[1]} expects "
                     f"(it was '{param.type}', which {refused[0][1]} does not take)")
        return replace(param, type=narrowest[0])
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
    """Why the checks refuse `literal` in `part` of the action (the first reason), or None."""
    param_types = {name: type_members(t) for name, t in types.items()}
    problems = literal_problems(literal.atom.predicate, literal.atom.args, literal.positive, part, param_types, domain)
    return problems[0].short if problems else None


_ACTION_START = re.compile(r"[({]\s*:action\b", re.IGNORECASE)
_STRAY = str.maketrans("", "", "`[]{}")
_TRIES = 40        # cut points tried on an answer cut off at the token limit (the parser is fast)


def _recovered(answer: str, domain: Domain, target: str, revises: ActionSchema | None,
               edits: list[str]) -> CheckReport | None:
    """The check of the first action that can be read from an answer that does not parse (see the module's
    docstring), with the edits that read it appended to `edits`; None if there is none."""
    for match in list(_ACTION_START.finditer(answer))[:4]:
        said: list[str] = []
        if answer[:match.start()].strip():
            where = SourceLocation.from_offset(answer, match.start())
            said.append(f"read the action from line {where.line}, column {where.column} (the text before it is not PDDL)")
        text = answer[match.start():]
        if text.startswith("{"):
            text = "(" + text[1:]
            said.append("read '{:action' as '(:action'")
        plain = text.translate(_STRAY)
        if plain != text:
            said.append("took out stray backticks and brackets")
        mended, mends = _mended(plain)
        readings = [(plain, [])] + ([(mended, mends)] if mended != plain else [])
        for reading, mend in readings:      # as written first: a mend is tried only where that fails
            for candidate, how in _closed_candidates(reading):
                attempts = [(candidate, [])]
                grafted = _grafted(candidate, revises)
                if grafted is not None:
                    attempts.append((grafted, ["kept the effect of the answer it revises (this one has none)"]))
                for attempt, more in attempts:
                    check = check_answer(attempt, domain, target)
                    if check.action is not None and check.action.effect:
                        edits += [*said, *mend, *([how] if how else []), *more]
                        return check
    return None


_DOUBLED = re.compile(r"\(\(\s*([^()\s]+(?:\s+[^()\s]+)*)\s*\)\)")   # ((clear ?x)): one literal, twice wrapped
_QUOTES = str.maketrans("", "", "\"'")
_SECTION = re.compile(r":(precondition|effect)\b", re.IGNORECASE)


def _mended(text: str) -> tuple[str, list[str]]:
    """`text` with the slips of form that free decoding makes inside an action mended, and the mends in words:
    a literal wrapped twice (`((clear ?x))`), quotes in a literal (`?y"`, `?truck's`), the action closed before
    the `:effect` that follows it, and a section of several literals with no `and` around them, or with more
    literals after its `and` closed. The text is unchanged where none of these is found."""
    edits: list[str] = []
    mended = _DOUBLED.sub(r"(\1)", text)
    if mended != text:
        edits.append("took out the second pair of parentheses around a literal")
    unquoted = mended.translate(_QUOTES)
    if unquoted != mended:
        edits.append("took out quotes inside the action")
    reopened = _reopened(unquoted)
    if reopened != unquoted:
        edits.append("took out the ')' that closed the action before its :effect")
    joined = reopened
    for name in ("effect", "precondition"):
        joined, said = _conjoined(joined, name)
        edits += said
    return joined, edits


def _reopened(text: str) -> str:
    """`text` without the ')'s that close the action before an `:effect` written after them."""
    for _ in range(3):
        opened = 0
        for i, ch in code_positions(text):
            opened += 1 if ch == "(" else -1
            if opened == 0:
                if not re.match(r"\s*:effect\b", text[i + 1:], re.IGNORECASE):
                    return text
                text = text[:i] + text[i + 1:]
                break
        else:
            return text
    return text


def _groups(text: str, start: int) -> list[tuple[int, int]] | None:
    """The balanced groups `( ... )` side by side from `start` on, until anything else but blanks and comments, or
    a ')' outside them: [(begin, end)]; None when a group is left open (an answer cut off)."""
    groups: list[tuple[int, int]] = []
    depth, begin, after = 0, 0, start
    for i, ch in code_positions(text[start:]):
        i += start
        if depth == 0:
            if ch == ")" or re.sub(r";[^\n]*", "", text[after:i]).strip():
                return groups
            begin = i
        depth += 1 if ch == "(" else -1
        if depth == 0:
            groups.append((begin, i + 1))
            after = i + 1
    return None if depth else groups


def _conjoined(text: str, section: str) -> tuple[str, list[str]]:
    """`text` with the `:section`'s literals in one `(and ...)` when it holds several groups side by side."""
    match = next((m for m in _SECTION.finditer(text) if m.group(1).lower() == section), None)
    if match is None:
        return text, []
    groups = _groups(text, match.end())
    if groups is None or len(groups) < 2:
        return text, []
    parts = [text[b:e] for b, e in groups]
    head = parts[0]
    if re.match(r"\(\s*and\b", head, re.IGNORECASE):
        inner = [head[:-1].rstrip(), *parts[1:]]     # the literals after the closed `and` go inside it
        joined = " ".join(inner) + ")"
        said = f"put the literals written after the :{section}'s closed (and ...) inside it"
    else:
        joined = "(and " + " ".join(parts) + ")"
        said = f"joined the :{section}'s {len(parts)} literals in one (and ...)"
    return text[:groups[0][0]] + joined + text[groups[-1][1]:], [said]


def _closed_candidates(text: str):
    """(text, edit) pairs to parse, best first: the action up to its matching ')', or, when its parentheses
    are never all closed, the text cut after each ')' from the last one back, with the open ones closed."""
    opened = 0
    closes: list[tuple[int, int]] = []     # (offset of a ')', parentheses still open after it)
    for i, ch in code_positions(text):
        opened += 1 if ch == "(" else -1
        if opened == 0:
            yield text[:i + 1], None
            return
        if ch == ")":
            closes.append((i, opened))
    for i, still_open in reversed(closes[-_TRIES:]):
        yield text[:i + 1] + ")" * still_open, f"closed the {still_open} parenthes{'i' if still_open == 1 else 'e'}s " \
            "left open (the answer was cut off)"


def _grafted(text: str, revises: ActionSchema | None) -> str | None:
    """`text` (one action, balanced) with the effect of `revises` put before its last ')', when it has none."""
    if revises is None or not revises.effect or ":effect" in text.lower() or not text.endswith(")"):
        return None
    effect = revises.to_pddl(indent="")
    at = effect.lower().find(":effect")
    return text[:-1] + " " + effect[at:-1] + ")" if at >= 0 else None

