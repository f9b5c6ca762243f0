"""cli/main.py builds only the parser of the command's own group at start-up: its map must match the groups."""

from __future__ import annotations

import argparse
import subprocess
import sys

from domain_drafter.cli.main import COMMAND_GROUP, GROUP_NAMES, build_parser, command_groups


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_every_command_maps_to_the_group_that_registers_it():
    registered = {}
    for name, group in zip(GROUP_NAMES, command_groups()):
        parser = argparse.ArgumentParser()
        group.register(parser.add_subparsers())
        registered.update(dict.fromkeys(_commands(parser), name))
    assert registered == COMMAND_GROUP
    assert _commands(build_parser()) == set(COMMAND_GROUP)
    assert _commands(build_parser("judge")) == {"check", "evaluate", "validate"}


def test_check_imports_neither_the_drafting_nor_the_model_options():
    probe = ("import sys\nfrom domain_drafter.cli.main import main\n"
             "try:\n    main(['check', '--help'])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('domain_drafter.drafting', 'domain_drafter.llm',"
             " 'domain_drafter.cli.commands.'))))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['domain_drafter.cli.commands.judge']"
