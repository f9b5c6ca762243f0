"""Invariant findings in words (Qt-free; `check`, `evaluate` and `test` print these, the app may show them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from domain_drafter.core.bundle import DomainBundle
    from domain_drafter.planning.invariant_findings import InvariantFinding, InvariantReport


def format_invariant_report(report: InvariantReport, *, dismiss_hint: bool = True) -> str:
    """"invariants: 1 finding on pick" and one line per finding, the key that dismisses it under it."""
    n = len(report.findings)
    head = (f"invariants: {n} finding{'s' if n != 1 else ''} on {report.action}" if n
            else f"invariants: nothing found on {report.action}")
    extra = []
    if report.dismissed:
        extra.append(f"{len(report.dismissed)} dismissed")
    if not report.complete:
        extra.append("exploration incomplete: " + "; ".join(report.notes))
    lines = [head + (f" ({', '.join(extra)})" if extra else "")]
    for f in report.findings:
        lines.append(f"  {finding_line(f)}")
        if dismiss_hint:
            lines.append(f"      (if intended: --dismiss \"{f.key}\")")
    return "\n".join(lines)


def finding_line(finding: InvariantFinding) -> str:
    """`warning breaks-invariant: on problem p01, after ...`: one finding on one line (the CLI's, the Tests panel's)."""
    return f"{finding.severity.value} {finding.kind.value}: {finding.message}"


def finding_tooltip(finding: InvariantFinding) -> str:
    """A finding as the editor's underline tells it: the sentence, then the state where it shows."""
    lines = [finding_line(finding)]
    if finding.step is not None:
        where = f" on problem {finding.problem}" if finding.problem else ""
        after = f", after {' '.join(finding.prefix)}" if finding.prefix else ", in the initial state"
        lines.append(f"The state where {finding.step} applies{where}{after}:")
        lines.append("  " + (" ".join(finding.state) if finding.state else "(no atom holds)"))
    if finding.atoms:
        lines.append(f"Atoms that show it: {' '.join(finding.atoms)}")
    lines.append("If the action means to do this, dismiss the finding for it (Tests panel: Dismiss).")
    return "\n".join(lines)


def reports_for(bundle: DomainBundle, action: str, candidate=None) -> InvariantReport | None:
    """The invariant findings on `candidate` (None: the domain's own action), the domain's dismissals
    honoured; None when the domain has no problems to explore."""
    if not bundle.problems:
        return None
    from domain_drafter.core.dismissals import dismissed_for
    from domain_drafter.planning.invariant_findings import judge_action

    return judge_action(bundle.domain, [p.problem for p in bundle.problems], action, candidate,
                        dismissed=dismissed_for(bundle, action))


def dismiss(bundle: DomainBundle, action: str, dismissed: Sequence[str], restored: Sequence[str]) -> list[str]:
    """Save the dismissals (and restorations) asked for on the command line; the lines that say so."""
    from domain_drafter.core.dismissals import save_dismissal

    said = []
    for key in dismissed:
        path = save_dismissal(bundle, action, key)
        said.append(f"dismissed for {action}: {key} (saved in {path})")
    for key in restored:
        path = save_dismissal(bundle, action, key, dismiss=False)
        said.append(f"restored for {action}: {key} (saved in {path})")
    return said
