"""Entry point of the packaged (PyInstaller) app: the `domain-drafter` binary, also `domain-drafter-gui`.

A frozen app has no Python interpreter to re-launch, yet two parts of Domain Drafter start Python
children with `sys.executable`: the K* adapter runs `python -B -m kstar_planner.driver.main ...`
(and K*'s driver then runs `python .../translate/translate.py ...`), and the self-test runs
`python -m domain_drafter.gui.startup.gui_self_test`. In the packaged app `sys.executable` is this binary, so
it understands those two command shapes itself, for modules and scripts of the bundle only:

    domain-drafter [-B] [-u] -m MODULE ARGS...   run a bundled module as __main__
    domain-drafter BUNDLED_SCRIPT.py ARGS...     run a script that ships inside the bundle

Anything else is the command line (`domain-drafter --self-test`, `domain-drafter domains`, ...),
or the desktop app when started as `domain-drafter-gui`. The dispatch happens before importing
Domain Drafter, so K*'s translator (which has its own module named `pddl`) starts clean.
"""

from __future__ import annotations

import os
import runpy
import sys

MODULE_PREFIXES = ("kstar_planner.", "domain_drafter.")
IGNORED_FLAGS = {"-B", "-u", "-E", "-s", "-I", "-O", "-OO"}  # meaningless for a frozen app


def _bundle_dir() -> str:
    return os.path.realpath(getattr(sys, "_MEIPASS", os.path.dirname(os.path.abspath(__file__))))


def _run_module(name: str, args: list[str]) -> None:
    if not name.startswith(MODULE_PREFIXES):
        sys.exit(f"domain-drafter: -m {name}: only modules of the bundle can run in the packaged app")
    sys.argv = [name, *args]
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def _run_script(path: str, args: list[str]) -> None:
    script = os.path.realpath(path)
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(script))   # what `python script.py` does: its folder comes first
    runpy.run_path(script, run_name="__main__")


def main() -> int:
    argv = sys.argv[1:]
    flags = 0
    while flags < len(argv) and argv[flags] in IGNORED_FLAGS:
        flags += 1
    rest = argv[flags:]
    if len(rest) >= 2 and rest[0] == "-m":
        _run_module(rest[1], rest[2:])
        return 0
    if rest and rest[0].endswith(".py") and os.path.isfile(rest[0]) \
            and os.path.realpath(rest[0]).startswith(_bundle_dir() + os.sep):
        _run_script(rest[0], rest[1:])
        return 0
    if os.path.basename(sys.argv[0]) == "domain-drafter-gui":
        from domain_drafter.gui.app import main as gui_main

        return gui_main(sys.argv)
    from domain_drafter.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
