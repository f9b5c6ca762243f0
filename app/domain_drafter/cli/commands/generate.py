"""`generate`: ask a model for one action, stream its answer, then judge it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from domain_drafter.cli.options import (add_draft_options, add_model_options, add_planner_options, add_target,
                                        cancel_on_sigint, evaluator, open_backend, verdict_exit_code)
from domain_drafter.presentation import format_evaluation


def cmd_generate(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle, load_bundled
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.core.prompt import load_template
    from domain_drafter.drafting.loop import DraftOptions, Feedback, draft_action
    from domain_drafter.llm.backend import DecodingOptions

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    bundle.require_descriptions()
    template = load_template(Path(args.template)) if args.template else None
    options = DraftOptions(
        description_class=DescriptionClass.parse(args.description_class), seed=args.seed, examples=args.examples,
        decoding=DecodingOptions(max_tokens=args.max_tokens, seed=args.seed), grammar=args.grammar,
        lock_signature=not args.free_signature, retries=args.retries, feedback=Feedback(args.feedback))
    backend = open_backend(args)
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

    with backend, evaluator(args) as judge, cancel_on_sigint() as task:
        if args.show_prompt and streaming:
            from domain_drafter.core.prompt import build_prompt
            print(build_prompt(bundle, action, load_bundled(), options.description_class, options.seed,
                               options.examples, template).text, end="")
        elif streaming:
            print(f"-- {backend.name}: {bundle.name}/{action} ({options.description_class.value}, seed {args.seed}"
                  f"{', grammar' if args.grammar else ''})")
        draft = draft_action(bundle, action, backend, judge, load_bundled(), options, template=template,
                             on_token=on_token, on_round=on_round, task=task)
    if args.json:
        print(json.dumps(draft.to_dict(), indent=2))
    return verdict_exit_code(draft.final.subclass, draft.final.error)


def register(sub: argparse._SubParsersAction) -> None:
    from domain_drafter.drafting.options import DraftOptions, Feedback
    from domain_drafter.llm.backend import DecodingOptions

    draft, decoding = DraftOptions(), DecodingOptions()
    p = sub.add_parser("generate", help="ask a model for one action, stream its answer, then evaluate it")
    add_target(p, "bundled domain name, or a folder with domain.pddl, problems/ and descriptions.toml", answer=False)
    add_model_options(p, seed_help=f"seed for the examples and descriptions (default {draft.seed})")
    add_draft_options(p)
    p.add_argument("--examples", type=int, default=draft.examples,
                   help=f"context examples in the prompt (default {draft.examples})")
    p.add_argument("--max-tokens", type=int, default=decoding.max_tokens,
                   help=f"new tokens at most (paper: {decoding.max_tokens})")
    p.add_argument("--free-signature", action="store_true",
                   help="with --grammar: let the model choose parameters (may yield semantic errors)")
    p.add_argument("--feedback", choices=[f.value for f in Feedback], default=draft.feedback.value,
                   help="what corrective rounds may say: checks only, or also counterexample plans")
    p.add_argument("--show-prompt", action="store_true", help="print the prompt before the answer")
    p.add_argument("--template", help="a prompt template .toml (default: the paper's)")
    add_planner_options(p)
    p.add_argument("--json", action="store_true", help="print all rounds as JSON instead of streaming")
    p.set_defaults(func=cmd_generate)
