"""How a proven verdict reads (METHOD 6a), as plain data for the GUI, the CLI and corrective feedback.

No Qt here. `proof_headline` is the one line under the badge; `state_view` lays out the
distinguishing state (the prefix plan, the atoms that matter, what each domain does);
`feedback_text` says the same in sentences for the model; `free_problem_path` and
`save_problem` turn a counterexample into a regression problem without overwriting a file, and
`reference_reaches_goal` says whether the reference can solve it (a problem the reference cannot
solve gives later answers no reference plans to be judged by).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import UsageError
from domain_drafter.core.model import Domain
from domain_drafter.planning.proof_types import ProofCounterexample, ProofMethod, ProofReport

if TYPE_CHECKING:
    from domain_drafter.planning.equivalence import EquivalenceReport


def proof_headline(proof: ProofReport | None, heuristic: EquivalenceReport | None = None) -> str:
    """One line: how the verdict was established (empty when neither verdict was computed)."""
    if proof is None:
        if heuristic is None:
            return ""
        if heuristic.subclass is Subclass.EQUIVALENT:
            return f"Equivalent (paper heuristic, no proof requested): {heuristic.message}"
        return heuristic.message
    if proof.error:
        return f"No proof: {proof.error.message}"
    if not proof.proven:
        why = proof.reason or "the proof did not finish"
        if heuristic is None:
            return f"No verdict: the proof did not finish ({why})"
        if heuristic.subclass is Subclass.EQUIVALENT:
            return f"Equivalent (heuristic: {heuristic.message}; unproven: {why})"
        return f"{heuristic.message} (by the paper's plans; the proof did not finish: {why})"
    return proof.message


def heuristic_disagrees(proof: ProofReport | None, heuristic: EquivalenceReport | None) -> bool:
    """The paper's heuristic called it Equivalent, and the proof found a difference."""
    return (proof is not None and heuristic is not None and heuristic.subclass is Subclass.EQUIVALENT
            and proof.proven and proof.subclass not in (None, Subclass.EQUIVALENT))


@dataclass(frozen=True)
class StateView:
    """The distinguishing state, laid out for reading."""

    title: str                       # where: problem, after how many steps, which ground action
    prefix: tuple[str, ...]          # the steps from the initial state to s
    step: str                        # the ground action where the domains part
    atoms: tuple[str, ...]           # the atoms of s that matter there
    reference: str                   # "Reference domain: ..."
    generated: str                   # "Generated domain: ..."
    goal: tuple[str, ...]            # the constructed goal of the counterexample problem
    verdict: str                     # which domain's plan it is, and why the other refuses it


def state_view(cx: ProofCounterexample) -> StateView:
    s = cx.state
    steps = len(s.prefix)
    where = "in the initial state" if not steps else f"after {steps} step{'' if steps == 1 else 's'}"
    other = "generated" if cx.valid_in == "reference" else "reference"
    failing = cx.generated_validation if other == "generated" else cx.reference_validation
    return StateView(
        title=f"On problem {s.problem}, {where}, {s.step} parts the two domains",
        prefix=s.prefix, step=s.step, atoms=s.atoms,
        reference=f"Reference domain: {s.reference}", generated=f"Generated domain: {s.generated}",
        goal=cx.goal,
        verdict=f"The plan is valid in the {cx.valid_in} domain only; in the {other} domain: {failing.message}")


def method_note(proof: ProofReport) -> str:
    """How far the proof went, in a few words (for a tooltip or a status line)."""
    plural = "" if proof.problems == 1 else "s"
    if proof.method is ProofMethod.EXPLORATION:
        return f"{proof.states} reachable states of {proof.problems} problem{plural} explored"
    if proof.method is ProofMethod.PLANNER:
        return "decided by a planner on the witness task: " + (proof.reason or "no difference is reachable")
    if proof.method is ProofMethod.SHORTCUT:
        return proof.reason or "the actions are equal up to renaming, order and duplicates"
    return proof.reason or "the proof did not finish"


def feedback_text(cx: ProofCounterexample) -> str:
    """The distinguishing state in words, as a clause for corrective feedback ("... is not right: <this>")."""
    s = cx.state
    where = f"after the steps {' '.join(s.prefix)}" if s.prefix else "in the initial state"
    matter = f" (the atoms that matter: {' '.join(s.atoms)})" if s.atoms else ""
    return (f"on problem {s.problem}, {where}, the step {s.step} should do this: {s.reference}; "
            f"your action does this instead: {s.generated}{matter}.")


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
