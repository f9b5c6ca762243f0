"""`domain-drafter bench ...`: run, import, report and inspect batch benchmarks. Never imports Qt."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add this module's subcommands to the top-level parser."""
