"""Authoring commands: `draft-domain`, `compare`, `describe`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from domain_drafter.cli.options import (
    add_draft_options,
    add_model_options,
    add_planner_options,
    evaluator,
    open_backend,
    verdict_exit_code,
)
from domain_drafter.core.errors import UsageError

if TYPE_CHECKING:
    from domain_drafter.core.bundle import DomainBundle
from domain_drafter.text.verdicts import format_comparison


def register(sub: argparse._SubParsersAction) -> None:
    """Add this module's subcommands to the top-level parser."""
    p = sub.add_parser("draft-domain", help="draft every action of a domain, save the draft as a bundle, "
                                            "judge it as a whole")
    p.add_argument("domain", help="bundled domain name, or a folder with domain.pddl, problems/ and descriptions.toml")
    p.add_argument("--out", required=True, help="folder to write the drafted bundle into (new or empty)")
    add_model_options(p, seed_help="seed for examples, descriptions and decoding (default 0)")
    add_draft_options(p)
    add_planner_options(p)
    p.add_argument("--search", action="store_true", help="with --blind: each action by a search (drafting/search.py)")
    p.add_argument("--blind", action="store_true",
                   help="draft each action blind (its reference hidden; the checks, problems, invariants and tests "
                        "judge, with the actions drafted so far in place), then compare the draft with the reference")
    p.add_argument("--guided", action="store_true",
                   help="with --search --blind: the guided search (no call writes an answer judged before)")
    p.add_argument("--no-tests", action="store_true",
                   help="with --blind: leave the domain's tests file out of the judge (the checks, solvability "
                        "and invariants alone), as for a domain that has no tests yet")
    p.add_argument("--budget", type=int, default=16, metavar="CALLS",
                   help="with --search --blind: model calls per action (default 16)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_draft_domain)

    p = sub.add_parser("compare", help="whole-domain equivalence of a candidate domain with a reference")
    p.add_argument("reference", help="bundled domain name, or a folder with domain.pddl and problems/")
    p.add_argument("candidate", help="a folder holding domain.pddl, or a domain.pddl file")
    add_planner_options(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("describe", help="write starter descriptions (descriptions.toml) for a bare domain.pddl")
    p.add_argument("domain", help="bundled domain name, a folder with domain.pddl, or a domain.pddl file")
    p.add_argument("--out", help="write here instead of printing (refuses to overwrite without --force)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.set_defaults(func=cmd_describe)


# ---------------------------------------------------------------- compare

def _candidate_domain(spec: str):
    from domain_drafter.core.bundle import DOMAIN_FILE, load_bundle_path

    path = Path(spec).expanduser()
    if path.is_dir():
        path = path / DOMAIN_FILE
    if not path.is_file():
        raise UsageError(f"no such domain file: {path}", hint="give a folder holding domain.pddl, or a domain.pddl")
    return load_bundle_path(path).domain   # parses and checks every action: errors name file:line:col


def cmd_compare(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle

    reference = load_bundle(args.reference)
    reference.require_problems()
    candidate = _candidate_domain(args.candidate)
    with evaluator(args) as judge:
        comparison = judge.compare(reference, candidate)
    if args.json:
        print(json.dumps(comparison.to_dict(), indent=2))
    else:
        print(format_comparison(comparison, reference))
    return _exit_code(comparison)


def _exit_code(comparison) -> int:
    return verdict_exit_code(comparison.verdict, comparison.error)


# ---------------------------------------------------------------- draft-domain

def cmd_draft_domain(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle, load_bundle_path, load_bundled
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.drafting.loop import DraftOptions
    from domain_drafter.drafting.whole_domain import draft_domain
    from domain_drafter.drafting.workspace import WorkingCopy
    from domain_drafter.llm.backend import DecodingOptions

    bundle = load_bundle(args.domain)
    bundle.require_descriptions()
    bundle.require_problems()
    out = Path(args.out).expanduser()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {out} exists and is not an empty folder", hint="give a new folder")
    options = DraftOptions(description_class=DescriptionClass.parse(args.description_class), seed=args.seed,
                           decoding=DecodingOptions(seed=args.seed, speculate=args.speculate),
                           grammar=args.grammar, retries=args.retries)
    if args.search and not args.blind:
        raise UsageError("draft-domain --search needs --blind", hint="draft-domain DOMAIN --search --blind --out DIR")
    if args.guided and not args.search:
        raise UsageError("draft-domain --guided needs --search --blind",
                         hint="draft-domain DOMAIN --search --guided --blind --out DIR")
    if args.no_tests and not args.blind:
        raise UsageError("draft-domain --no-tests needs --blind", hint="draft-domain DOMAIN --blind --no-tests --out DIR")
    if args.blind:
        from domain_drafter.cli.commands.blind_domain import draft_domain_blind_command

        return draft_domain_blind_command(args, bundle, out, options)
    backend = open_backend(args)   # a model that cannot load leaves no folder behind
    workspace = WorkingCopy.from_bundle(bundle)
    try:
        workspace.save(out)   # bound to the folder from now on: each accepted action is on disk at once
    except BaseException:
        backend.close()
        raise
    quiet = args.json

    def on_action(outcome) -> None:
        if not quiet:
            e = outcome.evaluation
            verdict = f"{e.result_class.value}: {e.subclass.value}" if e.subclass else f"error: {e.error.message}"
            are = f"ARE {e.are.total}" if e.are else "ARE -"
            print(f"  {outcome.name:<20} {verdict:<32} {are:<8} {e.message}", flush=True)

    with backend, evaluator(args) as judge:
        if not quiet:
            print(f"-- {backend.name}: drafting {bundle.name} ({len(bundle.action_names)} actions, "
                  f"{options.description_class.value}, seed {args.seed}{', grammar' if args.grammar else ''})",
                  flush=True)
        result = draft_domain(bundle, backend, judge, load_bundled(), options, workspace=workspace,
                              on_action=on_action)
    drafted = load_bundle_path(out)   # what we wrote must load back; an error here is ours, and says where
    per_action = _cases_per_action(bundle, drafted)
    if args.json:
        data = result.to_dict()
        data["out"] = str(out)
        data["tests"] = per_action
        print(json.dumps(data, indent=2))
    else:
        print(format_comparison(result.comparison, bundle))
        print(f"  ARE total {result.are_total} over {result.are_defined} of {len(result.outcomes)} actions")
        if result.failed:
            print(f"  left out of D' (failed the checks): {', '.join(result.failed)}")
        if per_action:
            print("  domain tests (tests.toml) on the drafted domain, per action:")
            for name, row in per_action.items():
                failing = f"; failing: {', '.join(row['failing'])}" if row["failing"] else ""
                print(f"    {name:<20} {row['passed']}/{row['total']} cases pass{failing}")
        print(f"  saved: {out} (history in {out / 'history.json'})")
    return _exit_code(result.comparison)


def _cases_per_action(source: DomainBundle, drafted: DomainBundle) -> dict:
    """The source domain's tests run on the drafted domain: per action, the cases about it that pass and fail
    ({} without a tests file). A case about several actions counts for each of them."""
    if source.tests_file is None:
        return {}
    from domain_drafter.core.errors import DrafterError
    from domain_drafter.core.tests_reader import load_tests
    from domain_drafter.planning.domain_tests import run_tests
    from domain_drafter.planning.tests_report import TestSettings

    try:
        tests = load_tests(drafted, path=source.tests_file)
    except DrafterError as exc:
        return {"error": {"passed": 0, "total": 0, "failing": [str(exc)]}}
    report = run_tests(drafted.domain, tests, settings=TestSettings(planner=False))
    by_name = {c.name: c for c in tests.cases}
    out: dict[str, dict] = {}
    for name in drafted.action_names:
        results = [r for r in report.results if name in by_name[r.name].actions]
        out[name] = {"passed": sum(1 for r in results if r.passed), "total": len(results),
                     "failing": [r.name for r in results if not r.passed]}
    return out


# ---------------------------------------------------------------- describe

def cmd_describe(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import DOMAIN_FILE, load_bundle, load_bundle_path
    from domain_drafter.core.paths import atomic_write_bytes
    from domain_drafter.core.scaffold import describe

    spec = Path(args.domain).expanduser()
    if spec.is_dir() and (spec / DOMAIN_FILE).is_file():
        bundle = load_bundle_path(spec / DOMAIN_FILE)   # only the domain: a broken descriptions.toml is no obstacle
    else:
        bundle = load_bundle(args.domain)
    text = describe(bundle.domain, bundle.domain_text)
    if not args.out:
        sys.stdout.write(text)
        return 0
    out = Path(args.out).expanduser()
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists", hint="choose another --out, or add --force to overwrite it")
    atomic_write_bytes(out, text.encode("utf-8"))
    print(f"wrote {out}: {len(bundle.domain.predicates)} predicates and {len(bundle.domain.actions)} actions, "
          "every entry under a # REVIEW line")
    return 0
