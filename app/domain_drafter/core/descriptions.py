"""Natural-language descriptions: predicate templates, action summaries, the three description classes.

A domain author writes one template per predicate (`block {x} is clear`) and one summary per
action. The base, flipped and random descriptions (METHOD 2) are generated from those,
deterministically for a seed, so they exist for any loaded domain.
"""

from __future__ import annotations

import enum
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from domain_drafter.core.errors import UsageError
from domain_drafter.core.model import ActionSchema, Atom, Domain, Literal
from domain_drafter.core.toml_source import TomlSource, describe_value, template_fields
from domain_drafter.core.types import type_phrase


class DescriptionClass(enum.Enum):
    """How much of the action the description gives away (METHOD 2)."""

    BASE = "base"
    FLIPPED = "flipped"
    RANDOM = "random"

    @classmethod
    def parse(cls, text: str) -> DescriptionClass:
        try:
            return cls(text.lower())
        except ValueError:
            raise UsageError(f"unknown description class '{text}'",
                             hint="valid classes: " + ", ".join(c.value for c in cls)) from None


@dataclass(frozen=True)
class PredicateText:
    """How to say a predicate holds (`text`) and does not hold (`negated`), with `{var}` placeholders."""

    text: str
    negated: str


@dataclass(frozen=True)
class Descriptions:
    """The NL side of a domain bundle; keys are lower-case PDDL names."""

    summary: str
    predicates: Mapping[str, PredicateText]
    actions: Mapping[str, str]
    path: Path | None = None
    # "predicates.<name>" / "actions.<name>" -> the line defining it, for messages that point there
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    def line_of(self, section: str, name: str) -> int | None:
        return self.lines.get(f"{section}.{name}")


_TOP_LEVEL = ("domain", "predicates", "actions")


def load_descriptions(path: Path) -> Descriptions:
    """Read and validate a descriptions.toml; every problem is a DomainError at file:line."""
    source = TomlSource.read(path, "descriptions file")
    data = source.data
    for key in data:
        if key not in _TOP_LEVEL:
            raise source.fail(f"unknown table '{key}'; a descriptions file holds: {', '.join(_TOP_LEVEL)}", key)
    for key in _TOP_LEVEL:
        if key in data and not isinstance(data[key], dict):
            raise source.fail(f"'{key}' must be a table ([{key}] ...), not {describe_value(data[key])}", key)
    domain = data.get("domain", {})
    for key, value in domain.items():
        if key not in ("name", "summary"):
            raise source.fail(f"[domain] has an unknown key '{key}' (it may hold name and summary)", "domain", key)
        if not isinstance(value, str):
            raise source.fail(f"[domain] {key} must be a string, not {describe_value(value)}", "domain", key)
    preds: dict[str, PredicateText] = {}
    lines: dict[str, int] = {}
    for section in ("predicates", "actions"):
        for name, entry in data.get(section, {}).items():
            lines[f"{section}.{name.lower()}"] = source.where(section, name).line
            if section == "predicates":
                preds[name.lower()] = _predicate_text(source, name, entry)
    actions = {name.lower(): _action_summary(source, name, entry) for name, entry in data.get("actions", {}).items()}
    return Descriptions(str(domain.get("summary", "")), preds, actions, path, lines)


def _predicate_text(source: TomlSource, name: str, entry: object) -> PredicateText:
    where = ("predicates", name)
    hint = 'e.g. text = "block {x} is clear"'
    if isinstance(entry, str):
        entry = {"text": entry}
    if not isinstance(entry, dict):
        raise source.fail(f"[predicates.{name}] must be a string or a table with 'text', "
                          f"not {describe_value(entry)}", *where, hint=hint)
    for key, value in entry.items():
        if key not in ("text", "negated"):
            raise source.fail(f"[predicates.{name}] has an unknown key '{key}' (it may hold text and negated)",
                              *where, key, hint=hint)
        if not isinstance(value, str):
            raise source.fail(f"[predicates.{name}] {key} must be a string, not {describe_value(value)}",
                              *where, key, hint=hint)
        _check_fields(source, f"[predicates.{name}] {key}", value, *where, key)
    if "text" not in entry:
        raise source.fail(f"[predicates.{name}] needs a 'text' string", *where, hint=hint)
    text = entry["text"]
    return PredicateText(text, entry.get("negated") or f"it is not the case that {text}")


def _action_summary(source: TomlSource, name: str, entry: object) -> str:
    where: tuple[str, ...] = ("actions", name)
    hint = 'e.g. summary = "The hand puts block {x} down on the table."'
    label = f"[actions.{name}]"
    if isinstance(entry, dict):
        unknown = [k for k in entry if k != "summary"]
        if unknown:
            raise source.fail(f"{label} has an unknown key '{unknown[0]}' (it holds summary)",
                              *where, unknown[0], hint=hint)
        if "summary" not in entry:
            raise source.fail(f"{label} needs a 'summary' string", *where, hint=hint)
        entry, where, label = entry["summary"], (*where, "summary"), f"{label} summary"
    if not isinstance(entry, str):
        raise source.fail(f"{label} must be a string, not {describe_value(entry)}", *where, hint=hint)
    if not entry.strip():
        raise source.fail(f"{label} is empty", *where, hint=hint)
    _check_fields(source, label, entry, *where)
    return entry.strip()


def _check_fields(source: TomlSource, label: str, template: str, *keys: str) -> None:
    try:
        template_fields(template)
    except ValueError as exc:
        raise source.fail(f"{label} has {exc}", *keys) from None


def placeholders(template: str) -> set[str]:
    """The `{name}` fields of a template (none if it is malformed; loading rejects those)."""
    try:
        return template_fields(template)
    except ValueError:
        return set()


def consistency_problems(descriptions: Descriptions, domain: Domain) -> list[str]:
    """Everything missing or mismatched between descriptions and domain, as `file[:line]: sentence`."""
    where = descriptions.path.name if descriptions.path else "descriptions"

    def at(section: str, name: str) -> str:
        line = descriptions.line_of(section, name)
        return f"{where}:{line}" if line is not None else where

    problems: list[str] = []
    for pred in domain.predicates:
        entry = descriptions.predicates.get(pred.name)
        variables = {p.name.lstrip("?") for p in pred.parameters}
        if entry is None:
            problems.append(f"{where}: no [predicates.{pred.name}] template for {pred}")
            continue
        for label, template in (("text", entry.text), ("negated", entry.negated)):
            unknown = placeholders(template) - variables
            if unknown:
                problems.append(f"{at('predicates', pred.name)}: [predicates.{pred.name}] {label} uses "
                                f"{', '.join('{' + u + '}' for u in sorted(unknown))}, but {pred} has variables "
                                f"{', '.join(sorted(variables)) or 'none'}")
    for action in domain.actions:
        summary = descriptions.actions.get(action.name)
        if summary is None:
            problems.append(f"{where}: no [actions.{action.name}] summary")
            continue
        unknown = placeholders(summary) - {p.lstrip("?") for p in action.parameter_names}
        if unknown:
            problems.append(f"{at('actions', action.name)}: [actions.{action.name}] summary uses "
                            f"{', '.join('{' + u + '}' for u in sorted(unknown))}, which is no parameter")
    return problems


_FILL = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """Substitute `{var}` fields in one pass; `{{`/`}}` are literal braces; unknown fields stay as written.

    One pass: text substituted for a field is never read again, so a value holding `{y}` stays `{y}`.
    """
    def one(m: re.Match) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        return values.get(m.group(1), m.group(0))

    return _FILL.sub(one, template)


def describe_literal(literal: Literal, domain: Domain, descriptions: Descriptions, *, negate: bool = False) -> str:
    """The sentence for a literal, e.g. `block ?x is clear`; `negate` flips it."""
    atom: Atom = literal.atom
    positive = literal.positive != negate
    signature = domain.predicate_map.get(atom.predicate)
    entry = descriptions.predicates.get(atom.predicate)
    if signature is None or entry is None:
        text = str(atom)
        return text if positive else f"not {text}"
    values = {p.name.lstrip("?"): arg for p, arg in zip(signature.parameters, atom.args)}
    return fill(entry.text if positive else entry.negated, values)


def predicate_line(name: str, domain: Domain, descriptions: Descriptions) -> str:
    """`(on ?x - block ?y - block) : block ?x is on top of block ?y` for the prompt."""
    signature = domain.predicate_map[name]
    typed = " ".join(f"{p.name} - {p.type}" for p in signature.parameters)
    head = f"({signature.name}{' ' + typed if typed else ''})"
    entry = descriptions.predicates.get(name)
    text = fill(entry.text, {p.name.lstrip("?"): p.name for p in signature.parameters}) if entry else ""
    return f"{head} : {text}"


def base_description(action: ActionSchema, descriptions: Descriptions) -> str:
    """Name, typed parameters and the author's one-line summary; names no predicate."""
    params = [f"{p.name} of type {type_phrase(p.type)}" for p in action.parameters]
    if not params:
        head = f'The action "{action.name}" takes no parameters.'
    elif len(params) == 1:
        head = f'The action "{action.name}" takes one parameter: {params[0]}.'
    else:
        head = f'The action "{action.name}" takes {len(params)} parameters: {", ".join(params[:-1])} and {params[-1]}.'
    summary = descriptions.actions.get(action.name, "")
    summary = fill(summary, {p.lstrip("?"): p for p in action.parameter_names})
    return f"{head} {summary}".strip()


def describe_action(domain: Domain, descriptions: Descriptions, action_name: str,
                    description_class: DescriptionClass, seed: int = 0) -> str:
    """N(a) in the given class, deterministic for (domain, action, class, seed)."""
    action = domain.action(action_name)
    text = base_description(action, descriptions)
    flipped = [a for a in action.precondition if a.positive and a.atom in action.delete]
    if description_class is DescriptionClass.BASE or not flipped:
        return text
    if description_class is DescriptionClass.FLIPPED:
        return f"{text} {_conditions(flipped, domain, descriptions)}"
    # random: as many items as flipped has, drawn from pre(a), add(a), del(a)
    items = ([("pre", l) for l in action.precondition]
             + [("eff", l) for l in action.effect])
    rng = random.Random(f"{domain.name}/{action.name}/random/{seed}")
    drawn = sorted(rng.sample(range(len(items)), min(len(flipped), len(items))))
    conditions = [items[i][1] for i in drawn if items[i][0] == "pre"]
    outcomes = [items[i][1] for i in drawn if items[i][0] == "eff"]
    parts = [text]
    if conditions:
        parts.append(_conditions(conditions, domain, descriptions))
    if outcomes:
        said = [describe_literal(l, domain, descriptions) for l in outcomes]
        parts.append(f"After the action, {_join(said)}.")
    return " ".join(parts)


def _conditions(literals: list[Literal], domain: Domain, descriptions: Descriptions) -> str:
    said = [describe_literal(l, domain, descriptions) for l in literals]
    return f"The action can only happen if {_join(said)}."


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
