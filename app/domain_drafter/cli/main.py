"""The `domain-drafter` parser and entry point: every subcommand's errors become exit codes here."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from domain_drafter import __version__
from domain_drafter.cli.options import EXIT_INTERRUPTED
from domain_drafter.core.errors import DrafterError
from domain_drafter.core.tasks import Cancelled

GROUP_NAMES = ("catalogue", "judge", "models", "generate", "bench", "authoring", "domain_tests", "mcp")
# Which module of cli/commands registers each command, so a command imports only its own group at
# start-up (the others pull in the drafting and model options; `check` needs none of it).
# tests/cli check this against what the groups register.
COMMAND_GROUP = {
    "domains": "catalogue", "prompt": "catalogue",
    "check": "judge", "evaluate": "judge", "validate": "judge",
    "models": "models", "generate": "generate", "bench": "bench",
    "draft-domain": "authoring", "compare": "authoring", "describe": "authoring",
    "test": "domain_tests", "mcp": "mcp",
}


def command_groups(names: Sequence[str] = GROUP_NAMES) -> list:
    return [importlib.import_module(f"domain_drafter.cli.commands.{name}") for name in names]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (`only`, a command's group) the parser of that group's commands alone."""
    parser = argparse.ArgumentParser(prog="domain-drafter",
                                     description="Write PDDL actions with a local language model and check them.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--self-test", action="store_true",
                        help="check every part (domains, model, K*, desktop app) and say what to do if one fails")
    sub = parser.add_subparsers(dest="command", required=False, metavar="COMMAND")
    for group in command_groups((only,) if only else GROUP_NAMES):
        group.register(sub)
    return parser


def _group_of(argv: Sequence[str]) -> str | None:
    """The group of the command `argv` starts with; None (the whole parser) for anything else, e.g. --help."""
    return COMMAND_GROUP.get(argv[0]) if argv else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_group_of(argv))
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
