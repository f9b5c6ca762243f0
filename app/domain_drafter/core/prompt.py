"""The prompt of METHOD 3: an instruction, k context examples from other domains, the query.

The wording lives in a template file (resources/prompts/paper.toml) that users may edit.
The returned `Prompt` records which examples were used, so a run can be reproduced and shown.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Sequence

from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.descriptions import DescriptionClass, describe_action, placeholders, predicate_line
from domain_drafter.core.errors import DomainError, UsageError
from domain_drafter.core.paths import config_dir

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

DEFAULT_K = 3
_FIELDS = {"predicates", "description", "action"}


@dataclass(frozen=True)
class PromptTemplate:
    """The three pieces of prompt wording; `block` formats one example or the query."""

    instruction: str
    block: str
    separator: str = "\n\n"
    path: Path | None = None
    feedback: str = "\n\nThe PDDL action above is not right: {diagnostic}\nWrite the corrected PDDL action.\n\nPDDL Action:\n"

    def render_feedback(self, diagnostic: str) -> str:
        return self.feedback.replace("{diagnostic}", diagnostic)

    def render_block(self, predicates: str, description: str, action: str) -> str:
        values = {"predicates": predicates, "description": description, "action": action}
        out = self.block
        for key, value in values.items():
            out = out.replace("{" + key + "}", value)
        return out


def default_template_path() -> Path:
    """The user's template if they saved one, else the paper's, shipped with the package."""
    config = config_dir() / "prompt.toml"
    if config.is_file():
        return config
    return Path(str(resources.files("domain_drafter.resources") / "prompts" / "paper.toml"))


def load_template(path: Path | None = None) -> PromptTemplate:
    """Read a prompt template; a clear error if it is not valid or misses a placeholder."""
    path = path or default_template_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read the prompt template: {exc.strerror}", where=path) from None
    except tomllib.TOMLDecodeError as exc:
        raise DomainError(f"the prompt template is not valid TOML: {exc}", where=path) from None
    for key in ("instruction", "block"):
        if not isinstance(data.get(key), str):
            raise DomainError(f"the prompt template needs a '{key}' string", where=path)
    missing = _FIELDS - placeholders(data["block"].replace("{{", "").replace("}}", ""))
    if missing:
        raise DomainError("the prompt template's block misses "
                          + ", ".join("{" + m + "}" for m in sorted(missing)), where=path,
                          hint="see the shipped resources/prompts/paper.toml")
    feedback = data.get("feedback")
    if feedback is not None and "{diagnostic}" not in feedback:
        raise DomainError("the prompt template's feedback misses {diagnostic}", where=path)
    extra = {"feedback": feedback} if feedback is not None else {}
    return PromptTemplate(data["instruction"], data["block"], str(data.get("separator", "\n\n")), path, **extra)


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
