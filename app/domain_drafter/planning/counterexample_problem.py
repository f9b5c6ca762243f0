"""A counterexample as a regression problem: a free file name, the PDDL written without overwriting a file,
and whether the reference domain can reach its goal (a problem the reference cannot solve gives later
answers no reference plans to be judged by). The Counterexample tab's Save as problem… uses these."""

from __future__ import annotations

import re
import time
from pathlib import Path

from domain_drafter.core.errors import UsageError
from domain_drafter.core.model import Domain
from domain_drafter.planning.proof_types import ProofCounterexample


def free_problem_path(folder: Path, cx: ProofCounterexample, action: str) -> Path:
    """A file name in `folder` that no file has yet: cx-<action>-<problem>-NN.pddl."""
    stem = "cx-" + _slug(f"{action}-{cx.state.problem}")
    for number in range(1, 10_000):
        path = folder / f"{stem}-{number:02d}.pddl"
        if not path.exists():
            return path
    raise UsageError(f"no free file name for the counterexample in {folder}", where=folder)


def save_problem(path: Path, cx: ProofCounterexample, *, overwrite: bool = False) -> Path:
    """Write the counterexample problem as PDDL; an existing file is kept unless `overwrite` (asked first)."""
    from domain_drafter.core.bundle import DOMAIN_FILE, PROBLEMS_DIR, read_back, refusing_save
    from domain_drafter.core.paths import atomic_write_bytes
    from domain_drafter.core.reader import read_problem

    text = cx.problem_pddl if cx.problem_pddl.endswith("\n") else cx.problem_pddl + "\n"
    if not overwrite and path.exists():
        raise UsageError(f"{path.name} exists already and was kept", where=path,
                         hint="choose another name, or confirm replacing it")
    bundle = path.parent.parent if path.parent.name == PROBLEMS_DIR else None
    if bundle is not None and not (bundle / DOMAIN_FILE).is_file():
        bundle = None

    def check(tmp: Path) -> None:
        """Read back before the rename (issue 43): in a bundle's problems/, the whole folder must still open."""
        with refusing_save(path.name if bundle is None else f"the folder {bundle} with {path.name}"):
            if bundle is not None:
                read_back(bundle, bundle / DOMAIN_FILE, {path: tmp})
            else:
                read_problem(tmp.read_text(encoding="utf-8"), path)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, text.encode("utf-8"), read_back=check)
    except OSError as exc:
        raise UsageError(f"cannot write the problem: {exc.strerror or exc}", where=path,
                         hint="choose a folder you can write to") from None
    return path


def reference_reaches_goal(reference: Domain, cx: ProofCounterexample, *, budget: int = 200_000,
                           time_limit_s: float = 1.0) -> bool | None:
    """Can the reference domain reach the counterexample problem's goal? None if the search stopped first."""
    if cx.valid_in == "reference":
        return True                       # its plan is the reference's
    from domain_drafter.core.reader import read_problem
    from domain_drafter.planning.grounding import Grounder, GroundingLimit
    from domain_drafter.planning.state_space import explore, goal_masks

    problem = read_problem(cx.problem_pddl)
    try:
        grounder = Grounder(reference, problem, reference.fluent_predicates)
        space, found = explore(grounder.ground_domain(reference), grounder.index, grounder.init_state(),
                               budget=budget, deadline=time.perf_counter() + time_limit_s,
                               goal=goal_masks(grounder.index, problem.goal))
    except GroundingLimit:
        return None
    if found is not None:
        return True
    return False if space.complete else None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "problem"
