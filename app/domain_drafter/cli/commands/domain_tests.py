"""`test`: prove a domain's tests file, import or export vscode-pddl test manifests, suggest quick fixes.

Exit codes: 0 every case passes, 1 some case fails, 3 the tests file (or the domain) is bad,
4 no case fails but some stayed unproven. Nothing here writes a domain file; `--fix` prints diffs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from domain_drafter.cli.options import EXIT_NO_VERDICT, cancel_on_sigint
from domain_drafter.core.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("test", help="prove a domain's tests.toml: every case pass, fail or unproven")
    p.add_argument("domain", help="bundled domain name, or a folder with domain.pddl and tests.toml")
    p.add_argument("--tests", help="the tests file (default: DOMAIN/tests.toml)")
    p.add_argument("--case", action="append", metavar="NAME", help="run only this case (repeatable)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", "-v", action="store_true", help="show the evidence of passing cases too")
    p.add_argument("--fix", action="store_true",
                   help="for failing cases, print the smallest action edits that make every case pass (as diffs)")
    p.add_argument("--import-ptest", metavar="FILE", help="turn a vscode-pddl .ptest.json into cases (printed, "
                                                          "or written with --out)")
    p.add_argument("--export-ptest", metavar="FILE", help="write the cases a .ptest.json can hold to FILE")
    p.add_argument("--out", help="with --import-ptest: write the cases to this file instead of printing them")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--starters", action="store_true",
                   help="list starter cases: each problem stays solvable, the planner's plan for it stays valid, "
                        "never two atoms of a proven invariant at once (those the tests hold left out)")
    p.add_argument("--keep", action="append", metavar="ID",
                   help="append the starter case ID to the domain's tests file (a bundled domain's: your copy's, "
                        "in the data folder), then run it (repeatable)")
    p.set_defaults(func=cmd_test)


def _writable(path: Path) -> Path:
    """A path outside the bundled domains (the installed ones are never written)."""
    from domain_drafter.core.bundle import bundled_root

    resolved = path.expanduser().resolve()
    if resolved.is_relative_to(bundled_root().resolve()):
        raise UsageError(f"refusing to write inside the bundled domains: {path}",
                         hint="copy the domain folder first and work on the copy")
    return resolved


def cmd_test(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle

    bundle = load_bundle(args.domain)
    if args.import_ptest:
        return _import(args, bundle)
    if args.starters or args.keep:
        return _starters(args, bundle)
    tests = _load_tests(bundle, Path(args.tests) if args.tests else None)
    if args.export_ptest:
        return _export(args, bundle, tests)
    if args.case:
        unknown = [n for n in args.case if n not in tests.names]
        if unknown:
            raise UsageError(f"no case '{unknown[0]}' in {tests.path}", hint="cases: " + ", ".join(tests.names))
        tests = tests.select(args.case)
    from domain_drafter.planning.domain_tests import Verdict, run_tests
    from domain_drafter.planning.state_cache import StateCache

    with cancel_on_sigint() as task:
        report = run_tests(bundle.domain, tests, domain_text=bundle.domain_text, states=StateCache(), task=task)
        search = None
        if args.fix and report.failed:
            from domain_drafter.planning.quick_fixes import quick_fixes

            search = quick_fixes(bundle.domain, tests, report=report, task=task)
    invariants = _invariants(bundle)
    if args.json:
        out = report.to_dict()
        if search is not None:
            out["quick_fixes"] = search.to_dict()
        out["invariants"] = {r.action: r.to_dict() for r in invariants}
        print(json.dumps(out, indent=2))
    else:
        from domain_drafter.text.domain_tests import format_quick_fix, format_tests_report

        print(format_tests_report(report, str(tests.path), verbose=args.verbose))
        if search is not None:
            if not search.fixes:
                print(f"no quick fix: {search.candidates} edits of one or two atoms tried in {search.elapsed_s:.1f} s"
                      + ("" if search.complete else " (stopped by the time limit)"))
            for number, fix in enumerate(search.fixes, start=1):
                print(format_quick_fix(number, fix))
        from domain_drafter.text.invariants import format_invariant_report

        for r in invariants:
            if r.findings or r.dismissed or not r.complete:
                print(format_invariant_report(r))
        if invariants and not any(r.findings for r in invariants):
            print(f"invariants: nothing found on the {len(invariants)} actions (each judged by what the others keep)")
    if report.failed:
        return 1
    return EXIT_NO_VERDICT if report.count(Verdict.UNPROVEN) else 0


def _load_tests(bundle, path: Path | None):
    """The tests file given, or the domain's (for a bundled domain, the user's copy's once it has one)."""
    from domain_drafter.core.tests_files import read_tests_at, tests_file_of
    from domain_drafter.core.tests_reader import load_tests

    path = path or tests_file_of(bundle)
    if path.is_file() and path.parent.resolve() != bundle.folder.resolve():
        return read_tests_at(path, path.read_text(encoding="utf-8"), bundle, bundle.domain)
    return load_tests(bundle, path)


def _starters(args: argparse.Namespace, bundle) -> int:
    """--starters: list the starter cases; --keep: append the chosen ones and run them."""
    from domain_drafter.core.tests_files import domain_tests_of, writable_tests_file
    from domain_drafter.core.user_domains import is_bundled, user_copy_folder
    from domain_drafter.planning.kstar import KStarPlanner
    from domain_drafter.planning.plan_cache import PlanCache
    from domain_drafter.planning.starter_cases import keep_starter, starter_cases
    from domain_drafter.text.domain_tests import format_starters

    with cancel_on_sigint() as task:
        starters = starter_cases(bundle, domain_tests_of(bundle), plans=PlanCache(KStarPlanner()), task=task)
    chosen = [starters.find(i) for i in args.keep or ()]   # every id checked before anything is written
    if not chosen:
        target = user_copy_folder(bundle) / "tests.toml" if is_bundled(bundle.folder) else bundle.folder / "tests.toml"
        print(json.dumps(starters.to_dict(), indent=2) if args.json else format_starters(starters, str(target)))
        return 0
    names = []
    for starter in chosen:
        path, name = keep_starter(bundle, starter)
        names.append(name)
        print(f"kept {name} in {path}", file=sys.stderr)
    args.tests, args.case, args.starters, args.keep = str(writable_tests_file(bundle)), names, False, None
    return cmd_test(args)   # the kept cases, run by the test runner


def _invariants(bundle) -> list:
    """Each action of the domain as written, judged by what its other actions keep (issue 37)."""
    from domain_drafter.text.invariants import reports_for

    found = [reports_for(bundle, action) for action in bundle.action_names]
    return [r for r in found if r is not None]


def _import(args: argparse.Namespace, bundle) -> int:
    from domain_drafter.core.paths import atomic_write_bytes
    from domain_drafter.core.ptest import import_ptest

    result = import_ptest(Path(args.import_ptest), bundle.folder, bundle.problems)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.out:
        out = _writable(Path(args.out))
        if out.exists() and not args.force:
            raise UsageError(f"{out} exists", hint="use --force to overwrite it, or another --out")
        atomic_write_bytes(out, result.toml.encode("utf-8"))
        print(f"{len(result.cases)} cases written to {out}", file=sys.stderr)
    else:
        sys.stdout.write(result.toml)
    return 0


def _export(args: argparse.Namespace, bundle, tests) -> int:
    from domain_drafter.core.ptest import export_ptest

    result = export_ptest(tests, bundle.path, _writable(Path(args.export_ptest)))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(f"{len(result.written)} of {len(tests.cases)} cases written to {result.path}")
        for name, why in result.skipped:
            print(f"  not held: {name}: {why}")
    return 0
