"""Lay PDDL out in the canonical indented form, keeping comments (the editor's Format command).

No Qt here. Every top-level parenthesised expression is re-indented: `and`/`or` bodies one
element a line, `:keyword value` pairs one a line, short atoms and `(not (...))` kept on one
line. Comments stay where they were: a comment after code stays at the end of that element's
line, a comment on a line of its own stays on a line of its own. Text outside expressions
(a model's "Here is the action:") is kept as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FLAT_WIDTH = 72
BLOCK_HEADS = {"and", "or", "imply", "when"}       # one child a line
BINDING_HEADS = {"forall", "exists"}               # head and the variable list on the first line
INDENT = "  "
_TOKEN = re.compile(r"\(|\)|;[^\n]*|\n|[ \t\r\f\v]+|[^\s();]+")


@dataclass
class Atom:
    text: str


@dataclass
class Comment:
    text: str
    trailing: bool   # was on the line of the code before it


@dataclass
class Expr:
    items: list = field(default_factory=list)   # Atom | Expr | Comment

    @property
    def elements(self) -> list:
        return [i for i in self.items if not isinstance(i, Comment)]

    def has_comments(self) -> bool:
        return any(isinstance(i, Comment) or (isinstance(i, Expr) and i.has_comments()) for i in self.items)

    def depth(self) -> int:
        return 1 + max((i.depth() for i in self.items if isinstance(i, Expr)), default=0)


class UnbalancedError(ValueError):
    pass


def _parse(text: str, start: int) -> tuple[Expr, int]:
    """The expression opening at text[start] == "(", and the index after its ")"."""
    stack = [Expr()]
    newline_since_code = False
    pos = start + 1
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        assert match is not None  # the pattern matches any character
        token = match.group(0)
        pos = match.end()
        if token == "(":
            expr = Expr()
            stack[-1].items.append(expr)
            stack.append(expr)
            newline_since_code = False
        elif token == ")":
            done = stack.pop()
            newline_since_code = False
            if not stack:
                return done, pos
        elif token.startswith(";"):
            stack[-1].items.append(Comment(token.rstrip(), trailing=not newline_since_code))
        elif token == "\n":
            newline_since_code = True
        elif not token.isspace():
            stack[-1].items.append(Atom(token))
            newline_since_code = False
    raise UnbalancedError(f"the '(' at index {start} is never closed")


def _flat(node: Atom | Expr) -> str:
    if isinstance(node, Atom):
        return node.text
    return "(" + " ".join(_flat(e) for e in node.elements) + ")"


def _head(expr: Expr) -> str:
    elements = expr.elements
    return elements[0].text.lower() if elements and isinstance(elements[0], Atom) else ""


def _stays_flat(expr: Expr, room: int) -> bool:
    head = _head(expr)
    if expr.has_comments() or head in BLOCK_HEADS or head in BINDING_HEADS:
        return False
    if any(isinstance(e, Atom) and e.text.startswith(":") for e in expr.elements[1:]):
        return False   # a keyword list such as (:action ...)
    return expr.depth() <= 3 and len(_flat(expr)) <= room


def _render(node: Atom | Expr, indent: str) -> tuple[list[str], bool]:
    """Lines of `node` (the first without `indent`, the others with it) and whether the last ends in a comment."""
    if isinstance(node, Atom):
        return [node.text], False
    if _stays_flat(node, FLAT_WIDTH - len(indent)):
        return [_flat(node)], False
    head = _head(node)
    elements = node.elements
    if head in BINDING_HEADS:
        inline = 2
    elif head.startswith(":") or head == "define" or (elements and isinstance(elements[0], Expr)):
        inline = 2 if len(elements) > 1 and isinstance(elements[1], Atom) and head != "" else 1
    else:
        inline = 1
    child = indent + INDENT
    lines = ["(" + " ".join(_flat(e) for e in elements[:inline])]
    ends_in_comment = False
    placed = 0
    pending_keyword = False
    for item in node.items:
        if isinstance(item, Comment):
            if item.trailing:
                lines[-1] += " " + item.text
            else:
                lines.append(child + item.text)
            ends_in_comment = True
            continue
        placed += 1
        if placed <= inline:
            continue
        if pending_keyword and not ends_in_comment:
            sub, sub_comment = _render(item, child)
            lines[-1] += " " + sub[0]
            lines += sub[1:]
            pending_keyword = False
            ends_in_comment = sub_comment
            continue
        sub, sub_comment = _render(item, child)
        lines.append(child + sub[0])
        lines += sub[1:]
        ends_in_comment = sub_comment
        pending_keyword = isinstance(item, Atom) and item.text.startswith(":")
    if ends_in_comment:
        lines.append(indent + ")")
    else:
        lines[-1] += ")"
    return lines, False


def format_expression(expr: Expr, indent: str = "") -> str:
    lines, _ = _render(expr, indent)
    return "\n".join([lines[0]] + lines[1:])


def format_pddl(text: str) -> str:
    """`text` with every top-level expression in canonical form; raises UnbalancedError if a '(' is never closed.

    A stray ')' outside any expression is kept as it was (the checks report it).
    """
    out: list[str] = []
    pos = 0
    while True:
        start = _next_open(text, pos)
        if start < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        expr, pos = _parse(text, start)
        column = len(out[-1]) - (out[-1].rfind("\n") + 1) if out[-1] else 0
        rendered = format_expression(expr)
        if column and out[-1][-column:].strip() == "":
            # an indented expression keeps its indentation on every line
            rendered = rendered.replace("\n", "\n" + " " * column)
        out.append(rendered)
    return "".join(out)


def _next_open(text: str, pos: int) -> int:
    """The next "(" outside a comment, or -1."""
    while pos < len(text):
        ch = text[pos]
        if ch == "(":
            return pos
        if ch == ";":
            end = text.find("\n", pos)
            if end < 0:
                return -1
            pos = end
        pos += 1
    return -1
