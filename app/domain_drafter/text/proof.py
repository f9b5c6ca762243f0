"""How a proven verdict reads (METHOD 6a), as plain data for the GUI and the CLI.

No Qt here. `proof_headline` is the one line under the badge; `state_view` lays out the
distinguishing state (the prefix plan, the atoms that matter, what each domain does). Saving the
counterexample as a problem file is `planning.counterexample_problem`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain_drafter.core.classes import Subclass
from domain_drafter.planning.proof_types import ProofCounterexample, ProofReport

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
