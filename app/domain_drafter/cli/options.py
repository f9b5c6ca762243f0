"""Arguments and helpers the subcommands share.

Every default an option shows is read from the engine's own option dataclasses
(`EvaluationOptions`, `DraftOptions`, `DecodingOptions`, `llm.factory.DEFAULT_N_CTX`), so the
command line, the desktop app's Settings and the benchmark cannot drift apart.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from domain_drafter.core.errors import UsageError
from domain_drafter.core.tasks import TaskState

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells expect of a command stopped by Ctrl-C
EXIT_NO_VERDICT = 4     # the planner or the model failed: no verdict could be given

Command = Callable[[argparse.Namespace], int]


def read_answer(spec: str | None) -> str:
    """The answer text from a file, or from stdin for None or '-'."""
    if spec in (None, "-"):
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(spec).read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read the answer file: {exc.strerror}", where=spec) from None
    return data.decode("utf-8", errors="replace")


@contextlib.contextmanager
def cancel_on_sigint(*, sigterm: bool = False, check: bool = True) -> Iterator[TaskState]:
    """A task that Ctrl-C cancels, instead of raising KeyboardInterrupt wherever the main thread is.

    The engine then stops its own way: K* process groups killed, temp dirs removed, workers
    joined; the command raises Cancelled and exits 130. A second Ctrl-C changes nothing (the
    stop is already under way, and interrupting it would leave planners and temp dirs behind).
    sigterm: SIGTERM (a scheduler's or a service manager's stop) stops the same way. check=False:
    the caller looks at `task.cancelled` itself instead of Cancelled being raised at the end.
    A SIGINT the command was started with ignored (a background job) stays ignored.
    """
    task = TaskState()
    if threading.current_thread() is not threading.main_thread():
        yield task
        return

    def on_signal(signum: int, frame: object) -> None:
        if not task.cancelled:
            print("domain-drafter: stopping...", file=sys.stderr, flush=True)
        task.cancel()
        # Further signals are ignored from now on: a Python handler would be reset to the default
        # one while the interpreter shuts down, and a late Ctrl-C would then kill the process by
        # SIGINT instead of letting it exit 130.
        for sig in handled:
            signal.signal(sig, signal.SIG_IGN)

    handled = [sig for sig in ((signal.SIGINT, signal.SIGTERM) if sigterm else (signal.SIGINT,))
               if signal.getsignal(sig) is not signal.SIG_IGN]
    previous = {sig: signal.signal(sig, on_signal) for sig in handled}
    try:
        yield task
        if check:
            task.check_cancelled()  # a signal during the last, uncancellable step still means "stopped"
    finally:
        # Once stopping, the command only exits, still ignoring the signals (see on_signal).
        if not task.cancelled:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def add_target(p: argparse.ArgumentParser, domain_help: str, answer: bool = True) -> None:
    """The DOMAIN ACTION [ANSWER] arguments most subcommands share."""
    p.add_argument("domain", help=domain_help)
    p.add_argument("action")
    if answer:
        p.add_argument("answer", nargs="?", help="file holding the model's answer; '-' or nothing for stdin")


def add_planner_options(p: argparse.ArgumentParser, *, equivalence: bool = True) -> None:
    """--k, --time-limit and (unless `equivalence` is False) --equivalence, with the engine's defaults."""
    from domain_drafter.planning.options import EvaluationOptions

    d = EvaluationOptions()
    p.add_argument("--k", type=int, default=d.k, help=f"top-k plans per problem (default {d.k})")
    p.add_argument("--time-limit", type=float, default=d.time_limit_s,
                   help=f"seconds per planner call (default {d.time_limit_s:g})")
    if equivalence:
        add_equivalence_option(p)
        p.add_argument("--state-budget", type=int, default=d.state_budget,
                       help=f"reachable states explored per problem before the proof asks a planner "
                            f"(default {d.state_budget:,})")
        p.add_argument("--proof-time-limit", type=float, default=d.proof_time_limit_s,
                       help=f"seconds for the proof per answer; past it the verdict is the heuristic's, marked "
                            f"unproven (default {d.proof_time_limit_s:g})")


def add_equivalence_option(p: argparse.ArgumentParser, *, from_spec: bool = False) -> None:
    """--equivalence proven|paper; its default is EvaluationOptions' or, `from_spec`, the experiment spec's."""
    from domain_drafter.planning.options import (
        EquivalenceMode,
        EvaluationOptions,
    )

    default = None if from_spec else EvaluationOptions().equivalence.value
    told = f"(default {default})" if default else "(default: the spec's)"
    p.add_argument("--equivalence", choices=[m.value for m in EquivalenceMode], default=default,
                   help="'proven': compare the reachable states of the problems; 'paper': the paper's top-k "
                        f"plan heuristic (METHOD section 6, for Table 1) {told}")


def evaluation_options(args: argparse.Namespace, **changes):
    """EvaluationOptions from the planner options of `args` (and any explicit `changes`)."""
    from domain_drafter.planning.options import (
        EquivalenceMode,
        EvaluationOptions,
    )

    chosen = {"k": args.k, "time_limit_s": args.time_limit}
    if hasattr(args, "equivalence"):   # see add_planner_options(equivalence=...)
        chosen.update(equivalence=EquivalenceMode(args.equivalence), state_budget=args.state_budget,
                      proof_time_limit_s=args.proof_time_limit)
    return EvaluationOptions(**chosen, **changes)


def evaluator(args: argparse.Namespace, **changes):
    """An Evaluator (a context manager) with the planner options of `args`."""
    from domain_drafter.planning.evaluate import Evaluator

    return Evaluator(evaluation_options(args, **changes))


def add_model_options(p: argparse.ArgumentParser, *, seed_help: str) -> None:
    """Which model (a local GGUF or a server), its context, threads, and the drafting seed."""
    from domain_drafter.llm.factory import AUTO, DEFAULT_N_CTX, PROMPT_FORMAT_CHOICES

    p.add_argument("--model", default="default", help="'default' (the embedded Gemma 3 270M) or a GGUF path")
    p.add_argument("--endpoint", help="an OpenAI-compatible server's base URL instead of a local model")
    p.add_argument("--prompt-format", choices=PROMPT_FORMAT_CHOICES, default=AUTO,
                   help="'completion' (the paper's plain prompt), 'chat' (one user message in the model's "
                   "chat template) or 'auto' (the catalogue's format for a catalogue model, else completion)")
    p.add_argument("--seed", type=int, default=0, help=seed_help)
    p.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX,
                   help=f"model context size in tokens (default {DEFAULT_N_CTX})")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all)")
    p.add_argument("--speculate", action=argparse.BooleanOptionalAction, default=False,
                   help="a local model guesses the next tokens from the prompt and checks them in one batch "
                   "(speculative decoding, 1.9x tokens/s on search children); off by default until llama.cpp's "
                   "batched logits equal one-at-a-time ones here: without flash attention they differ by up to "
                   "0.6 on Qwen2.5-Coder, which flips near-tie greedy tokens")


def add_draft_options(p: argparse.ArgumentParser) -> None:
    """--class, --grammar and --retries, with DraftOptions' defaults."""
    from domain_drafter.drafting.options import DraftOptions

    d = DraftOptions()
    p.add_argument("--class", dest="description_class", default=d.description_class.value,
                   help="base, flipped or random")
    p.add_argument("--grammar", action="store_true", help="constrain decoding to one well-formed action")
    p.add_argument("--retries", type=int, default=d.retries,
                   help=f"corrective rounds after a failed check (default {d.retries})")


def open_backend(args: argparse.Namespace):
    """The model the arguments name, loaded (llm.factory, the one place backends are built)."""
    from domain_drafter.llm.factory import open_backend as factory
    from domain_drafter.llm.factory import resolve_prompt_format

    choice = getattr(args, "prompt_format", "auto")
    if args.endpoint:
        return factory(args.endpoint, remote_model=None if args.model == "default" else args.model,
                       prompt_format=resolve_prompt_format(args.endpoint, choice))
    return factory(args.model, n_ctx=args.n_ctx, n_threads=args.threads, seed=args.seed,
                   prompt_format=resolve_prompt_format(args.model, choice))


def verdict_exit_code(subclass, error) -> int:
    """0 for Equivalent, 1 for any other verdict, EXIT_NO_VERDICT when none could be given."""
    if error:
        return EXIT_NO_VERDICT
    return 0 if subclass is not None and subclass.value == "Equivalent" else 1
