"""The `domain-drafter` command line: thin subcommands over the engine. Never imports Qt.

`main.py` builds the parser and maps errors to exit codes; `options.py` holds the arguments and
helpers the commands share (their defaults read from the engine's option dataclasses);
`commands/` has one module per group of subcommands, each importing the engine inside its commands.
"""

from domain_drafter.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
