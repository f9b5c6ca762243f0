"""Domain-test results and quick fixes in words (Qt-free; the command line prints these, the app may show them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain_drafter.planning.tests_report import CaseResult, TestsReport, Verdict

if TYPE_CHECKING:   # only for the annotation: printing a report does not import the fix search
    from domain_drafter.planning.quick_fixes import QuickFix

_MARK = {Verdict.PASS: "pass", Verdict.FAIL: "FAIL", Verdict.UNPROVEN: "open"}


def format_case(result: CaseResult, *, verbose: bool = False) -> str:
    lines = [f"  {_MARK[result.verdict]:<4}  {result.name} ({result.kind.value}): {result.message}"]
    evidence = result.evidence
    if evidence is not None and (verbose or result.verdict is Verdict.FAIL):
        if evidence.plan:
            lines.append(f"        plan on {evidence.problem}: {' '.join(evidence.plan)}")
        if evidence.binding:
            lines.append("        with " + ", ".join(f"{k} = {v}" for k, v in evidence.binding))
        if evidence.state and result.verdict is Verdict.FAIL:
            lines.append(f"        state: {' '.join(evidence.state)}")
    return "\n".join(lines)


def format_tests_report(report: TestsReport, source: str = "", *, verbose: bool = False) -> str:
    head = f"{report.domain}: {len(report.results)} cases" + (f" from {source}" if source else "")
    body = [format_case(r, verbose=verbose) for r in report.results]
    return "\n".join([head, *body, report.summary()])


def format_quick_fix(number: int, fix: QuickFix) -> str:
    return f"quick fix {number}: {fix.summary}\n{fix.diff.rstrip()}"


def failures_in_words(report: TestsReport, limit: int = 5) -> list[str]:
    """The failing (then unproven) cases as sentences, for feedback to a model or a person: what the case
    asks, what happened, and the plan that shows it (already validated)."""
    lines = []
    for result in (*report.failed, *report.unproven)[:limit]:
        text = f"Test '{result.name}' ({result.kind.value}) {result.verdict.value}s: {result.message}."
        evidence = result.evidence
        if evidence is not None and evidence.plan and result.verdict is Verdict.FAIL:
            text += f" On problem {evidence.problem}, the plan {' '.join(evidence.plan)} shows it."
        lines.append(text)
    return lines


def format_starters(starters, tests_file: str) -> str:
    """The starter cases on offer (planning/starter_cases.Starters), one a line with its id, and how to keep one."""
    if not starters.starters:
        lines = ["no starter case to offer: the tests already hold them"]
    else:
        lines = [f"{len(starters.starters)} starter cases (keep one with --keep ID; it goes to {tests_file}):"]
        lines += [f"  {s.id}  [{s.source.value}]  {s.words}" for s in starters.starters]
    lines += [f"  note: {note}" for note in starters.notes]
    return "\n".join(lines)
