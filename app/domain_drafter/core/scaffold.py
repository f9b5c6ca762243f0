"""Starter descriptions for a domain that has none, and the writer for descriptions.toml files.

`describe` builds a sentence per predicate and a summary per action from the names of the
predicates, variables and types (`(on ?x - block ?y - block)` -> "block {x} is on block {y}").
They are guesses, each marked with a `# REVIEW` comment line (the loader accepts no extra
keys, and comments survive any TOML reader), so an author edits instead of writing from nothing.
The result always loads with `load_descriptions` and fits the domain it came from.
"""

from __future__ import annotations

import json
import re

from domain_drafter.core.descriptions import Descriptions, PredicateText
from domain_drafter.core.model import OBJECT, Domain, PredicateSignature, TypedName

REVIEW_NOTE = ("# Starter descriptions written by `domain-drafter describe` from the names in domain.pddl.\n"
               "# Each sentence is a guess: read it, make it say what the predicate or action means,\n"
               "# then delete its REVIEW line. Placeholders {x} must be the predicate's (or action's)\n"
               "# variables without the '?'. An action summary must name no predicate.\n")

REVIEW_MARK = "# REVIEW: guessed from the names; fix it, then delete this line"
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def words_of(name: str) -> list[str]:
    """`isHomeBase` -> ['is', 'home', 'base']; `at-robby` -> ['at', 'robby']."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[\s_\-]+", spaced) if w]


def original_spelling(name: str, text: str | None) -> str:
    """The name as the author wrote it in `text` (our model lower-cases names; camelCase carries words)."""
    if text:
        m = re.search(r"(?<![\w\-?])(" + re.escape(name) + r")(?![\w\-])", text, re.IGNORECASE)
        if m:
            return m.group(1)
    return name


def _thing(param: TypedName) -> str:
    var = "{" + param.name.lstrip("?") + "}"
    return var if param.type == OBJECT else f"{param.type} {var}"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def predicate_sentences(signature: PredicateSignature, spelling: str) -> PredicateText:
    """A guessed `text` and `negated` template for one predicate."""
    words = words_of(spelling)
    if words and words[0] == "is" and len(words) > 1:
        words = words[1:]  # isWater ?loc: "location {loc} is water"
    phrase = " ".join(words)
    params = list(signature.parameters)
    if not params:
        return PredicateText(f"{phrase} holds", f"{phrase} does not hold")
    if len(params) == 1:
        subject = _thing(params[0])
        return PredicateText(f"{subject} is {phrase}", f"{subject} is not {phrase}")
    if len(params) == 2:
        a, b = (_thing(p) for p in params)
        return PredicateText(f"{a} is {phrase} {b}", f"{a} is not {phrase} {b}")
    things = _join([_thing(p) for p in params])
    return PredicateText(f"{phrase} holds for {things}", f"{phrase} does not hold for {things}")


def action_summary(name_spelling: str, parameters: tuple[TypedName, ...]) -> str:
    """A guessed one-line summary: the action's name as a verb, then its parameters."""
    verb = " ".join(words_of(name_spelling)).capitalize() or name_spelling
    if not parameters:
        return f"{verb}."
    return f"{verb}: {_join([_thing(p) for p in parameters])}."


def scaffold(domain: Domain, domain_text: str | None = None) -> Descriptions:
    """Starter descriptions for every predicate and action of `domain`."""
    predicates = {p.name: predicate_sentences(p, original_spelling(p.name, domain_text)) for p in domain.predicates}
    actions = {a.name: action_summary(original_spelling(a.name, domain_text), a.parameters) for a in domain.actions}
    return Descriptions(f"The {domain.name} domain.", predicates, actions)


def describe(domain: Domain, domain_text: str | None = None) -> str:
    """The text of a starter descriptions.toml for `domain`, every entry under a REVIEW comment."""
    return descriptions_toml(scaffold(domain, domain_text), domain, review=True)


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # JSON string escapes are valid TOML basic strings


def descriptions_toml(descriptions: Descriptions, domain: Domain, *, review: bool = False) -> str:
    """Write `descriptions` as a descriptions.toml, entries in the domain's order (others after)."""
    flag = REVIEW_MARK + "\n" if review else ""
    out = [REVIEW_NOTE if review else f"# NL descriptions for {domain.name}: one template per predicate, "
                                      "one summary per action.\n",
           f"{flag}[domain]\nname = {_string(domain.name)}\nsummary = {_string(descriptions.summary)}\n"]
    order = [p.name for p in domain.predicates]
    order += [n for n in descriptions.predicates if n not in order]
    for name in order:
        entry = descriptions.predicates.get(name)
        if entry is None:
            continue
        out.append(f"{flag}[predicates.{_key(name)}]\ntext = {_string(entry.text)}\n"
                   f"negated = {_string(entry.negated)}\n")
    order = [a.name for a in domain.actions]
    order += [n for n in descriptions.actions if n not in order]
    for name in order:
        summary = descriptions.actions.get(name)
        if summary is not None:
            out.append(f"{flag}[actions.{_key(name)}]\nsummary = {_string(summary)}\n")
    return "\n".join(out)
