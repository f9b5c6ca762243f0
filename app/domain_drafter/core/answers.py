"""Classify a model's answer against a domain: syntax, then semantic checks (METHOD 5, classes 1-2).

The answer is untrusted text. Nothing here evaluates it, and nothing raises on it: every
outcome, however odd the input, is a `CheckReport` with exactly one verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.core.errors import PddlSyntaxError, SourceLocation
from domain_drafter.core.model import EQUALITY, OBJECT, ActionSchema, Domain
from domain_drafter.core.parsing import parse_tree
from domain_drafter.core.reader import ParsedAction, read_action

Span = tuple[int, int]

# Deeper nesting than this is no STRIPS action; refusing it up front keeps every walk shallow.
MAX_NESTING = 64


@dataclass(frozen=True)
class Finding:
    """One problem found in an answer: its subclass, a reason code, a message, a span in the answer."""

    subclass: Subclass
    reason: str
    message: str
    span: Span

    def to_dict(self) -> dict:
        return {"subclass": self.subclass.value, "reason": self.reason, "message": self.message,
                "span": list(self.span)}


@dataclass(frozen=True)
class CheckReport:
    """The verdict of the syntax and semantic checks on one answer.

    `subclass` is None when the answer passed both checks. `action` is the parsed action
    whenever the syntax check passed (ARE is defined from there on), else None.
    `findings` lists every problem found at the deciding stage, the deciding one first.
    """

    answer: str
    target: str
    candidate_span: Span | None
    findings: tuple[Finding, ...] = ()
    action: ActionSchema | None = field(default=None, compare=False)

    @property
    def passed(self) -> bool:
        return not self.findings

    @property
    def subclass(self) -> Subclass | None:
        return self.findings[0].subclass if self.findings else None

    @property
    def result_class(self) -> ResultClass | None:
        return self.subclass.result_class if self.subclass else None

    @property
    def candidate(self) -> str | None:
        if self.candidate_span is None:
            return None
        return self.answer[self.candidate_span[0]:self.candidate_span[1]]

    def to_dict(self) -> dict:
        return {
            "target": self.target,
            "passed": self.passed,
            "class": self.result_class.value if self.result_class else None,
            "subclass": self.subclass.value if self.subclass else None,
            "candidate_span": list(self.candidate_span) if self.candidate_span else None,
            "findings": [f.to_dict() for f in self.findings],
            "action": self.action.to_pddl(indent="") if self.action else None,
        }


def code_positions(text: str):
    """Yield (offset, char) of every parenthesis outside `;` comments (which run to the end of the line)."""
    in_comment = False
    for i, ch in enumerate(text):
        if in_comment:
            if ch == "\n":
                in_comment = False
        elif ch == ";":
            in_comment = True
        elif ch in "()":
            yield i, ch


def prune(answer: str) -> tuple[Span | None, Finding | None]:
    """Cut THE candidate action: from the first '(' to its matching ')' (parenthesis counting).

    Parentheses inside `;` comments are not code, for the parser and so for the counting here.
    """
    start = None
    opened: list[int] = []   # offsets of the '(' still open
    for i, ch in code_positions(answer):
        if start is None:
            if ch == ")":
                continue  # a stray ')' before any '(' is prose, not code
            start = i
        if ch == "(":
            opened.append(i)
        else:
            opened.pop()
        if not opened:
            return (start, i + 1), None
    if start is None:
        return None, Finding(Subclass.NO_PDDL, "no-parenthesis",
                             "The answer holds no '(' outside comments, so there is no PDDL in it.", (0, len(answer)))
    loc, inner = SourceLocation.from_offset(answer, start), SourceLocation.from_offset(answer, opened[-1])
    depth = len(opened)
    where = "" if depth == 1 else f"; the innermost one still open starts at line {inner.line}, column {inner.column}"
    return None, Finding(
        Subclass.P_ERROR, "unbalanced",
        f"The '(' at line {loc.line}, column {loc.column} is never closed: "
        f"{depth} parenthes{'i' if depth == 1 else 'e'}s still open at the end of the answer{where}.",
        (opened[-1], len(answer)))


def check_answer(answer: str, domain: Domain, target: str) -> CheckReport:
    """Classify `answer` as a candidate for the action `target` of `domain`."""
    target = target.lower()
    span, finding = prune(answer)
    if finding is not None:
        return CheckReport(answer, target, None, (finding,))
    assert span is not None
    syntax = _syntax_findings(answer, span, domain)
    if isinstance(syntax, Finding):
        return CheckReport(answer, target, span, (syntax,))
    parsed = syntax
    findings = _semantic_findings(parsed, domain, target, base=span[0])
    return CheckReport(answer, target, span, tuple(findings), parsed.to_schema())


def check_parsed_action(parsed: ParsedAction, domain: Domain) -> list[Finding]:
    """The syntax-level and semantic findings of an action already parsed (spans as in its text).

    Bundles use it on the actions of their own domain file, which are parsed once with the file.
    """
    problem = _structural_problem(parsed, domain)
    if problem is not None:
        return [Finding(Subclass.U_TOKEN, "parse", problem[0] + ".", problem[1])]
    return _semantic_findings(parsed, domain, parsed.name, base=0)


def parse_action(text: str, domain: Domain, *, base: int = 0, full_text: str | None = None) -> ParsedAction:
    """Parse one action's text against a domain's requirements; raise PddlSyntaxError if it is not valid PDDL."""
    full = full_text if full_text is not None else text
    tree = parse_tree(text, "action_def", base_offset=base, full_text=full)
    parsed = read_action(tree)
    problem = _structural_problem(parsed, domain)
    if problem is not None:
        what, local = problem
        err = PddlSyntaxError(what, where=SourceLocation.from_offset(full, base + local[0]))
        err.span = (base + local[0], base + local[1])  # type: ignore[attr-defined]
        raise err
    return parsed


def _syntax_findings(answer: str, span: Span, domain: Domain) -> ParsedAction | Finding:
    candidate = answer[span[0]:span[1]]
    deep = _too_deep(candidate)
    if deep is not None:
        return Finding(Subclass.U_TOKEN, "too-deep",
                       f"The action nests parentheses more than {MAX_NESTING} levels deep; no STRIPS action does.",
                       (span[0] + deep, span[1]))
    try:
        return parse_action(candidate, domain, base=span[0], full_text=answer)
    except PddlSyntaxError as err:
        where = err.where if isinstance(err.where, SourceLocation) else None
        at = f"Line {where.line}, column {where.column}: " if where else ""
        err_span = getattr(err, "span", (span[0], span[1]))
        return Finding(Subclass.U_TOKEN, "parse", f"{at}{err.what}.", err_span)
    except RecursionError:  # cannot happen below MAX_NESTING; kept so no input can crash the check
        return Finding(Subclass.U_TOKEN, "too-deep", "The action is nested too deeply to read.", span)


def _too_deep(text: str) -> int | None:
    depth = 0
    for i, ch in code_positions(text):
        if ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                return i
        elif ch == ")":
            depth -= 1
    return None


def _structural_problem(parsed: ParsedAction, domain: Domain) -> tuple[str, Span] | None:
    """What makes a parsed action invalid PDDL for this domain's requirements, if anything."""
    if parsed.unsupported:
        bad = parsed.unsupported[0]
        if bad.requirement and not domain.has_requirement(bad.requirement):
            what = f"'{bad.construct}'" + (f" ({bad.detail})" if bad.detail else "")
            return (f"{what} needs the requirement :{bad.requirement}, which the domain does not declare",
                    bad.span)
        return (f"'{bad.construct}' ({bad.detail or 'a construct beyond typed STRIPS'}) "
                "is not supported by Domain Drafter's typed-STRIPS checks", bad.span)
    if not domain.has_requirement("equality"):
        for atom in parsed.atoms:
            if atom.predicate == EQUALITY:
                return ("'=' needs the requirement :equality, which the domain does not declare", atom.span)
    if not parsed.has_effect:
        return ("the action has no ':effect'", parsed.span)
    seen: set[str] = set()
    for param in parsed.parameters:
        if param.name in seen:
            return (f"the parameter {param.name} is declared twice", param.span)
        seen.add(param.name)
    return None


def _semantic_findings(parsed: ParsedAction, domain: Domain, target: str, base: int) -> list[Finding]:
    def at(span: Span) -> Span:
        return (base + span[0], base + span[1])

    findings: list[Finding] = []
    if parsed.name != target:
        findings.append(Finding(Subclass.N_ERROR, "wrong-name",
                                f"The action is called '{parsed.name}', but the requested action is '{target}'.",
                                at(parsed.name_span)))
    param_types: dict[str, tuple[str, ...]] = {}
    for param in parsed.parameters:
        param_types[param.name] = param.types
        for t in param.types:
            if t != OBJECT and t not in domain.types:
                declared = ", ".join(domain.types.declared) or "none"
                findings.append(Finding(Subclass.T_ERROR, "undeclared-type",
                                        f"Parameter {param.name} has type '{t}', which the domain does not declare "
                                        f"(declared types: {declared}).", at(param.type_span or param.span)))
    fluents = fluents_in_place(domain, target, parsed.atoms)
    for atom in parsed.atoms:
        findings.extend(_atom_findings(atom, domain, param_types, at, fluents))
    findings.extend(_negations_elsewhere(parsed, domain, target, at))
    order = {s: i for i, s in enumerate(Subclass)}
    findings.sort(key=lambda f: (order[f.subclass], f.span))
    return findings


@dataclass(frozen=True)
class LiteralProblem:
    """Why the semantic checks refuse one literal of an action, with no place in a text: the answer's
    findings (`_atom_findings`) and the quick fixes (core/answer_repair.py) both read these."""

    subclass: Subclass
    reason: str
    short: str                   # the reason alone, e.g. "?city is not a parameter"
    message: str                 # the full finding, with what is allowed instead
    arg: int | None = None       # the argument it is about; None: the atom (or the literal, for a negation)


def fluents_in_place(domain: Domain, target: str, atoms) -> frozenset[str]:
    """The predicates some action changes in `domain` with the answer in place of `target`: the other
    actions' effects and the answer's own (`atoms`: its parsed atoms). The one rule the checks, the
    reader and a saved domain share (issue 43): a literal is judged in the domain it will live in."""
    others = (l.atom.predicate for a in domain.actions if a.name != target for l in a.effect)
    return frozenset(others).union(a.predicate for a in atoms if a.section == "effect")


def _negations_elsewhere(parsed: ParsedAction, domain: Domain, target: str, at) -> list[Finding]:
    """The answer changes a predicate another action negates in its precondition: with the answer in
    place that negation is on a fluent, which needs :negative-preconditions the domain does not declare."""
    if domain.has_requirement("negative-preconditions"):
        return []
    out: list[Finding] = []
    for atom in parsed.atoms:
        if atom.section != "effect":
            continue
        negated = next((a for a in domain.actions if a.name != target
                        for l in a.precondition if not l.positive and l.atom.predicate == atom.predicate), None)
        if negated is not None and not any(f.span == at(atom.literal_span) for f in out):
            out.append(Finding(Subclass.BP_ERROR, "negative-precondition",
                               f"This effect changes '{atom.predicate}', so the action '{negated.name}', which has a "
                               f"negated precondition on it, would need :negative-preconditions, which the domain "
                               "does not declare.", at(atom.literal_span)))
    return out


def literal_problems(predicate: str, args: tuple[str, ...], positive: bool, section: str,
                     param_types: Mapping[str, tuple[str, ...]], domain: Domain,
                     fluents: frozenset[str] | None = None) -> list[LiteralProblem]:
    """Every reason the checks refuse the literal `(predicate *args)` (negated unless `positive`) in the
    action's `section` ("precondition" or "effect"), in the order the checks report them; [] if none.
    `param_types` maps the action's parameters to their types (the members of an `either`). `fluents`
    are the predicates actions change with the action in place (`fluents_in_place`); by default the
    domain's own."""
    fluents = domain.fluent_predicates if fluents is None else fluents
    atom = f"({' '.join((predicate, *args))})"
    out: list[LiteralProblem] = []
    for i, arg in enumerate(args):
        if arg.startswith("?"):
            if arg not in param_types:
                params = " ".join(param_types) or "none"
                out.append(LiteralProblem(Subclass.PA_ERROR, "undefined-variable", f"{arg} is not a parameter",
                                          f"{arg} in {atom} is not a parameter of the action (parameters: {params}).",
                                          i))
        elif arg not in domain.constant_map:
            consts = " ".join(domain.constant_map) or "none"
            out.append(LiteralProblem(Subclass.PA_ERROR, "undefined-constant",
                                      f"'{arg}' is neither a parameter nor a constant",
                                      f"'{arg}' in {atom} is neither a parameter nor a constant of the domain "
                                      f"(constants: {consts}); variables start with '?'.", i))
    if predicate == EQUALITY:
        return out
    signature = domain.predicate_map.get(predicate)
    if signature is None:
        known = ", ".join(p.name for p in domain.predicates)
        out.append(LiteralProblem(Subclass.PA_ERROR, "undefined-predicate",
                                  f"the domain does not declare '{predicate}'",
                                  f"{atom} uses the predicate '{predicate}', which the domain does not declare "
                                  f"(allowed: {known})."))
        return out
    if len(args) != signature.arity:
        plural = "" if signature.arity == 1 else "s"
        out.append(LiteralProblem(Subclass.PA_ERROR, "wrong-arity", f"'{predicate}' takes {signature.arity} argument{plural}",
                                  f"{atom} gives '{predicate}' {len(args)} argument{'' if len(args) == 1 else 's'}, "
                                  f"but it takes {signature.arity}: {signature}."))
        return out
    if out:
        return out
    for i, (arg, expected) in enumerate(zip(args, signature.parameters)):
        actual = param_types[arg] if arg.startswith("?") else (domain.constant_map[arg].type,)
        for t in actual:
            if (t == OBJECT or t in domain.types) and not domain.types.is_subtype(t, expected.type):
                out.append(LiteralProblem(Subclass.T_ERROR, "argument-type",
                                          f"{arg} is of type '{t}', where '{predicate}' expects '{expected.type}'",
                                          f"In {atom}, {arg} is of type '{t}', but '{predicate}' expects "
                                          f"'{expected.type}' there: {signature}.", i))
    if (section == "precondition" and not positive and predicate in fluents
            and not domain.has_requirement("negative-preconditions")):
        changes = ("which actions change" if predicate in domain.fluent_predicates else
                   "which this action's own effect changes (static in the domain, a fluent once the action is in it)")
        out.append(LiteralProblem(Subclass.BP_ERROR, "negative-precondition",
                                  "the domain does not declare :negative-preconditions",
                                  f"(not {atom}) is a negated precondition on '{predicate}', {changes}, "
                                  "and the domain does not declare :negative-preconditions."))
    return out


def _atom_findings(atom, domain: Domain, param_types: dict[str, tuple[str, ...]], at,
                   fluents: frozenset[str]) -> list[Finding]:
    def span(problem: LiteralProblem) -> Span:
        if problem.arg is not None:
            return at(atom.arg_spans[problem.arg])
        return at(atom.literal_span if problem.reason == "negative-precondition" else atom.span)

    return [Finding(p.subclass, p.reason, p.message, span(p))
            for p in literal_problems(atom.predicate, tuple(atom.args), atom.positive, atom.section,
                                      param_types, domain, fluents)]
