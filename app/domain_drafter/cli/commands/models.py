"""`models`: the catalogue beside the installed models, `models pull`, `models check`.

The commands live in domain_drafter/cli_models.py (issue 16); this module registers them.
"""

from domain_drafter.cli_models import add_parser as register

__all__ = ["register"]
