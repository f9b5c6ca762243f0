"""The prompt of METHOD 3: an instruction, k context examples from other domains, the query.

The wording lives in a template file (resources/prompts/paper.toml) that users may edit.
The returned `Prompt` records which examples were used, so a run can be reproduced and shown.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass, describe_action, predicate_line
from domain_drafter.core.errors import UsageError
from domain_drafter.core.paths import config_dir
from domain_drafter.core.toml_source import TomlSource, describe_value, template_fields

DEFAULT_K = 3
_FIELDS = frozenset({"predicates", "description", "action"})


_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def render(template: str, values: Mapping[str, str]) -> str:
    """Substitute `{name}` fields in one pass (`{{`/`}}` are literal braces).

    One pass matters: a value (a predicate's text, a description, a model's answer) may itself
    hold `{description}` or `{action}`, and must reach the prompt as written.
    """
    def one(m: re.Match) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        return values.get(m.group(1), m.group(0))

    return _FIELD.sub(one, template)


@dataclass(frozen=True)
class PromptTemplate:
    """The three pieces of prompt wording; `block` formats one example or the query."""

    instruction: str
    block: str
    separator: str = "\n\n"
    path: Path | None = None
    feedback: str = "\n\nThe PDDL action above is not right: {diagnostic}\nWrite the corrected PDDL action.\n\nPDDL Action:\n"

    def render_feedback(self, diagnostic: str) -> str:
        return render(self.feedback, {"diagnostic": diagnostic})

    def render_block(self, predicates: str, description: str, action: str) -> str:
        return render(self.block, {"predicates": predicates, "description": description, "action": action})


def default_template_path() -> Path:
    """The user's template if they saved one, else the paper's, shipped with the package."""
    config = config_dir() / "prompt.toml"
    if config.is_file():
        return config
    return Path(str(resources.files("domain_drafter.resources") / "prompts" / "paper.toml"))


# key -> the placeholders it must hold (all of them) and may hold (no others)
_TEMPLATE_KEYS: dict[str, frozenset[str]] = {
    "instruction": frozenset(), "block": _FIELDS, "separator": frozenset(), "feedback": frozenset({"diagnostic"}),
}


def load_template(path: Path | None = None) -> PromptTemplate:
    """Read and validate a prompt template; every problem is a DomainError at file:line."""
    path = path or default_template_path()
    if not path.is_file():
        raise UsageError("no such prompt template file", where=path, hint="give the path of a .toml template")
    source = TomlSource.read(path, "prompt template")
    data = source.data
    for key, value in data.items():
        if key not in _TEMPLATE_KEYS:
            raise source.fail(f"the prompt template has an unknown key '{key}' "
                              f"(it holds: {', '.join(_TEMPLATE_KEYS)})", key)
        if not isinstance(value, str):
            raise source.fail(f"the prompt template's '{key}' must be a string, not {describe_value(value)}", key)
        try:
            fields = template_fields(value) if key in ("block", "feedback") else set()
        except ValueError as exc:
            raise source.fail(f"the prompt template's '{key}' has {exc}", key) from None
        allowed = _TEMPLATE_KEYS[key]
        unknown, missing = fields - allowed, allowed - fields
        if unknown:
            raise source.fail(f"the prompt template's '{key}' uses "
                              + ", ".join("{" + u + "}" for u in sorted(unknown))
                              + (f"; it may use only {', '.join('{' + a + '}' for a in sorted(allowed))}"
                                 if allowed else "; it takes no placeholders"), key,
                              hint="see the shipped resources/prompts/paper.toml")
        if missing:
            raise source.fail(f"the prompt template's {key} misses "
                              + ", ".join("{" + m + "}" for m in sorted(missing)), key,
                              hint="see the shipped resources/prompts/paper.toml")
    for key in ("instruction", "block"):
        if key not in data:
            raise source.fail(f"the prompt template needs a '{key}' string", key,
                              hint="see the shipped resources/prompts/paper.toml")
    extra = {"feedback": data["feedback"]} if "feedback" in data else {}
    return PromptTemplate(data["instruction"], data["block"], data.get("separator", "\n\n"), path, **extra)


@dataclass(frozen=True)
class PromptExample:
    """One context example: which action of which domain, and how it was shown."""

    domain: str
    action: str
    description: str
    pddl: str


@dataclass(frozen=True)
class Prompt:
    """A complete prompt plus everything needed to reproduce or display it."""

    text: str
    domain: str
    action: str
    description_class: DescriptionClass
    seed: int
    description: str
    examples: tuple[PromptExample, ...] = field(default=())

    def to_dict(self) -> dict:
        return {
            "domain": self.domain, "action": self.action, "class": self.description_class.value,
            "seed": self.seed, "description": self.description,
            "examples": [{"domain": e.domain, "action": e.action} for e in self.examples],
            "text": self.text,
        }


def allowed_predicates(bundle: DomainBundle) -> str:
    descriptions = bundle.require_descriptions()
    return "\n".join(predicate_line(p.name, bundle.domain, descriptions) for p in bundle.domain.predicates)


def build_prompt(
    bundle: DomainBundle,
    action: str,
    pool: Sequence[DomainBundle],
    description_class: DescriptionClass = DescriptionClass.BASE,
    seed: int = 0,
    k: int = DEFAULT_K,
    template: PromptTemplate | None = None,
) -> Prompt:
    """The prompt for `action` of `bundle`, with k examples drawn uniformly from the OTHER domains of `pool`."""
    template = template or load_template()
    action = bundle.require_action(action)
    descriptions = bundle.require_descriptions()
    candidates = [(b, a) for b in pool if b.domain.name != bundle.domain.name for a in b.action_names]
    if len(candidates) < k:
        raise UsageError(f"only {len(candidates)} example actions in other domains, but k = {k}",
                         hint="lower k or add domains to the example pool")
    rng = random.Random(f"{bundle.domain.name}/{action}/{description_class.value}/{seed}")
    drawn = rng.sample(candidates, k)
    examples = tuple(
        PromptExample(
            domain=example_bundle.name,
            action=example_action,
            description=describe_action(example_bundle.domain, example_bundle.require_descriptions(),
                                        example_action, description_class, seed),
            pddl=example_bundle.domain.action(example_action).to_pddl(indent=""),
        )
        for example_bundle, example_action in drawn
    )
    description = describe_action(bundle.domain, descriptions, action, description_class, seed)
    blocks = [template.instruction.strip()]
    for (example_bundle, _), example in zip(drawn, examples):
        blocks.append(template.render_block(allowed_predicates(example_bundle), example.description, example.pddl))
    query = template.render_block(allowed_predicates(bundle), description, "").rstrip() + "\n"
    blocks.append(query)
    return Prompt(template.separator.join(blocks), bundle.name, action, description_class, seed, description,
                  examples)
