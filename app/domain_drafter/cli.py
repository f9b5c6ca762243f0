"""The `domain-drafter` command line: thin subcommands over the engine. Never imports Qt."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator, Sequence

from domain_drafter import __version__
from domain_drafter.core.errors import DrafterError, SourceLocation, UsageError
from domain_drafter.core.tasks import Cancelled, TaskState

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells expect of a command stopped by Ctrl-C

Command = Callable[[argparse.Namespace], int]


def _read_answer(spec: str | None) -> str:
    if spec in (None, "-"):
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(spec).read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read the answer file: {exc.strerror}", where=spec) from None
    return data.decode("utf-8", errors="replace")


@contextlib.contextmanager
def cancel_on_sigint() -> Iterator[TaskState]:
    """A task that Ctrl-C cancels, instead of raising KeyboardInterrupt wherever the main thread is.

    The engine then stops its own way: K* process groups killed, temp dirs removed, workers
    joined; the command raises Cancelled and exits 130. A second Ctrl-C changes nothing (the
    stop is already under way, and interrupting it would leave planners and temp dirs behind).
    """
    task = TaskState()
    if threading.current_thread() is not threading.main_thread():
        yield task
        return

    def on_sigint(signum: int, frame: object) -> None:
        if not task.cancelled:
            print("domain-drafter: stopping...", file=sys.stderr, flush=True)
        task.cancel()
        # Further Ctrl-Cs are ignored by the OS from now on: a Python handler would be reset to the
        # default one while the interpreter shuts down, and a late Ctrl-C would then kill the process
        # by SIGINT instead of letting it exit 130.
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield task
        task.check_cancelled()  # Ctrl-C during the last, uncancellable step still means "stopped"
    finally:
        # Once stopping, the command only exits, still ignoring Ctrl-C (see on_sigint).
        if not task.cancelled:
            signal.signal(signal.SIGINT, previous)


def cmd_domains(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundled

    bundles = load_bundled()
    if args.json:
        print(json.dumps([{"name": b.name, "predicates": len(b.domain.predicates), "actions": list(b.action_names),
                           "problems": [p.name for p in b.problems]} for b in bundles], indent=2))
        return 0
    print(f"{'domain':<18}{'preds':>6}{'actions':>8}{'problems':>9}  actions")
    for b in bundles:
        print(f"{b.name:<18}{len(b.domain.predicates):>6}{len(b.domain.actions):>8}{len(b.problems):>9}  "
              + ", ".join(b.action_names))
    total = sum(len(b.domain.actions) for b in bundles)
    print(f"{len(bundles)} domains, {total} actions")
    return 0


def cmd_prompt(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle, load_bundled
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.core.prompt import build_prompt, load_template

    bundle = load_bundle(args.domain)
    prompt = build_prompt(bundle, args.action, load_bundled(), DescriptionClass.parse(args.description_class),
                          args.seed, args.examples, load_template(Path(args.template)) if args.template else None)
    if args.json:
        print(json.dumps(prompt.to_dict(), indent=2))
    else:
        sys.stdout.write(prompt.text)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from domain_drafter.core.answers import check_answer
    from domain_drafter.core.are import action_reconstruction_error
    from domain_drafter.core.bundle import load_bundle

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    answer = _read_answer(args.answer)
    report = check_answer(answer, bundle.domain, action)
    are = action_reconstruction_error(bundle.domain.action(action), report.action) if report.action else None
    if args.json:
        out = report.to_dict()
        out["are"] = are.to_dict() if are else None
        print(json.dumps(out, indent=2))
    else:
        print(format_check(report, are))
    return 0 if report.passed else 1


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
            if len(line_text) <= 160:
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


def cmd_evaluate(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle
    from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    answer = _read_answer(args.answer)
    options = EvaluationOptions(k=args.k, time_limit_s=args.time_limit, use_verdict_cache=not args.no_cache)
    with Evaluator(options) as evaluator, cancel_on_sigint() as task:
        result = evaluator.evaluate(bundle, action, answer, task=task)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(format_evaluation(result))
    if result.error:
        return 4
    return 0 if result.subclass is not None and result.subclass.value == "Equivalent" else 1


def format_evaluation(result) -> str:
    """The verdict line, the check's findings, the counterexample and the ARE."""
    if result.equivalence is None:
        return format_check(result.check, result.are)
    lines = []
    if result.error:
        lines.append(f"error: {result.error}")
    else:
        lines.append(f"{result.result_class.value}: {result.subclass.value}"
                     + (" (cached)" if result.cached else ""))
    lines.append(f"  {result.message}")
    cx = result.equivalence.counterexample
    if cx is not None and cx.plan:
        failing = cx.validation.step if cx.validation is not None else None
        lines.append(f"  counterexample ({cx.direction.replace('-', ' ')}), problem {cx.problem}:")
        for number, step in enumerate(cx.plan, start=1):
            mark = "  <-- fails here" if number == failing else ""
            lines.append(f"    {number:>3}. {step}{mark}")
    if result.are is not None:
        lines.extend(format_are(result.are))
    lines.append(f"  time: {result.timings.get('total_s', 0.0):.2f} s")
    return "\n".join(lines)


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


def cmd_models(args: argparse.Namespace) -> int:
    from domain_drafter.llm.models import list_models

    entries = list_models()
    if args.json:
        print(json.dumps([{"name": e.name, "path": str(e.path), "size": e.size, "source": e.source}
                          for e in entries], indent=2))
        return 0
    for e in entries:
        size = f"{e.size / 2**20:,.0f} MiB" if e.size else "not assembled yet"
        print(f"{e.source:<8} {e.name:<40} {size:>18}  {e.path}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle, load_bundled
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.core.prompt import load_template
    from domain_drafter.llm.backend import DecodingOptions
    from domain_drafter.drafting.loop import DraftOptions, Feedback, draft_action
    from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    bundle.require_descriptions()
    template = load_template(Path(args.template)) if args.template else None
    options = DraftOptions(
        description_class=DescriptionClass.parse(args.description_class), seed=args.seed, examples=args.examples,
        decoding=DecodingOptions(max_tokens=args.max_tokens, seed=args.seed), grammar=args.grammar,
        lock_signature=not args.free_signature, retries=args.retries, feedback=Feedback(args.feedback))
    backend = _open_backend(args)
    streaming = not args.json

    def on_token(piece: str) -> None:
        if streaming:
            sys.stdout.write(piece)
            sys.stdout.flush()

    def on_round(round_) -> None:
        if streaming:
            print("\n" + format_evaluation(round_.evaluation))
            if round_.diagnostic:
                print(f"\n-- corrective round: told the model: {round_.diagnostic}\n")

    with backend, Evaluator(EvaluationOptions(k=args.k, time_limit_s=args.time_limit)) as evaluator, \
            cancel_on_sigint() as task:
        if args.show_prompt and streaming:
            from domain_drafter.core.prompt import build_prompt
            print(build_prompt(bundle, action, load_bundled(), options.description_class, options.seed,
                               options.examples, template).text, end="")
        elif streaming:
            print(f"-- {backend.name}: {bundle.name}/{action} ({options.description_class.value}, seed {args.seed}"
                  f"{', grammar' if args.grammar else ''})")
        draft = draft_action(bundle, action, backend, evaluator, load_bundled(), options, template=template,
                             on_token=on_token, on_round=on_round, task=task)
    if args.json:
        print(json.dumps(draft.to_dict(), indent=2))
    final = draft.final
    if final.error:
        return 4
    return 0 if final.subclass is not None and final.subclass.value == "Equivalent" else 1


def _open_backend(args: argparse.Namespace):
    if args.endpoint:
        from domain_drafter.llm.http import OpenAICompletionsBackend

        return OpenAICompletionsBackend(args.endpoint, model=None if args.model == "default" else args.model)
    from domain_drafter.llm.llama import LlamaCppBackend
    from domain_drafter.llm.models import resolve_model

    return LlamaCppBackend(resolve_model(args.model), n_ctx=args.n_ctx, n_threads=args.threads, seed=args.seed)


def _add_target(p: argparse.ArgumentParser, domain_help: str, answer: bool = True) -> None:
    """The DOMAIN ACTION [ANSWER] arguments most subcommands share."""
    p.add_argument("domain", help=domain_help)
    p.add_argument("action")
    if answer:
        p.add_argument("answer", nargs="?", help="file holding the model's answer; '-' or nothing for stdin")


def _add_planner_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=int, default=100, help="top-k plans per problem (default 100)")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds per planner call (default 30)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domain-drafter",
                                     description="Write PDDL actions with a local language model and check them.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--self-test", action="store_true",
                        help="check every part (domains, model, K*, desktop app) and say what to do if one fails")
    sub = parser.add_subparsers(dest="command", required=False, metavar="COMMAND")

    p = sub.add_parser("domains", help="list the bundled domains")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_domains)

    p = sub.add_parser("prompt", help="print the prompt for one action")
    _add_target(p, "bundled domain name, or a folder with domain.pddl and descriptions.toml", answer=False)
    p.add_argument("--class", dest="description_class", default="base", help="base, flipped or random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--examples", type=int, default=3, help="number of context examples (default 3)")
    p.add_argument("--template", help="a prompt template .toml (default: the paper's)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_prompt)

    p = sub.add_parser("check", help="classify an answer (syntax and semantic checks) and give its ARE")
    _add_target(p, "bundled domain name, or a folder with domain.pddl")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("evaluate", help="the full verdict: checks, ARE and plan-based equivalence with K*")
    _add_target(p, "bundled domain name, or a folder with domain.pddl and problems/*.pddl")
    _add_planner_options(p)
    p.add_argument("--no-cache", action="store_true", help="do not use or store cached verdicts")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("models", help="list the language models Domain Drafter can use")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("generate", help="ask a model for one action, stream its answer, then evaluate it")
    _add_target(p, "bundled domain name, or a folder with domain.pddl, problems/ and descriptions.toml", answer=False)
    p.add_argument("--model", default="default", help="'default' (the embedded Gemma 3 270M) or a GGUF path")
    p.add_argument("--endpoint", help="an OpenAI-compatible server's base URL instead of a local model")
    p.add_argument("--class", dest="description_class", default="base", help="base, flipped or random")
    p.add_argument("--seed", type=int, default=0, help="seed for the examples and descriptions (default 0)")
    p.add_argument("--examples", type=int, default=3, help="context examples in the prompt (default 3)")
    p.add_argument("--max-tokens", type=int, default=300, help="new tokens at most (paper: 300)")
    p.add_argument("--grammar", action="store_true", help="constrain decoding to one well-formed action")
    p.add_argument("--free-signature", action="store_true",
                   help="with --grammar: let the model choose parameters (may yield semantic errors)")
    p.add_argument("--retries", type=int, default=0, help="corrective rounds after a failed check (default 0)")
    p.add_argument("--feedback", choices=["checks", "plans"], default="checks",
                   help="what corrective rounds may say: checks only, or also counterexample plans")
    p.add_argument("--show-prompt", action="store_true", help="print the prompt before the answer")
    p.add_argument("--n-ctx", type=int, default=4096, help="model context size in tokens (default 4096)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all)")
    p.add_argument("--template", help="a prompt template .toml (default: the paper's)")
    _add_planner_options(p)
    p.add_argument("--json", action="store_true", help="print all rounds as JSON instead of streaming")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("validate", help="VAL-like plan validation: exit 0 valid, 1 invalid")
    p.add_argument("domain_file")
    p.add_argument("problem_file")
    p.add_argument("plan_file")
    p.set_defaults(func=cmd_validate)

    # Command groups that live in their own modules (each keeps its heavy imports inside its commands).
    from domain_drafter import cli_authoring, cli_bench

    cli_bench.register(sub)
    cli_authoring.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.self_test:
        from domain_drafter.selftest import main as self_test

        return self_test()
    if args.command is None:
        parser.error("a COMMAND is required (or --self-test)")
    try:
        return args.func(args)
    except DrafterError as err:
        print(f"domain-drafter: {err.message}", file=sys.stderr)
        return err.exit_code
    except (KeyboardInterrupt, Cancelled):
        print("domain-drafter: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
