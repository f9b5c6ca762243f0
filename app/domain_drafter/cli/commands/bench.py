"""`domain-drafter bench ...`: run, import, report and inspect batch benchmarks."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

from domain_drafter.cli.options import EXIT_INTERRUPTED, add_equivalence_option, add_planner_options, cancel_on_sigint

GRAMMAR_MODES = {"off": (False,), "on": (True,), "both": (False, True)}


def _apply_overrides(spec, args: argparse.Namespace):
    changes = {}
    if args.prompts_per_action is not None:
        changes["prompts_per_action"] = args.prompts_per_action
    if getattr(args, "first_seed", None) is not None:
        changes["first_seed"] = args.first_seed
    if args.grammar is not None:
        changes["grammar"] = GRAMMAR_MODES[args.grammar]
    if args.domains:
        changes["domains"] = tuple(d.strip() for d in args.domains.split(",") if d.strip())
    if args.classes:
        changes["classes"] = tuple(c.strip().lower() for c in args.classes.split(",") if c.strip())
    if args.name:
        changes["name"] = args.name
    if getattr(args, "batch", None) is not None:
        changes["batch"] = args.batch
    if args.equivalence is not None:
        changes["equivalence"] = args.equivalence
    if getattr(args, "strategies", None):
        from domain_drafter.bench.spec import STRATEGIES
        from domain_drafter.core.errors import UsageError

        names = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
        unknown = [n for n in names if n not in STRATEGIES]
        if unknown or not names:
            raise UsageError(f"unknown strateg{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown) or '(none)'}",
                             hint="--strategies takes a comma-separated list of " + ", ".join(STRATEGIES))
        changes["strategies"] = names
    if getattr(args, "threads", None) is not None:
        changes["threads"] = args.threads
    return spec.with_overrides(**changes) if changes else spec


def cmd_bench_run(args: argparse.Namespace) -> int:
    from domain_drafter.bench.progress import ProgressPrinter
    from domain_drafter.bench.runner import generator_count, run_experiment
    from domain_drafter.bench.spec import load_spec

    spec = _apply_overrides(load_spec(args.spec), args)
    out = Path(args.out) if args.out else Path(f"{spec.name}.sqlite")
    printer = ProgressPrinter(plain=True if args.plain else None)
    tasks = len(spec.tasks())
    generators, warning = generator_count(spec, args.generators)
    local = [m for m in spec.models if not m.endpoint]
    print(f"bench: {spec.name}: {tasks} tasks ({len(spec.systems())} system(s)) -> {out}"
          + (f"; {generators} generator process(es) per local model" if local and generators > 1 else ""),
          file=sys.stderr)
    if warning and local:
        print(f"warning: {warning}", file=sys.stderr)
    timed_out = threading.Event()
    with cancel_on_sigint(sigterm=True, check=False) as task:
        def time_is_up() -> None:
            timed_out.set()
            task.cancel()

        timer = threading.Timer(args.max_minutes * 60, time_is_up) if args.max_minutes else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            summary = run_experiment(spec, out, resume=args.resume, executor=args.executor, workers=args.workers,
                                     generators=args.generators, task=task, on_progress=printer)
        finally:
            printer.close()
            if timer is not None:
                timer.cancel()
    print(f"results: {summary.path} ({summary.evaluated}/{summary.total} tasks judged; "
          f"{summary.generated_now} generated and {summary.evaluated_now} judged now)")
    if summary.cancelled:
        why = f"after {args.max_minutes:g} minutes" if timed_out.is_set() else "by a signal"
        print(f"stopped {why}; add --resume to continue", file=sys.stderr)
        if not timed_out.is_set():
            return EXIT_INTERRUPTED
    return 0 if summary.evaluated == summary.total else 1


def cmd_bench_import(args: argparse.Namespace) -> int:
    from domain_drafter.bench.importer import import_answers
    from domain_drafter.bench.progress import ProgressPrinter

    source = Path(args.answers)
    out = Path(args.out) if args.out else source.with_suffix(".sqlite")
    printer = ProgressPrinter(plain=True if args.plain else None)
    try:
        summary = import_answers(source, out, k=args.k, time_limit_s=args.time_limit, executor=args.executor,
                                 workers=args.workers, on_progress=printer, equivalence=args.equivalence)
    finally:
        printer.close()
    for problem in summary.problems:
        print(f"{source}:{problem.line}: skipped: {problem.message}", file=sys.stderr)
    print(f"results: {summary.path} ({summary.stored} answers judged, {len(summary.problems)} line(s) skipped)")
    return 0 if not summary.problems else 1


def cmd_bench_rejudge(args: argparse.Namespace) -> int:
    from domain_drafter.bench.progress import ProgressPrinter
    from domain_drafter.bench.rejudge import rejudge
    from domain_drafter.bench.spec import load_spec

    spec = load_spec(args.spec) if args.spec else None
    printer = ProgressPrinter(plain=True if args.plain else None)
    try:
        summary = rejudge([Path(s) for s in args.source], Path(args.out), spec=spec, equivalence=args.equivalence,
                          executor=args.executor, workers=args.workers, on_progress=printer)
    finally:
        printer.close()
    if summary.unknown:
        print(f"skipped {len(summary.unknown)} stored answer(s) that are no task of the experiment, e.g. "
              f"{summary.unknown[0]}", file=sys.stderr)
    if summary.missing:
        print(f"{len(summary.missing)} task(s) have no stored answer and stay pending, e.g. {summary.missing[0]}",
              file=sys.stderr)
    print(f"results: {summary.path} ({summary.evaluated}/{summary.total} tasks judged; {summary.judged_now} now)")
    return 0 if summary.evaluated == summary.total else 1


def cmd_bench_export(args: argparse.Namespace) -> int:
    from domain_drafter.bench.export import export_answers

    n = export_answers(Path(args.results), Path(args.out))
    print(f"{args.out}: {n} judged answers")
    return 0


def cmd_bench_report(args: argparse.Namespace) -> int:
    from domain_drafter.bench.report import write_report

    files = write_report(Path(args.results), Path(args.out), with_paper=args.with_paper, figures=not args.no_figures)
    for path in files:
        print(path)
    return 0


def cmd_bench_status(args: argparse.Namespace) -> int:
    from domain_drafter.bench.status import run_status

    status = run_status(Path(args.results))
    if args.json:
        print(json.dumps(status, indent=2))
        return 0
    for run in status["runs"]:
        state = "finished" if run["finished"] else "not finished"
        print(f"run {run['id']} ({run['kind']}) {run['name']}: {state}; versions "
              + ", ".join(f"{k} {v}" for k, v in run["versions"].items()))
    print(f"tasks: {status['total']} ({', '.join(f'{k} {v}' for k, v in sorted(status['by_status'].items()))})")
    for system, counts in status["by_system"].items():
        print(f"  {system}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for system, counts in status["equivalents"].items():
        print(f"  {system}: Equivalent " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if status["by_generator"]:
        print("written by: " + ", ".join(f"{k} {v}" for k, v in status["by_generator"].items()))
    if status["speed"]:
        from domain_drafter.bench.progress import format_eta

        fast = status["speed"]
        print(f"speed: {fast['answers_per_min']:.1f} answers/min over the last {fast['over_answers']} answers; "
              f"{fast['pending']} pending, eta {format_eta(fast['eta_s'])} at that speed")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add this module's subcommands to the top-level parser."""
    bench = sub.add_parser("bench", help="batch benchmarks: run experiments, import answers, write reports")
    bsub = bench.add_subparsers(dest="bench_command", required=True, metavar="BENCH_COMMAND")

    p = bsub.add_parser("run", help="run (or --resume) an experiment spec into a results file")
    p.add_argument("spec", help="experiment .toml (see resources/experiments/)")
    p.add_argument("--out", help="results .sqlite (default: SPEC-NAME.sqlite here)")
    p.add_argument("--resume", action="store_true", help="continue the experiment already in --out")
    p.add_argument("--executor", default=None, help="'local' (default) or dask://HOST:PORT")
    p.add_argument("--workers", type=int, default=None, help="local evaluation processes (default: the spec's)")
    p.add_argument("--generators", type=int, default=None,
                   help="processes generating with a local model, each with its own loaded model and --threads "
                        "cores (default: the spec's, else cores // threads); not part of the fingerprint")
    p.add_argument("--prompts-per-action", type=int, default=None, help="override the spec's prompts per action")
    p.add_argument("--first-seed", type=int, default=None,
                   help="override the spec's first prompt seed (a shard of seeds; see bench rejudge to merge)")
    p.add_argument("--grammar", choices=sorted(GRAMMAR_MODES), default=None,
                   help="decoding modes: off, on, or both side by side (default: the spec's)")
    p.add_argument("--domains", help="comma-separated domains instead of the spec's")
    p.add_argument("--classes", help="comma-separated description classes instead of the spec's")
    p.add_argument("--name", help="experiment name instead of the spec's")
    p.add_argument("--batch", type=int, default=None, help="answers decoded together by llama.cpp (default: the spec's)")
    p.add_argument("--strategies", help="comma-separated strategies instead of the spec's (one-shot, retries, "
                                        "best-of, search): a shard of the experiment, merged with `bench rejudge`")
    p.add_argument("--threads", type=int, default=None,
                   help="llama.cpp threads (default: the spec's; not part of the experiment's fingerprint)")
    add_equivalence_option(p, from_spec=True)
    p.add_argument("--max-minutes", type=float, default=None,
                   help="stop cleanly after this long (the answer being written is dropped); --resume continues")
    p.add_argument("--plain", action="store_true", help="plain progress lines even on a terminal")
    p.set_defaults(func=cmd_bench_run)

    p = bsub.add_parser("import", help="judge answers produced elsewhere (JSONL) into a results file")
    p.add_argument("answers", help="JSONL, one {domain, action, class, model, output} per line")
    p.add_argument("--out", help="results .sqlite (default: beside the JSONL)")
    p.add_argument("--executor", default=None, help="'local' (default) or dask://HOST:PORT")
    p.add_argument("--workers", type=int, default=1, help="local evaluation processes (default 1)")
    add_planner_options(p, equivalence=False)
    add_equivalence_option(p)
    p.add_argument("--plain", action="store_true", help="plain progress lines even on a terminal")
    p.set_defaults(func=cmd_bench_import)

    p = bsub.add_parser("rejudge", help="judge the answers of a results file (or answers JSONL) again, "
                                        "without generating: e.g. with both verdicts after an upgrade")
    p.add_argument("source", nargs="+", help="results .sqlite, or answers JSONL (then --spec is needed); "
                   "several merge shards of one experiment (with --spec of the whole experiment)")
    p.add_argument("--out", required=True, help="the new results .sqlite (run again to continue it)")
    p.add_argument("--spec", help="the experiment .toml that made the answers (default: the one stored in SOURCE)")
    add_equivalence_option(p)
    p.add_argument("--executor", default=None, help="'local' (default) or dask://HOST:PORT")
    p.add_argument("--workers", type=int, default=None, help="local evaluation processes (default: the spec's)")
    p.add_argument("--plain", action="store_true", help="plain progress lines even on a terminal")
    p.set_defaults(func=cmd_bench_rejudge)

    p = bsub.add_parser("export", help="the judged answers of a results file as JSONL (for `bench import`, "
                                       "`bench rejudge` and your own analysis)")
    p.add_argument("results")
    p.add_argument("--out", required=True, help="the .jsonl file to write")
    p.set_defaults(func=cmd_bench_export)

    p = bsub.add_parser("report", help="Table 1 (Markdown, CSV, HTML) and figures (PNG, SVG) from a results file")
    p.add_argument("results")
    p.add_argument("--out", required=True, help="folder for the report files")
    p.add_argument("--with-paper", action="store_true", help="show the paper's Table 1 beside ours")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.set_defaults(func=cmd_bench_report)

    p = bsub.add_parser("status", help="how far a results file is, per system")
    p.add_argument("results")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench_status)
