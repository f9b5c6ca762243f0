"""A Pygments lexer for PDDL as Domain Drafter shows it: Pygments' PddlLexer, corrected.

Pygments' `PddlLexer` (2.19+) is the base; it has four problems for this app:

* it is case-sensitive, but PDDL is not: `(:ACTION` lexed as an error and a name;
* its keyword and builtin lists end in `\\b`, and `-` is no word character, so the user predicate
  `at-robby` lexes as the builtin `at`, an operator and a name (same for `not-clear`, `end-pos`);
* `at` is always a builtin, although in typed STRIPS it is almost always a user predicate
  (gripper's and logistics' `(at ?obj ?room)`); it is a builtin only in `(at start ...)`,
  `(at end ...)` and timed literals `(at 10 ...)`;
* any character it does not know (the prose around a model's answer) becomes an Error token.

This lexer keeps Pygments' token types and adds two: the first name of a list that is no
builtin (a predicate or action name in an atom: `(on ?x ?y)`) is `Name.Function`, and the type
after ` - ` in a typed list is `Keyword.Type`. Unknown `:words` are `Keyword.Pseudo`.
Everything lexes; nothing is ever `Error`.
"""

from __future__ import annotations

import re

from pygments.lexer import bygroups, words
from pygments.lexers.pddl import PddlLexer
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    Text,
    Whitespace,
)

__all__ = ["BUILTINS", "KEYWORDS", "DomainDrafterPddlLexer"]

# A PDDL name goes on with letters, digits, '_' and '-': that is where a keyword or builtin ends.
_END = r"(?![\w-])"
_NAME = r"[a-z][\w-]*"

KEYWORDS: tuple[str, ...] = (
    ":requirements", ":types", ":constants", ":predicates", ":functions", ":action", ":agent",
    ":parameters", ":precondition", ":effect", ":durative-action", ":duration", ":condition",
    ":derived", ":domain", ":objects", ":init", ":goal", ":metric", ":length", ":serial",
    ":parallel", ":vars",
    # requirements
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
    ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
    ":conditional-effects", ":fluents", ":numeric-fluents", ":object-fluents", ":adl",
    ":durative-actions", ":duration-inequalities", ":continuous-effects", ":derived-predicates",
    ":timed-initial-literals", ":time-intial-literals",  # the second: Pygments' misspelling, kept
    ":preferences", ":constraints", ":action-costs", ":multi-agent", ":unfactored-privacy",
    ":factored-privacy", ":non-deterministic",
)

# Pygments' builtins without `at`, which is decided by what follows it.
BUILTINS: tuple[str, ...] = (
    "define", "domain", "object", "either", "and", "forall", "preference", "imply", "or",
    "exists", "not", "when", "assign", "scale-up", "scale-down", "increase", "decrease", "over",
    "start", "end", "all", "problem", "always", "sometime", "within", "at-most-once",
    "sometime-after", "sometime-before", "always-within", "hold-during", "hold-after",
    "minimize", "maximize", "total-time", "is-violated",
)

_BUILTIN_AHEAD = "(?:" + "|".join(re.escape(b) for b in sorted(BUILTINS, key=len, reverse=True)) + ")" + _END
# `at` as a temporal or timed-literal operator: followed by start, end or a number.
_TEMPORAL_AT = r"at(?=\s+(?:(?:start|end)" + _END + r"|[0-9]))"


class DomainDrafterPddlLexer(PddlLexer):
    """PDDL, case-insensitive, with user predicates kept apart from builtins (see the module doc)."""

    name = "PDDL (Domain Drafter)"
    aliases = ["pddl-domain-drafter"]  # noqa: RUF012 - Pygments reads these class attributes as lists
    filenames: list[str] = []  # noqa: RUF012 - as above
    flags = re.IGNORECASE | re.MULTILINE

    tokens = {  # noqa: RUF012 - Pygments' RegexLexer compiles this class attribute once
        "root": [
            (r"\s+", Whitespace),
            (r";.*?$", Comment.Singleline),
            (words(KEYWORDS, suffix=_END), Keyword),
            (r":" + _NAME, Keyword.Pseudo),
            (r"(\()(\s*)(" + _TEMPORAL_AT + ")", bygroups(Punctuation, Whitespace, Name.Builtin)),
            (r"(\()(\s*)(?!" + _BUILTIN_AHEAD + ")(" + _NAME + ")",
             bygroups(Punctuation, Whitespace, Name.Function)),
            (r"[()]", Punctuation),
            (r"(-)(\s*)(" + _NAME + ")", bygroups(Operator, Whitespace, Keyword.Type)),
            (words(BUILTINS, suffix=_END), Name.Builtin),
            (r"\?" + _NAME, Name.Variable),
            (_NAME, Name),
            (r"[0-9]+\.[0-9]+" + _END, Number.Float),
            (r"[0-9]+" + _END, Number.Integer),
            (r"[=/*+><-]", Operator),
            (r"[^\s()]", Text),  # prose, stray punctuation: shown plain, never an error
        ],
    }
