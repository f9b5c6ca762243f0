"""`models`: the language models Domain Drafter can use."""

from __future__ import annotations

import argparse
import json


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


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list the language models Domain Drafter can use")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)
