"""The LALR tables are built once per machine and loaded from the cache folder by later processes."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = ("from domain_drafter.core.parsing import parse_tree\n"
         "tree = parse_tree('(:action a :parameters () :effect (p))', 'action_def')\n"
         "print(tree.data)\n")


def test_parser_tables_are_cached_in_the_cache_folder_and_reused(tmp_path):
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0 and first.stdout.strip() == "action_def", first.stderr
    files = list((tmp_path / "parser").iterdir())
    assert len(files) == 1 and files[0].name.startswith("pddl-") and files[0].suffix == ".json"
    stamp = files[0].stat().st_mtime_ns
    again = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0 and again.stdout.strip() == "action_def", again.stderr
    assert list((tmp_path / "parser").iterdir()) == files and files[0].stat().st_mtime_ns == stamp


def test_an_unwritable_cache_folder_only_costs_time(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(blocked))
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "action_def", done.stderr
