"""The language of one well-formed PDDL action for a target, as a llama.cpp GBNF grammar and a prefix matcher.

Built from the loaded domain and the target action: the target's name, declared types,
allowed predicates with their exact arity, and, with the signature locked to the reference
action's parameters (the default), only declared variables of fitting types. Negated
preconditions are offered only where the domain allows them. So an answer in this
language passes the syntax and semantic checks by construction.

One description renders two ways: GBNF text (for llama.cpp's grammar sampler or a server's
`grammar` field) and a regular expression with partial matching (`accepts_prefix`,
`is_complete`) for checking answers and prefixes in pure Python. The local backend keeps
constrained decoding cheap by asking the grammar about the greedy token first and
constraining the whole vocabulary only when that token is rejected (llm/llama.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

import regex

from domain_drafter.core.model import EQUALITY, OBJECT, ActionSchema, Domain, typed_list
from domain_drafter.llm.literal_guard import changes_what_it_negates

# Each section holds at most this many literals, so an answer always fits the paper's 300-token budget.
DEFAULT_MAX_LITERALS = 10
# literal_sets() gives up (None: no literal guard) beyond this many literals in a section.
MAX_ENUMERATED_LITERALS = 50_000
_VARIABLE = "?[a-z][a-z0-9_-]*"


@dataclass(frozen=True)
class _Lit:
    text: str


@dataclass(frozen=True)
class _Alt:
    options: tuple


@dataclass(frozen=True)
class _Seq:
    parts: tuple


@dataclass(frozen=True)
class _Rep:
    body: object
    low: int
    high: int


@dataclass(frozen=True)
class _Ref:
    name: str


@dataclass(frozen=True)
class _Pattern:
    """A character class pattern such as a free variable name: (regex, gbnf)."""

    regex: str
    gbnf: str


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _rule_name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9-]", "-", text)


class ActionGrammar:
    """One PDDL action for `target` of `domain`, in the layout of the prompt's examples."""

    def __init__(self, domain: Domain, target: str, *, lock_signature: bool = True,
                 max_literals: int = DEFAULT_MAX_LITERALS):
        self.domain = domain
        self.reference: ActionSchema = domain.action(target)
        self.lock_signature = lock_signature
        self.max_literals = max_literals
        self._rules: dict[str, object] = {}
        self._build()

    # ------------------------------------------------------------------ structure
    def _argument_rule(self, type_name: str) -> str:
        name = f"arg-{_rule_name(type_name)}"
        if name not in self._rules:
            options = []
            if self.lock_signature:
                options += [_Lit(p.name) for p in self.reference.parameters
                            if self.domain.types.is_subtype(p.type, type_name)]
            else:
                options.append(_Pattern(r"\?[a-z][a-z0-9_-]*", '"?" [a-z] [a-z0-9_-]*'))
            options += [_Lit(c.name) for c in self.domain.constants if self.domain.types.is_subtype(c.type, type_name)]
            self._rules[name] = _Alt(tuple(options)) if options else None
        return name

    def _atom_rule(self, name: str, predicates) -> str | None:
        options = []
        for pred in predicates:
            slots = [self._argument_rule(p.type) for p in pred.parameters]
            if any(self._rules[s] is None for s in slots):
                continue  # no declared variable or constant fits a slot: the predicate cannot appear
            parts: list = [_Lit(pred.name)]
            for slot in slots:
                parts += [_Lit(" "), _Ref(slot)]
            options.append(_Seq(tuple(parts)))
        if not options:
            return None
        self._rules[name] = _Seq((_Lit("("), _Alt(tuple(options)), _Lit(")")))
        return name

    def _build(self) -> None:
        domain = self.domain
        allow_negation = domain.has_requirement("negative-preconditions")
        # Without :negative-preconditions only a static predicate may be negated, and an answer is judged with
        # itself in place (issue 43): so the grammar reads the domain's OTHER actions only, never the target's own
        # body (hidden in a blind search, and a leak in any other). A predicate they change may not be negated;
        # one they negate may not be changed (that would make their negations negations of a fluent). An answer
        # that negates a predicate and changes it too is refused by the literal guard (`static_negations`).
        others = [a for a in domain.actions if a.name != self.reference.name]
        changed = {lit.atom.predicate for a in others for lit in a.effect}
        negated = {lit.atom.predicate for a in others for lit in a.precondition
                   if not lit.positive and lit.atom.predicate != EQUALITY}
        negatable = [p for p in domain.predicates if allow_negation or p.name not in changed]
        atom = self._atom_rule("atom", domain.predicates)
        neg_atom = self._atom_rule("neg-atom", negatable)
        pre_options: list = [_Ref(atom)] if atom else []
        if neg_atom:
            pre_options.append(_Seq((_Lit("(not "), _Ref(neg_atom), _Lit(")"))))
        if domain.has_requirement("equality"):
            eq_arg = self._argument_rule(OBJECT)
            if self._rules[eq_arg] is not None:
                eq = _Seq((_Lit(f"({EQUALITY} "), _Ref(eq_arg), _Lit(" "), _Ref(eq_arg), _Lit(")")))
                self._rules["equality"] = eq
                pre_options += [_Ref("equality"), _Seq((_Lit("(not "), _Ref("equality"), _Lit(")")))]
        changeable = domain.predicates if allow_negation else [p for p in domain.predicates if p.name not in negated]
        eff_atom = self._atom_rule("eff-atom", changeable) if not allow_negation else atom
        eff_options: list = [_Ref(eff_atom), _Seq((_Lit("(not "), _Ref(eff_atom), _Lit(")")))] if eff_atom else []
        self._rules["pre-literal"] = _Alt(tuple(pre_options))
        self._rules["eff-literal"] = _Alt(tuple(eff_options))

        def conjunction(literal: str, options: list) -> _Seq:
            if not options:
                return _Seq((_Lit("(and)"),))
            return _Seq((_Lit("(and"), _Rep(_Seq((_Lit(" "), _Ref(literal))), 0, self.max_literals), _Lit(")")))

        if self.lock_signature:
            parameters: object = _Lit(" ".join(typed_list(self.reference.parameters)))
        else:
            types = [_Lit(t) for t in (*domain.types.declared, OBJECT)]
            one = _Seq((_Pattern(r"\?[a-z][a-z0-9_-]*", '"?" [a-z] [a-z0-9_-]*'), _Lit(" - "), _Alt(tuple(types))))
            parameters = _Rep(_Seq((one, _Rep(_Seq((_Lit(" "), one)), 0, 7))), 0, 1)
        self._rules["root"] = _Seq((
            _Lit(f"(:action {self.reference.name}\n  :parameters ("), parameters,
            _Lit(")\n  :precondition "), conjunction("pre-literal", pre_options),
            _Lit("\n  :effect "), conjunction("eff-literal", eff_options), _Lit(")"),
        ))

    # ------------------------------------------------------------------ renderings
    def to_gbnf(self) -> str:
        """The grammar in llama.cpp's GBNF, root rule first."""
        def render(node) -> str:
            if isinstance(node, _Lit):
                return _gbnf_literal(node.text)
            if isinstance(node, _Pattern):
                return node.gbnf
            if isinstance(node, _Ref):
                return node.name
            if isinstance(node, _Seq):
                return " ".join(render(p) for p in node.parts)
            if isinstance(node, _Alt):
                return "(" + " | ".join(render(o) for o in node.options) + ")"
            if isinstance(node, _Rep):
                return f"({render(node.body)}){{{node.low},{node.high}}}"
            raise TypeError(node)

        names = ["root"] + [n for n in self._rules if n != "root" and self._rules[n] is not None]
        return "\n".join(f"{n} ::= {render(self._rules[n])}" for n in names) + "\n"

    @cached_property
    def pattern(self) -> regex.Pattern:
        def render(node) -> str:
            if isinstance(node, _Lit):
                return regex.escape(node.text)
            if isinstance(node, _Pattern):
                return node.regex
            if isinstance(node, _Ref):
                return render(self._rules[node.name])
            if isinstance(node, _Seq):
                return "".join(render(p) for p in node.parts)
            if isinstance(node, _Alt):
                return "(?:" + "|".join(render(o) for o in node.options) + ")"
            if isinstance(node, _Rep):
                return f"(?:{render(node.body)}){{{node.low},{node.high}}}"
            raise TypeError(node)

        return regex.compile(render(self._rules["root"]))

    def sample(self, rng) -> str:
        """A random sentence of the language that the literal guard also allows (`rng` is a random.Random): for
        tests and previews."""
        for _ in range(200):
            sentence = self._walk(rng)
            if not self.static_negations or not changes_what_it_negates(sentence):
                return sentence
        return sentence

    @property
    def static_negations(self) -> bool:
        """True when a negated predicate must stay static (no :negative-preconditions): the literal guard then
        refuses an effect on a predicate the answer's precondition negates (llm/literal_guard.py)."""
        return not self.domain.has_requirement("negative-preconditions")

    def _walk(self, rng) -> str:
        def walk(node) -> str:
            if isinstance(node, _Lit):
                return node.text
            if isinstance(node, _Pattern):
                return "?" + rng.choice("abcxyz") + rng.choice(["", "1", "-b"])
            if isinstance(node, _Ref):
                return walk(self._rules[node.name])
            if isinstance(node, _Seq):
                return "".join(walk(p) for p in node.parts)
            if isinstance(node, _Alt):
                return walk(rng.choice(node.options))
            if isinstance(node, _Rep):
                return "".join(walk(node.body) for _ in range(rng.randint(node.low, node.high)))
            raise TypeError(node)

        return walk(self._rules["root"])

    def literal_sets(self) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """Every literal the precondition and the effect may hold, as written (for llm/literal_guard.py).

        None when a section's literals cannot be listed: free variable names (an unlocked signature),
        or more than MAX_ENUMERATED_LITERALS of them."""
        def strings(node) -> list[str] | None:
            if isinstance(node, _Lit):
                return [node.text]
            if isinstance(node, _Ref):
                return strings(self._rules[node.name])
            if isinstance(node, _Alt):
                out: list[str] = []
                for option in node.options:
                    part = strings(option)
                    if part is None:
                        return None
                    out += part
                return out
            if isinstance(node, _Seq):
                out = [""]
                for piece in node.parts:
                    tails = strings(piece)
                    if tails is None or len(out) * len(tails) > MAX_ENUMERATED_LITERALS:
                        return None
                    out = [a + b for a in out for b in tails]
                return out
            return None  # a free pattern or a repetition: not a finite list

        sections = []
        for name in ("pre-literal", "eff-literal"):
            listed = strings(self._rules[name]) if self._rules[name].options else []
            if listed is None:
                return None
            sections.append(tuple(dict.fromkeys(listed)))
        return sections[0], sections[1]

    def decoding(self, decoding):
        """`decoding` (llm.backend.DecodingOptions) constrained to this grammar: its GBNF, and its literals so
        that the local backend never writes a literal twice in one section."""
        return replace(decoding, grammar=self.to_gbnf(), literals=self.literal_sets(),
                       static_negations=self.static_negations)

    def accepts_prefix(self, text: str) -> bool:
        """True if `text` can still be extended to a sentence of the language."""
        return self.pattern.fullmatch(text, partial=True) is not None

    def is_complete(self, text: str) -> bool:
        """True if `text` is a whole sentence of the language."""
        return self.pattern.fullmatch(text) is not None
