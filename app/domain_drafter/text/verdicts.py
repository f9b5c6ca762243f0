"""How verdicts read as text: checks, ARE, evaluations and whole-domain comparisons.

Plain functions over the engine's result objects, shared by the command line and the desktop app
(which shows the same words in its panels). No Qt, no argparse.
"""

from __future__ import annotations

from domain_drafter.core.errors import SourceLocation
from domain_drafter.text.proof import heuristic_disagrees, proof_headline, state_view

CARET_LINE_MAX = 160   # longer answer lines are not echoed under a finding


def format_check(report, are) -> str:
    """A person's view of a check: the verdict, each finding with line:col and a caret, the ARE terms."""
    lines = []
    if report.passed:
        lines.append(f"passed syntax and semantic checks: {report.target}")
    else:
        lines.append(f"{report.result_class.value}: {report.subclass.value}")
        for finding in report.findings:
            loc = SourceLocation.from_offset(report.answer, finding.span[0], None)
            lines.append(f"  {loc.line}:{loc.column} {finding.subclass.value} ({finding.reason}): {finding.message}")
            line_text = report.answer.splitlines()[loc.line - 1] if report.answer else ""
            if len(line_text) <= CARET_LINE_MAX:
                width = max(1, min(finding.span[1] - finding.span[0], len(line_text) - loc.column + 1))
                lines.append(f"      {line_text}")
                lines.append(f"      {' ' * (loc.column - 1)}{'^' * width}")
    if are is not None:
        lines.extend(format_are(are))
    return "\n".join(lines)


def format_are(are) -> list[str]:
    """The ARE total, its three terms, and each missing or extra atom."""
    lines = [f"ARE {are.total} (pre {are.pre.value}, add {are.add.value}, del {are.delete.value})"]
    for term in are.terms:
        lines += [f"  {term.name}: missing {lit}" for lit in term.missing]
        lines += [f"  {term.name}: extra   {lit}" for lit in term.extra]
    return lines


def format_evaluation(result) -> str:
    """The verdict line, how it was established, the counterexample (the distinguishing state for a
    proof, the failing plan for the paper's heuristic), the heuristic's own verdict beside a proof, the ARE."""
    if result.equivalence is None and result.proof is None:
        return format_check(result.check, result.are)
    lines = []
    if result.error:
        lines.append(f"error: {result.error.message}")
    else:
        lines.append(verdict_name(result.subclass) + (" (cached)" if result.cached else ""))
    lines.append(f"  {proof_headline(result.proof, result.equivalence) or result.message}")
    if result.proof is not None and result.proof.score is not None and result.proof.proven:
        lines.append(f"  score: {result.proof.score.words}")
    proof_cx = result.proof.counterexample if result.proof is not None else None
    if proof_cx is not None:
        lines.extend(format_distinguishing_state(proof_cx))
    elif result.equivalence is not None and result.equivalence.counterexample is not None:
        cx = result.equivalence.counterexample
        if cx.plan:
            failing = cx.validation.step if cx.validation is not None else None
            lines.append(f"  counterexample ({cx.direction.replace('-', ' ')}), problem {cx.problem}:")
            lines.extend(numbered_plan(cx.plan, failing, "  <-- fails here"))
    if result.proof is not None and result.equivalence is not None and result.proof.proven:
        paper = result.equivalence.subclass.value if result.equivalence.subclass else "no verdict"
        note = "  (the heuristic missed the difference)" if heuristic_disagrees(result.proof, result.equivalence) else ""
        lines.append(f"  paper heuristic: {paper}{note}")
    if result.are is not None:
        lines.extend(format_are(result.are))
    lines.append(f"  time: {result.timings.get('total_s', 0.0):.2f} s")
    return "\n".join(lines)


def verdict_name(subclass) -> str:
    """`Equivalent`, or the class and the subclass: `Different domain: NoPlan`."""
    cls = subclass.result_class
    return cls.value if cls.value == subclass.value else f"{cls.value}: {subclass.value}"


def format_distinguishing_state(cx) -> list[str]:
    """The state where the two domains part: how it is reached, what holds there, what each domain does."""
    view = state_view(cx)
    lines = [f"  {view.title}:"]
    lines.extend(numbered_plan((*view.prefix, view.step), len(view.prefix) + 1, "  <-- the domains part here"))
    if view.atoms:
        lines.append(f"    atoms that matter: {' '.join(view.atoms)}")
    lines += [f"    {view.reference}", f"    {view.generated}", f"    {view.verdict}",
              f"    counterexample problem goal: {' '.join(view.goal)}"]
    return lines


def numbered_plan(plan, marked: int | None, mark: str, indent: str = "    ") -> list[str]:
    """`  1. (step)` lines, with `mark` after the 1-based step `marked`."""
    return [f"{indent}{number:>3}. {step}" + (mark if number == marked else "")
            for number, step in enumerate(plan, start=1)]


def format_comparison(comparison, reference) -> str:
    """The verdict, what differs per action, and the counterexample with the step to blame, also in words."""
    from domain_drafter.core.plan_words import plan_in_words
    from domain_drafter.planning.kstar import parse_step

    lines = [comparison.verdict.value, f"  {comparison.message}"]
    said = [f"{a.name} {a.status.value}" + (f" (ARE {a.are.total})" if a.are and a.are.total else "")
            for a in comparison.actions]
    lines.append("  actions: " + ", ".join(said))
    d = comparison.divergence
    if d is not None:
        lines.append(f"  counterexample on problem {d.problem}; the domains part at step {d.step}, "
                     f"action '{d.action}' ({d.reason}):")
        lines.extend(numbered_plan(d.plan, d.step, "  <-- here"))
        if reference.descriptions is not None:
            problem = next(p for p in reference.problems if p.name == d.problem)
            words = plan_in_words(reference.domain, reference.descriptions, problem.problem,
                                  [parse_step(s) for s in d.plan])
            lines.append("  in the reference domain, in words:")
            lines.extend(f"    {line}" for line in words.lines())
    return "\n".join(lines)
