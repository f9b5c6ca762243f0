"""`check`, `evaluate` and `validate`: judge an answer, or a plan, from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from domain_drafter.cli.options import (
    add_planner_options,
    add_target,
    cancel_on_sigint,
    evaluator,
    read_answer,
    verdict_exit_code,
)
from domain_drafter.core.errors import UsageError
from domain_drafter.text.verdicts import format_check, format_evaluation


def cmd_check(args: argparse.Namespace) -> int:
    from domain_drafter.core.answers import check_answer
    from domain_drafter.core.are import action_reconstruction_error
    from domain_drafter.core.bundle import load_bundle

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    answer = read_answer(args.answer)
    report = check_answer(answer, bundle.domain, action)
    are = action_reconstruction_error(bundle.domain.action(action), report.action) if report.action else None
    invariants = _invariants(args, bundle, action, report)
    if args.json:
        out = report.to_dict()
        out["are"] = are.to_dict() if are else None
        out["invariants"] = invariants.to_dict() if invariants is not None else None
        print(json.dumps(out, indent=2))
    else:
        print(format_check(report, are))
        _print_invariants(invariants)
    return 0 if report.passed else 1


def _invariants(args: argparse.Namespace, bundle, action: str, check):
    """The invariant findings on a checked answer (issue 37), after saving any --dismiss/--restore asked for;
    None when the answer did not pass the checks or the domain has no problems."""
    import sys

    from domain_drafter.text.invariants import dismiss, reports_for

    for line in dismiss(bundle, action, args.dismiss or (), args.restore or ()):
        print(line, file=sys.stderr)
    if not check.passed or check.action is None:
        return None
    return reports_for(bundle, action, check.action)


def _print_invariants(report) -> None:
    if report is not None:
        from domain_drafter.text.invariants import format_invariant_report

        print(format_invariant_report(report))


def cmd_evaluate(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    answer = read_answer(args.answer)
    with evaluator(args, use_verdict_cache=not args.no_cache) as judge, cancel_on_sigint() as task:
        result = judge.evaluate(bundle, action, answer, task=task)
    invariants = _invariants(args, bundle, action, result.check)
    if args.json:
        out = result.to_dict()
        out["invariants"] = invariants.to_dict() if invariants is not None else None
        print(json.dumps(out, indent=2))
    else:
        print(format_evaluation(result))
        _print_invariants(invariants)
    return verdict_exit_code(result.subclass, result.error)


def cmd_validate(args: argparse.Namespace) -> int:
    from domain_drafter.core.reader import read_domain, read_problem
    from domain_drafter.planning.validator import PlanValidator, read_plan

    paths = [Path(args.domain_file), Path(args.problem_file), Path(args.plan_file)]
    texts = []
    for path in paths:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot read: {exc.strerror}", where=path) from None
    domain, _ = read_domain(texts[0], paths[0])
    problem = read_problem(texts[1], paths[1])
    plan = read_plan(texts[2], paths[2])
    verdict = PlanValidator(domain, problem).validate(plan)
    if verdict.valid:
        print(f"Plan valid: {len(plan)} steps reach the goal of {problem.name}.")
        return 0
    print(f"Plan invalid: {verdict.message}")
    return 1


def _add_dismiss_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dismiss", action="append", metavar="KEY",
                   help="dismiss the invariant finding with this key for ACTION, saved with the domain (repeatable)")
    p.add_argument("--restore", action="append", metavar="KEY", help="undo a --dismiss for ACTION (repeatable)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="classify an answer (syntax and semantic checks) and give its ARE")
    add_target(p, "bundled domain name, or a folder with domain.pddl")
    p.add_argument("--json", action="store_true")
    _add_dismiss_options(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("evaluate", help="the full verdict: checks, ARE and equivalence with the reference")
    add_target(p, "bundled domain name, or a folder with domain.pddl and problems/*.pddl")
    add_planner_options(p)
    p.add_argument("--no-cache", action="store_true", help="do not use or store cached verdicts")
    p.add_argument("--json", action="store_true")
    _add_dismiss_options(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("validate", help="VAL-like plan validation: exit 0 valid, 1 invalid")
    p.add_argument("domain_file")
    p.add_argument("problem_file")
    p.add_argument("plan_file")
    p.set_defaults(func=cmd_validate)
