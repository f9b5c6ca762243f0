"""Domain Drafter: write PDDL actions with a local language model and check them."""

from __future__ import annotations

__version__ = "0.1.0"
