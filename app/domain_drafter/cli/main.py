"""The `domain-drafter` parser and entry point: every subcommand's errors become exit codes here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from domain_drafter import __version__
from domain_drafter.cli.commands import authoring, bench, catalogue, domain_tests, generate, judge, mcp, models
from domain_drafter.cli.options import EXIT_INTERRUPTED
from domain_drafter.core.errors import DrafterError
from domain_drafter.core.tasks import Cancelled

COMMAND_GROUPS = (catalogue, judge, models, generate, bench, authoring, domain_tests, mcp)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domain-drafter",
                                     description="Write PDDL actions with a local language model and check them.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--self-test", action="store_true",
                        help="check every part (domains, model, K*, desktop app) and say what to do if one fails")
    sub = parser.add_subparsers(dest="command", required=False, metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(sub)
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
