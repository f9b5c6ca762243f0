"""Read lark parse trees (from `parsing`) into our model, keeping a span for every part.

`ParsedAction` is the action as written, with spans and with anything beyond typed
STRIPS recorded as `unsupported`; the checks in `answers` judge it against a domain, and
`to_schema()` turns it into an `ActionSchema` once it passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lark import Token, Tree

from domain_drafter.core.errors import DomainError, SourceLocation
from domain_drafter.core.model import (
    OBJECT,
    ActionSchema,
    Atom,
    Domain,
    Literal,
    PredicateSignature,
    Problem,
    TypedName,
)
from domain_drafter.core.parsing import parse_tree, span_of
from domain_drafter.core.types import TypeHierarchy, either_type

Span = tuple[int, int]

SUPPORTED_REQUIREMENTS = frozenset({"strips", "typing", "negative-preconditions", "equality"})

# Constructs of the grammar that typed STRIPS does not have, and the requirement that allows each.
CONSTRUCT_REQUIREMENT = {
    "or": "disjunctive-preconditions", "imply": "disjunctive-preconditions",
    "exists": "existential-preconditions", "forall": "universal-preconditions",
    "when": "conditional-effects", "oneof": "non-deterministic", "=": "equality",
    "numeric": "numeric-fluents",
}


@dataclass(frozen=True)
class ParsedParameter:
    name: str                      # with the '?'
    types: tuple[str, ...]         # ('object',) when untyped; the members, in order written, for (either ...)
    span: Span
    type_span: Span | None = None


@dataclass(frozen=True)
class ParsedAtom:
    predicate: str
    args: tuple[str, ...]          # variables keep their '?'
    arg_spans: tuple[Span, ...]
    span: Span                     # the atom's parentheses
    literal_span: Span             # includes an enclosing (not ...)
    section: str                   # "precondition" or "effect"
    positive: bool = True

    @property
    def atom(self) -> Atom:
        return Atom(self.predicate, self.args)


@dataclass(frozen=True)
class Unsupported:
    """A construct outside typed STRIPS: `construct` is its keyword, `requirement` what PDDL needs for it."""

    construct: str
    span: Span
    requirement: str | None
    detail: str = ""


@dataclass
class ParsedAction:
    name: str
    name_span: Span
    span: Span
    parameters: list[ParsedParameter] = field(default_factory=list)
    atoms: list[ParsedAtom] = field(default_factory=list)
    unsupported: list[Unsupported] = field(default_factory=list)
    has_precondition: bool = False
    has_effect: bool = False

    def to_schema(self) -> ActionSchema:
        pre = tuple(Literal(a.atom, a.positive) for a in self.atoms if a.section == "precondition")
        eff = tuple(Literal(a.atom, a.positive) for a in self.atoms if a.section == "effect")
        params = tuple(TypedName(p.name, either_type(p.types)) for p in self.parameters)
        return ActionSchema(self.name, params, _dedupe(pre), _dedupe(eff))


def _dedupe(literals: tuple[Literal, ...]) -> tuple[Literal, ...]:
    return tuple(dict.fromkeys(literals))


def _tok(node: object, type_: str | None = None) -> bool:
    return isinstance(node, Token) and (type_ is None or node.type == type_)


def _children(node: Tree) -> list:
    return [c for c in node.children if c is not None]


# ---------------------------------------------------------------- typed lists

def read_typed_variables(node: Tree) -> list[ParsedParameter]:
    """`?a ?b - t ?c` (a typed_list_variable tree) as parameters; untyped ones are `object`."""
    out: list[ParsedParameter] = []
    pending: list[Token] = []
    items = _children(node)
    i = 0
    while i < len(items):
        item = items[i]
        if _tok(item, "TYPE_SEP") and i + 1 < len(items):
            type_node = items[i + 1]
            types = tuple(str(c) for c in _children(type_node) if _tok(c) and c.type in ("NAME", "OBJECT"))
            tspan = span_of(type_node)
            for var in pending:
                out.append(ParsedParameter("?" + str(var), types or (OBJECT,), _var_span(var), tspan))
            pending = []
            i += 2
            continue
        if _tok(item, "NAME"):
            pending.append(item)
        i += 1
    out.extend(ParsedParameter("?" + str(v), (OBJECT,), _var_span(v)) for v in pending)
    return out


def read_typed_names(node: Tree) -> list[tuple[str, str, Span]]:
    """`a b - t c` (a typed_list_name tree) as (name, type, span); untyped ones are `object`."""
    out: list[tuple[str, str, Span]] = []
    pending: list[Token] = []
    items = _children(node)
    i = 0
    while i < len(items):
        item = items[i]
        if _tok(item, "TYPE_SEP") and i + 1 < len(items):
            parent = str(items[i + 1])
            out.extend((str(t), parent, span_of(t)) for t in pending)
            pending = []
            i += 2
            continue
        if _tok(item):
            pending.append(item)
        i += 1
    out.extend((str(t), OBJECT, span_of(t)) for t in pending)
    return out


def _var_span(token: Token) -> Span:
    start, end = span_of(token)
    return (max(0, start - 1), end)  # include the '?', which the grammar drops


# ---------------------------------------------------------------- actions

def read_action(node: Tree) -> ParsedAction:
    """Read an `action_def` tree."""
    kids = node.children
    name_tok = kids[2]
    action = ParsedAction(str(name_tok), span_of(name_tok), span_of(node))
    action.parameters = read_typed_variables(kids[4].children[1])
    body = kids[5].children if isinstance(kids[5], Tree) else []
    # action_body_def: [PRECONDITION, emptyor_pregd, EFFECT, emptyor_effect], absent parts are None
    if len(body) >= 2 and body[1] is not None:
        action.has_precondition = True
        _read_gd_root(body[1], action)
    if len(body) >= 4 and body[3] is not None:
        action.has_effect = True
        _read_effect_root(body[3], action)
    return action


def _read_gd_root(node: Tree, action: ParsedAction) -> None:
    kids = _children(node)
    if len(kids) == 1:  # otherwise "()": the empty precondition
        _read_gd(kids[0], action, positive=True, literal_span=None)


def _read_gd(node: Tree, action: ParsedAction, positive: bool, literal_span: Span | None) -> None:
    kids = _children(node)
    if len(kids) == 1 and isinstance(kids[0], Tree) and kids[0].data == "atomic_formula_term":
        _read_atom(kids[0], action, "precondition", positive, literal_span)
        return
    head = kids[1] if len(kids) > 1 else None
    keyword = str(head) if head is not None else ""
    if keyword == "and" and positive:
        for child in kids[2:-1]:
            _read_gd(child, action, True, None)
    elif keyword == "not" and positive:
        inner = _children(kids[2])
        if len(inner) == 1 and isinstance(inner[0], Tree) and inner[0].data == "atomic_formula_term":
            _read_atom(inner[0], action, "precondition", False, span_of(node))
        else:
            action.unsupported.append(Unsupported("not", span_of(node), "disjunctive-preconditions",
                                                  "a negation of something other than one atom"))
    elif keyword in ("and", "not"):
        action.unsupported.append(Unsupported(keyword, span_of(node), "disjunctive-preconditions",
                                              "a negation of something other than one atom"))
    elif keyword in CONSTRUCT_REQUIREMENT:
        action.unsupported.append(Unsupported(keyword, span_of(node), CONSTRUCT_REQUIREMENT[keyword]))
    else:  # numeric comparisons
        action.unsupported.append(Unsupported(keyword or "?", span_of(node), "numeric-fluents",
                                              "a numeric comparison"))


def _read_effect_root(node: Tree, action: ParsedAction) -> None:
    kids = _children(node)
    if len(kids) != 1:
        return  # "()": no effect
    effect = kids[0]
    ekids = _children(effect)
    c_effects = ekids[2:-1] if len(ekids) > 1 else ekids
    for c_effect in c_effects:
        ckids = _children(c_effect)
        if len(ckids) == 1:
            _read_p_effect(ckids[0], action)
        else:
            keyword = str(ckids[1])
            action.unsupported.append(Unsupported(keyword, span_of(c_effect), CONSTRUCT_REQUIREMENT.get(keyword)))


def _read_p_effect(node: Tree, action: ParsedAction) -> None:
    kids = _children(node)
    if len(kids) == 1 and isinstance(kids[0], Tree) and kids[0].data == "atomic_formula_term":
        _read_atom(kids[0], action, "effect", True, None)
    elif len(kids) == 4 and str(kids[1]) == "not":
        _read_atom(kids[2], action, "effect", False, span_of(node))
    else:
        action.unsupported.append(Unsupported("numeric", span_of(node), "numeric-fluents", "a numeric effect"))


def _read_atom(node: Tree, action: ParsedAction, section: str, positive: bool, literal_span: Span | None) -> None:
    kids = _children(node)
    head = kids[1]
    args: list[str] = []
    spans: list[Span] = []
    for term in kids[2:-1]:
        if isinstance(term, Tree):  # constant
            args.append(str(term.children[0]))
            spans.append(span_of(term))
        else:
            args.append("?" + str(term))
            spans.append(_var_span(term))
    span = span_of(node)
    action.atoms.append(ParsedAtom(str(head), tuple(args), tuple(spans), span, literal_span or span, section, positive))
    if head.type == "EQUAL_OP" and section == "effect":
        action.unsupported.append(Unsupported("=", span, None, "an equality in an effect"))


# ---------------------------------------------------------------- domains and problems

def read_domain(text: str, path: Path | None = None) -> tuple[Domain, list[ParsedAction]]:
    """Parse a domain file into a Domain plus its actions as written (for checks with spans)."""
    tree = parse_tree(text, "domain", path=path)

    def where(span: Span) -> SourceLocation:
        return SourceLocation.from_offset(text, span[0], path)

    name = ""
    requirements: set[str] = set()
    type_parents: list[tuple[str, str]] = []
    constants: list[TypedName] = []
    predicates: list[PredicateSignature] = []
    actions: list[ParsedAction] = []
    for child in _children(tree):
        if not isinstance(child, Tree):
            continue
        if child.data == "domain_def":
            name = str(child.children[2])
        elif child.data == "requirements":
            for key in child.children[2:-1]:
                req = str(key).lstrip(":")
                if req not in SUPPORTED_REQUIREMENTS:
                    raise DomainError(
                        f"requirement :{req} is beyond typed STRIPS, which is what Domain Drafter checks",
                        where=where(span_of(key)),
                        hint="supported: " + " ".join(":" + r for r in sorted(SUPPORTED_REQUIREMENTS)))
                requirements.add(req)
        elif child.data == "types":
            type_parents = [(n, t) for n, t, _ in read_typed_names(child.children[2])]
        elif child.data == "constants":
            constants = [TypedName(n, t) for n, t, _ in read_typed_names(child.children[2])]
        elif child.data == "predicates":
            for skel in child.children[2:-1]:
                params = read_typed_variables(skel.children[2])
                predicates.append(PredicateSignature(
                    str(skel.children[1]), tuple(TypedName(p.name, either_type(p.types)) for p in params)))
        elif child.data == "functions":
            raise DomainError("numeric functions are beyond typed STRIPS", where=where(span_of(child)))
        elif child.data == "derived_predicates":
            raise DomainError("derived predicates are beyond typed STRIPS", where=where(span_of(child)))
        elif child.data == "action_def":
            actions.append(read_action(child))
    domain = Domain(
        name=name,
        requirements=frozenset(requirements),
        types=TypeHierarchy(type_parents),
        constants=tuple(constants),
        predicates=tuple(predicates),
        actions=tuple(a.to_schema() for a in actions),
    )
    return domain, actions


def read_problem(text: str, path: Path | None = None) -> Problem:
    """Parse a problem file. Negative initial literals are dropped (closed world)."""
    tree = parse_tree(text, "problem", path=path)
    name = domain_name = ""
    objects: list[TypedName] = []
    init: set[Atom] = set()
    goal: list[Literal] = []
    for child in _children(tree):
        if not isinstance(child, Tree):
            continue
        if child.data == "problem_def":
            name = str(child.children[2])
        elif child.data == "problem_domain":
            domain_name = str(child.children[2])
        elif child.data == "objects":
            objects = [TypedName(n, t) for n, t, _ in read_typed_names(child.children[2])]
        elif child.data == "init":
            for el in child.children[2:-1]:
                lit = el.children[0]
                if isinstance(lit, Tree) and lit.data == "literal_name":
                    inner = lit.children[0]
                    if inner.data == "atomic_formula_name":
                        k = _children(inner)
                        init.add(Atom(str(k[1]), tuple(str(t) for t in k[2:-1])))
                else:
                    raise DomainError("numeric initial values are beyond typed STRIPS",
                                      where=SourceLocation.from_offset(text, span_of(el)[0], path))
        elif child.data == "goal":
            goal = _read_goal(child.children[2], text, path)
        elif child.data == "metric_spec":
            raise DomainError("metrics are beyond typed STRIPS",
                              where=SourceLocation.from_offset(text, span_of(child)[0], path))
    return Problem(name, domain_name, tuple(objects), frozenset(init), tuple(goal))


def _read_goal(node: Tree, text: str, path: Path | None) -> list[Literal]:
    holder = ParsedAction("goal", (0, 0), span_of(node))
    _read_gd(node, holder, positive=True, literal_span=None)
    if holder.unsupported:
        bad = holder.unsupported[0]
        raise DomainError(f"the goal uses '{bad.construct}', beyond a conjunction of literals",
                          where=SourceLocation.from_offset(text, bad.span[0], path))
    return [Literal(a.atom, a.positive) for a in holder.atoms]
