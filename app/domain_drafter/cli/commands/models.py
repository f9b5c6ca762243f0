"""`domain-drafter models ...`: the model catalogue beside the installed models, download, speed check.

    domain-drafter models                 the catalogue and the installed models (also `models list`)
    domain-drafter models pull NAME       download a catalogue model into the user's models folder
    domain-drafter models check NAME|PATH load it, measure tokens/s and memory, estimate run times

The engine is imported inside the commands.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

_MIB = float(1 << 20)


def cmd_models_list(args: argparse.Namespace) -> int:
    from domain_drafter.llm.catalogue import RAM_NOTE, gb_text, installed_path, load_catalogue
    from domain_drafter.llm.models import list_models, user_models_dir

    entries = list_models()
    catalogue = load_catalogue()
    if args.json:
        print(json.dumps({
            "catalogue": [{"name": m.name, "title": m.title, "repo": m.repo, "file": m.file, "revision": m.revision,
                           "quant": m.quant, "size": m.size, "ram": m.ram,
                           "ram_measured": m.ram_measured, "licence": m.licence,
                           "prompt_format": m.prompt_format, "sha256": m.sha256, "embedded": m.embedded,
                           "installed": str(p) if (p := installed_path(m, entries)) else None}
                          for m in catalogue],
            "installed": [{"name": e.name, "path": str(e.path), "size": e.size, "source": e.source} for e in entries],
        }, indent=2))
        return 0
    print("Catalogue (domain-drafter models pull NAME):")
    print(f"  {'name':<22}{'size':>9}{'RAM':>9}  {'format':<11}{'licence':<29}installed")
    for m in catalogue:
        where = installed_path(m, entries)
        state = "embedded" if m.embedded else ("yes" if where else "-")
        print(f"  {m.name:<22}{gb_text(m.size):>9}{m.ram_text:>9}  {m.prompt_format:<11}{m.licence:<29}{state}")
    print(f"  {RAM_NOTE}")
    print(f"\nInstalled (the models folder is {user_models_dir()}):")
    for e in entries:
        size = f"{e.size / _MIB:,.0f} MiB" if e.size else "not assembled yet"
        print(f"  {e.source:<8} {e.name:<40} {size:>18}  {e.path}")
    return 0


class _ProgressLine:
    """One progress line on stderr, rewritten in place on a terminal and printed every 10% otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self._last_tenth = -1

    def __call__(self, done: int, total: int, message: str) -> None:
        if self.tty:
            print(f"\r{message[:110]:<110}", end="", file=sys.stderr, flush=True)
            return
        tenth = done * 10 // total if total else 0
        if tenth != self._last_tenth:
            self._last_tenth = tenth
            print(message, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty:
            print(file=sys.stderr, flush=True)


def cmd_models_pull(args: argparse.Namespace) -> int:
    from domain_drafter.cli.options import cancel_on_sigint
    from domain_drafter.llm.catalogue import load_catalogue
    from domain_drafter.llm.download import format_duration, format_size, hub_endpoint, pull_model

    model = load_catalogue().get(args.name)
    if not model.embedded:
        print(f"{model.title}: {format_size(model.size)} from {model.url(hub_endpoint())} ({model.licence})",
              file=sys.stderr)
    line = _ProgressLine()
    try:
        with cancel_on_sigint() as task:
            task.on_progress = line
            result = pull_model(model, dest=Path(args.to).expanduser() if args.to else None, task=task)
    finally:
        line.close()
    if result.already_installed:
        print(f"{model.name} is already installed: {result.path}")
        return 0
    resumed = f", resumed at {result.resumed_from / _MIB:,.0f} MiB" if result.resumed_from else ""
    print(f"{model.name}: {result.path} ({result.size / _MIB:,.0f} MiB in {format_duration(result.seconds)}"
          f"{resumed}; GGUF header checked, {result.verified})")
    return 0


def _resolve_for_check(name: str) -> tuple[Path, int | None]:
    """A path and the catalogue's RAM estimate for NAME|PATH: a file, a catalogue model, an installed model."""
    from domain_drafter.core.errors import UsageError
    from domain_drafter.llm.catalogue import installed_path, load_catalogue
    from domain_drafter.llm.models import list_models, resolve_model

    path = Path(name).expanduser()
    if path.is_file():
        return path, None
    catalogue = load_catalogue()
    model = catalogue.find(name)
    if model is not None:
        where = installed_path(model, list_models())
        if where is None:
            raise UsageError(f"{model.name} is in the catalogue but not installed",
                             hint=f"download it first: domain-drafter models pull {model.name}")
        return (resolve_model("default") if model.embedded else where), model.ram
    return resolve_model(name), None


def cmd_models_check(args: argparse.Namespace) -> int:
    from domain_drafter.cli.options import cancel_on_sigint
    from domain_drafter.llm.speed_check import estimate_spec, format_report, speed_check

    path, ram = _resolve_for_check(args.model)
    spec = None
    if args.spec:
        from domain_drafter.bench.spec import load_spec

        spec = load_spec(args.spec)
    print(f"checking {path} ...", file=sys.stderr)
    with cancel_on_sigint() as task:
        report = speed_check(path, tokens=args.tokens, n_ctx=args.n_ctx, threads=args.threads, ram=ram, task=task)
        batched = None
        if args.batch is not None:
            from domain_drafter.llm.speed_check import batch_check

            print(f"measuring --batch {args.batch} against one at a time ...", file=sys.stderr)
            batched = batch_check(path, args.batch, threads=args.threads, task=task)
    estimate = estimate_spec(report, spec) if spec is not None else None
    max_tokens = spec.max_tokens if spec is not None else 300
    if args.json:
        data = report.to_dict()
        data["seconds_per_answer"] = report.answer_seconds(max_tokens)
        if estimate is not None:
            data["spec"] = {"name": estimate.spec, "answers": estimate.tasks, "max_tokens": estimate.max_tokens,
                            "seconds": estimate.total_s}
        if batched is not None:
            data["batch"] = batched.to_dict()
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(format_report(report, estimate, max_tokens)))
        if batched is not None:
            print(f"  batch of {batched.batch} ({batched.tokens} tokens each): {batched.batched_s:.1f} s against "
                  f"{batched.one_at_a_time_s:.1f} s one at a time = {batched.ratio:.2f}x; {batched.verdict()}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `models` and its subcommands to the top-level parser."""
    models = sub.add_parser("models", help="the model catalogue and the installed models; pull, check")
    models.add_argument("--json", action="store_true")
    models.set_defaults(func=cmd_models_list)
    msub = models.add_subparsers(dest="models_command", required=False, metavar="MODELS_COMMAND")

    p = msub.add_parser("list", help="the catalogue beside the installed models (the default)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models_list)

    p = msub.add_parser("pull", help="download a catalogue model (resumable; checks GGUF header and sha256)")
    p.add_argument("name", help="a catalogue name (see `domain-drafter models`)")
    p.add_argument("--to", help="folder to put it in (default: the user's models folder)")
    p.set_defaults(func=cmd_models_pull)

    p = msub.add_parser("check", help="will it run here? tokens/s, memory, time per answer and per experiment")
    p.add_argument("model", help="a catalogue or installed model's name, 'default', or a .gguf path")
    p.add_argument("--spec", help="an experiment .toml to estimate (e.g. resources/experiments/paper-exp1.toml)")
    p.add_argument("--tokens", type=int, default=16, help="tokens to generate for the measurement (default 16)")
    p.add_argument("--n-ctx", type=int, default=None, help="context size in tokens (default: the app's)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: the backend's)")
    p.add_argument("--batch", type=int, default=None, metavar="B",
                   help="also measure B answers decoded together against B one at a time (does --batch pay here? "
                        "on a CPU it usually does not; on a GPU build or with a large model it can)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models_check)
