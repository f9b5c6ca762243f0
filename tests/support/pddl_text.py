"""Answers as text for tests: an action with literals added to its precondition, the literals of each section."""

from __future__ import annotations


def with_precondition(bundle, action: str, literals: tuple[str, ...], effect: tuple[str, ...] = ()):
    """The reference action with `literals` added to its precondition (and `effect` to its effect), parsed as an
    answer."""
    from domain_drafter.core.answers import check_answer

    reference = bundle.domain.action(action)
    pre = " ".join([str(lit) for lit in reference.precondition] + list(literals))
    eff = " ".join([str(lit) for lit in reference.effect] + list(effect))
    params = " ".join(f"{p.name} - {p.type}" for p in reference.parameters)
    text = f"(:action {action} :parameters ({params}) :precondition (and {pre}) :effect (and {eff}))"
    check = check_answer(text, bundle.domain, action)
    assert check.action is not None, check.findings
    return check.action


def section_literals(text: str) -> list[list[str]]:
    """The literals of each conjunction of an answer in the grammar's layout, in order."""
    out = []
    for marker in (":precondition (and", ":effect (and"):
        at = text.find(marker)
        if at < 0:
            continue
        body, found, depth, start = text[at + len(marker):], [], 0, 0
        for i, ch in enumerate(body):
            if ch == "(":
                start = i if depth == 0 else start
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
                if depth == 0:
                    found.append(body[start:i + 1])
        out.append(found)
    return out
