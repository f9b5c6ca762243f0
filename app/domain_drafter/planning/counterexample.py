"""Turn a state where two domains part into a checked counterexample: a problem and a plan valid in one domain only.

The plan is the prefix to the distinguishing state followed by the step where the domains
part. The goal is built so that the plan reaches it in the domain where it is valid: for an
effect difference, an atom true after the step in that domain only; for an applicability
difference, what the step adds there. Both validations come from `PlanValidator`; a
counterexample that is not valid in exactly one domain is a bug and raises `ProofError`.
"""

from __future__ import annotations

from dataclasses import replace

from domain_drafter.core.bundle import ProblemFile
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import DrafterError, ErrorKind
from domain_drafter.core.model import Atom, Domain, Literal
from domain_drafter.planning.grounding import AtomIndex, GroundAction, lift_atom, show_atom, show_step
from domain_drafter.planning.proof_types import DistinguishingState, ProofCounterexample
from domain_drafter.planning.state_space import Difference
from domain_drafter.planning.validator import PlanValidator


class ProofError(DrafterError):
    """The proof produced something it must not (an unchecked or wrong counterexample): a bug to report."""

    kind = ErrorKind.PROOF


def _words(index: AtomIndex, g: GroundAction, state: int) -> str:
    added = [show_atom(a) for a in index.decode(g.add & ~state)]
    deleted = [show_atom(a) for a in index.decode(g.delete & state & ~g.add)]
    parts = ([f"makes {' '.join(added)} true"] if added else []) + \
            ([f"makes {' '.join(deleted)} false"] if deleted else [])
    return "applicable; it " + " and ".join(parts) if parts else "applicable; it changes nothing"


def _after(index: AtomIndex, step: str, true: int, false: int) -> str:
    parts = ([f"{' '.join(show_atom(a) for a in index.decode(true))} true"] if true else []) + \
            ([f"{' '.join(show_atom(a) for a in index.decode(false))} false"] if false else [])
    return f"applicable; after {step}, " + " and ".join(parts)


def _lifted(atom: str, key: tuple[str, ...], generated: Domain) -> str | None:
    """`atom` over the step's parameters when each of its objects is bound to exactly one parameter, else None."""
    words = atom.replace("(", " ").replace(")", " ").split()
    objects = words[2:] if words[:1] == ["not"] else words[1:]
    if any(key[1:].count(o) != 1 for o in objects):
        return None
    return lift_atom(atom, key, generated)


def _issues(generated: Domain, key: tuple[str, ...], index: AtomIndex, state: int, difference: Difference,
            valid_in: str, failing_atoms: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """What is wrong with the generated action at the distinguishing state, named as the edit that fixes it
    (a small model follows "add it to the precondition" better than a description of the state), and the
    edits among them that take a literal out, as (section, lifted literal)."""
    removals: list[tuple[str, str]] = []

    def both(atom: str) -> str:
        lifted = lift_atom(atom, key, generated)
        return atom if lifted == atom else f"{lifted}, here {atom}"

    def extra(section: str, literal: str) -> str:
        lifted = _lifted(literal, key, generated)
        if lifted is not None:
            removals.append((section, lifted))
        return both(literal)

    if difference.kind == "only-generated":      # the reference refuses the step: a precondition is missing
        return tuple(f"missing precondition {both(a)}: add it to the precondition" for a in failing_atoms), ()
    if difference.kind == "only-reference":      # the answer refuses a step it must allow
        issues = tuple(f"extra precondition {extra('precondition', a)}: it does not hold here, yet the action must "
                       "be possible, so remove it from the precondition" for a in failing_atoms)
        return issues, tuple(removals)
    assert difference.reference_after is not None and difference.generated_after is not None
    out = []
    gen_only = difference.generated_after & ~difference.reference_after
    ref_only = difference.reference_after & ~difference.generated_after
    for atom in index.decode(gen_only):
        shown = show_atom(atom)
        out.append(f"missing effect {both(f'(not {shown})')}: add it to the effect" if state & index.mask([atom])
                   else f"extra effect {extra('effect', shown)}: remove it from the effect")
    for atom in index.decode(ref_only):
        shown = show_atom(atom)
        out.append(f"extra effect {extra('effect', f'(not {shown})')}: remove it from the effect"
                   if state & index.mask([atom]) else f"missing effect {both(shown)}: add it to the effect")
    return tuple(out), tuple(removals)


def subclass_of(counterexample: ProofCounterexample) -> Subclass:
    """NPApp: the plan is the generated domain's only; OPApp: the reference's only (METHOD 6a)."""
    return Subclass.NP_APP if counterexample.valid_in == "generated" else Subclass.OP_APP


def build_counterexample(reference: Domain, generated: Domain, problem: ProblemFile, index: AtomIndex,
                         prefix: tuple[str, ...], state: int, difference: Difference) -> ProofCounterexample:
    """The checked counterexample for `difference`, found at `state` after `prefix` on `problem`."""
    pair = difference.pair
    step = show_step(pair.key)
    plan = (*prefix, step)
    if difference.kind == "effect":
        assert difference.reference_after is not None and difference.generated_after is not None
        gen_only = difference.generated_after & ~difference.reference_after
        ref_only = difference.reference_after & ~difference.generated_after
        valid_in = "generated" if gen_only else "reference"
        chosen = min(index.decode(gen_only or ref_only))
        goal = (chosen,)
        differing = [show_atom(a) for a in index.decode(gen_only | ref_only)]
        atoms = tuple(differing)
        described = {"reference": _after(index, step, ref_only, gen_only),
                     "generated": _after(index, step, gen_only, ref_only)}
        kind = "effect"
    else:
        valid_in = "reference" if difference.kind == "only-reference" else "generated"
        g = pair.reference if valid_in == "reference" else pair.generated
        assert g is not None
        added = index.decode(g.add)
        goal = tuple(added[:1]) if added else ()
        atoms = ()
        described = {valid_in: _words(index, g, state)}
        kind = "applicability"
    cx_problem = replace(problem.problem, name=f"{problem.problem.name}-counterexample",
                         goal=tuple(Literal(Atom(a[0], tuple(a[1:]))) for a in goal))
    steps = [tuple(s.strip("()").split()) for s in plan]
    ref_check = PlanValidator(reference, cx_problem).validate(steps)
    gen_check = PlanValidator(generated, cx_problem).validate(steps)
    failing = gen_check if valid_in == "reference" else ref_check
    other = "generated" if valid_in == "reference" else "reference"
    if kind == "applicability":
        atoms = failing.atoms
        detail = failing.message.split(": ", 1)[-1] if failing.message else "not applicable"
        described[other] = f"not applicable: {detail}"
    holds = {"reference": ref_check.valid, "generated": gen_check.valid}
    if not holds[valid_in] or holds[other] or (kind == "applicability" and failing.step != len(plan)):
        raise ProofError(f"the counterexample on problem {problem.name} ({' '.join(plan)}) does not check out: "
                         f"in the reference domain {ref_check.message}; in the generated domain {gen_check.message}. "
                         "This is a bug in Domain Drafter's proof; please report it with the domain and answer.")
    issues, removals = _issues(generated, pair.key, index, state, difference, valid_in, failing.atoms)
    distinguishing = DistinguishingState(problem.name, prefix, step, tuple(atoms), described["reference"],
                                         described["generated"], kind, issues, removals)
    return ProofCounterexample(distinguishing, plan, tuple(show_atom(a) for a in goal), cx_problem.to_pddl(),
                               valid_in, ref_check, gen_check)
