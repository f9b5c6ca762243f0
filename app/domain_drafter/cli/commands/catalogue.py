"""`domains` and `prompt`: what is bundled, and the exact prompt one action gets."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from domain_drafter.cli.options import add_target


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


def register(sub: argparse._SubParsersAction) -> None:
    from domain_drafter.drafting.options import DraftOptions

    defaults = DraftOptions()
    p = sub.add_parser("domains", help="list the bundled domains")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_domains)

    p = sub.add_parser("prompt", help="print the prompt for one action")
    add_target(p, "bundled domain name, or a folder with domain.pddl and descriptions.toml", answer=False)
    p.add_argument("--class", dest="description_class", default=defaults.description_class.value,
                   help="base, flipped or random")
    p.add_argument("--seed", type=int, default=defaults.seed)
    p.add_argument("--examples", type=int, default=defaults.examples,
                   help=f"number of context examples (default {defaults.examples})")
    p.add_argument("--template", help="a prompt template .toml (default: the paper's)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_prompt)
