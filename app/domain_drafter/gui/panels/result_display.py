"""How results are shown, as plain data: badge colours and texts, the ARE diff lines, plan rows.

No Qt here, so the choices are testable without widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain_drafter.core.are import AreReport
from domain_drafter.core.classes import ResultClass
from domain_drafter.core.model import ActionSchema, Literal, typed_list
from domain_drafter.gui.look.colours import LIGHT, BadgeStyle, Scheme, current_scheme
from domain_drafter.planning.equivalence import Counterexample
from domain_drafter.planning.evaluate import EvaluationResult

BADGE_STYLES: dict[ResultClass, BadgeStyle] = LIGHT.badges   # the light scheme's; see look/colours.py
NEUTRAL_BADGE = LIGHT.neutral_badge   # no verdict (planner error, nothing evaluated)


def badge_text(result: EvaluationResult) -> str:
    """`Equivalent`, or the class and the subclass: `Semantic error · PAError`."""
    if result.subclass is None:
        return "No verdict"
    cls = result.subclass.result_class
    if cls is ResultClass.EQUIVALENT:
        return cls.value
    return f"{cls.value} · {result.subclass.value}"


def badge_style(result: EvaluationResult | None, scheme: Scheme | None = None) -> BadgeStyle:
    """The badge colours of a result in `scheme` (default: the current one)."""
    scheme = scheme or current_scheme()
    if result is None or result.result_class is None:
        return scheme.neutral_badge
    return scheme.badges[result.result_class]


# --- ARE: the reference and the generated action, one literal a line, differences marked ---------
MISSING = "missing"   # a reference line the generated action lacks
EXTRA = "extra"       # a generated line the reference lacks


@dataclass(frozen=True)
class DiffLine:
    text: str
    mark: str | None = None   # MISSING, EXTRA or None


def action_lines(action: ActionSchema, marked: dict[str, set[Literal]], mark: str,
                 rename: dict[str, str] | None = None) -> list[DiffLine]:
    """`action` one literal a line; a literal (renamed by `rename`) in marked[term] gets `mark`.

    `marked` maps "pre", "add", "del" to the literals to mark in that term.
    """
    rename = rename or {}

    def line(literal: Literal, term: str) -> DiffLine:
        key = Literal(literal.atom.rename(rename), literal.positive)
        return DiffLine(f"    {literal}", mark if key in marked.get(term, set()) else None)

    lines = [DiffLine(f"(:action {action.name}")]
    lines += [DiffLine(text) for text in parameter_lines(typed_list(action.parameters))]
    lines += [DiffLine("  :precondition (and")]
    lines += [line(lit, "pre") for lit in action.precondition]
    lines += [DiffLine("  )"), DiffLine("  :effect (and")]
    lines += [line(lit, "add" if lit.positive else "del") for lit in action.effect]
    lines += [DiffLine("  ))")]
    return lines


PARAMETERS_WIDTH = 34   # longer parameter lists get one typed group a line (the panes are narrow)


def parameter_lines(tokens: list[str]) -> list[str]:
    """`  :parameters (...)`, split after each `- type` when it is long, so a wrap never splits a group."""
    flat = f"  :parameters ({' '.join(tokens)})"
    if len(flat) <= PARAMETERS_WIDTH:
        return [flat]
    groups: list[list[str]] = [[]]
    for i, token in enumerate(tokens):
        groups[-1].append(token)
        if i > 0 and tokens[i - 1] == "-" and i < len(tokens) - 1:
            groups.append([])
    head = "  :parameters ("
    lines = [(head if n == 0 else "    ") + " ".join(g) for n, g in enumerate(groups)]   # narrow panes: no deep indent
    lines[-1] += ")"
    return lines


def are_panes(reference: ActionSchema, generated: ActionSchema | None,
              are: AreReport | None) -> tuple[list[DiffLine], list[DiffLine]]:
    """The two panes of the ARE view: reference with missing atoms marked, generated with extras."""
    if are is None:
        return action_lines(reference, {}, MISSING), []
    missing = {t.name: set(t.missing) for t in are.terms}
    extra = {t.name: set(t.extra) for t in are.terms}
    ref_lines = action_lines(reference, missing, MISSING)
    gen_lines = action_lines(generated, extra, EXTRA, dict(are.renaming)) if generated is not None else []
    return ref_lines, gen_lines


def renaming_note(are: AreReport | None) -> str:
    """`compared with ?a as ?x, ?b as ?y` when the generated parameters have other names."""
    if are is None:
        return ""
    changed = [(g, r) for g, r in are.renaming if g != r]
    if not changed:
        return ""
    return "compared with " + ", ".join(f"{g} as {r}" for g, r in changed)


# --- counterexamples -----------------------------------------------------------------------------
def counterexample_title(cx: Counterexample) -> str:
    if cx.planner_status is not None:
        why = "timed out" if cx.planner_status == "timeout" else "found no plan"
        return f"Problem {cx.problem}: the planner {why} in the generated domain"
    if cx.direction == "generated-in-reference":
        return f"Problem {cx.problem}: a plan of the generated domain, replayed in the reference"
    return f"Problem {cx.problem}: a plan of the reference domain, replayed in the generated domain"


def failing_row(cx: Counterexample) -> int | None:
    """The 0-based plan row that fails, len(plan) for "goal not reached", None if nothing fails."""
    validation = cx.validation
    if validation is None or validation.valid:
        return None
    if validation.step is None:
        return len(cx.plan)
    return validation.step - 1
