"""Feedback that says what is wrong: every kind in plain words; `checks` never uses the reference."""

from __future__ import annotations

import dataclasses

from domain_drafter.core.answers import check_answer
from domain_drafter.core.model import ActionSchema
from domain_drafter.drafting.feedback import feedback_text
from domain_drafter.drafting.options import Feedback


def mutated(bundles, domain, action, old, new):
    text = bundles[domain].domain.action(action).to_pddl()
    assert old in text, (old, text)
    return text.replace(old, new, 1)


def test_checks_say_which_goal_atoms_and_actions_the_answers_domain_never_reaches(evaluator, bundles):
    bundle = bundles["blocksworld"]
    answer = mutated(bundles, "blocksworld", "pick-up", "(holding ?x)", "")
    result = evaluator.evaluate(bundle, "pick-up", answer)
    said = feedback_text(bundle, "pick-up", result, Feedback.CHECKS)
    assert "can never be reached" in said
    # the goal's achiever, and the precondition that stops it: the answer never makes (holding ?x) true
    assert "(on a b) needs (stack a b)" in said and "its precondition (holding a) never holds" in said, said
    # an action that never applies at all is named with the precondition that blocks it
    heavy = bundles["heavy-pack"]
    answer = mutated(bundles, "heavy-pack", "pack-first", "(packed ?item)", "")
    said = feedback_text(heavy, "pack-first", evaluator.evaluate(heavy, "pack-first", answer), Feedback.CHECKS)
    assert "the action stack never becomes applicable: its precondition (packed ?bottom) never holds" in said, said


def test_plans_word_a_missing_precondition_as_such(evaluator, bundles):
    bundle = bundles["blocksworld"]
    answer = mutated(bundles, "blocksworld", "stack", "(clear ?y)", "")
    result = evaluator.evaluate(bundle, "stack", answer)
    said = feedback_text(bundle, "stack", result, Feedback.PLANS)
    assert "missing precondition (clear ?y), here (clear a): add it to the precondition." in said, said
    # NPApp: the checks say only what the other actions keep (issue 37), with the state and the edit
    checks = feedback_text(bundle, "stack", result, Feedback.CHECKS)
    assert "(on c a) and (on b a) both hold" in checks and "add (clear ?y) to the precondition" in checks, checks


def test_plans_word_missing_and_extra_effects_from_the_state_diff(evaluator, bundles):
    bundle = bundles["blocksworld"]
    no_delete = mutated(bundles, "blocksworld", "put-down", "(not (holding ?x))", "")
    said = feedback_text(bundle, "put-down", evaluator.evaluate(bundle, "put-down", no_delete), Feedback.PLANS)
    assert "missing effect (not (holding ?x)), here (not (holding b)): add it to the effect." in said, said
    extra = mutated(bundles, "blocksworld", "put-down", "(handempty)", "(handempty) (holding ?x)")
    said = feedback_text(bundle, "put-down", evaluator.evaluate(bundle, "put-down", extra), Feedback.PLANS)
    assert said is not None and ("extra effect" in said or "missing effect" in said), said


LOAD_TRUCK = ("(:action load-truck :parameters (?pkg - package ?truck - truck ?place - place) "
              ":precondition (and {pre}) :effect (and {eff}))")


def test_the_extra_literals_the_feedback_says_to_take_out_are_listed_lifted(evaluator, bundles):
    """As Qwen2.5-Coder 1.5B wrote load-truck: the removals (what a guided search child may not write) are the
    feedback's "extra" literals over the action's parameters; a missing one is not a removal."""
    from domain_drafter.planning.proof_types import proof_from_dict

    bundle = bundles["logistics"]
    right_pre, right_eff = "(at ?pkg ?place) (at ?truck ?place)", "(in ?pkg ?truck) (not (at ?pkg ?place))"
    cases = {(right_pre, right_eff + " (not (at ?truck ?place))"): (("effect", "(not (at ?truck ?place))"),),
             ("(in ?pkg ?truck) " + right_pre, right_eff): (("precondition", "(in ?pkg ?truck)"),),
             (right_pre, "(in ?pkg ?truck)"): ()}
    for (pre, eff), removals in cases.items():
        result = evaluator.evaluate(bundle, "load-truck", LOAD_TRUCK.format(pre=pre, eff=eff))
        state = result.proof.counterexample.state
        assert state.removals == removals, state.issues
        for section, literal in removals:
            assert any(literal in issue and f"remove it from the {section}" in issue for issue in state.issues)
        assert proof_from_dict(result.proof.to_dict()).counterexample.state.removals == removals


def test_landmarks_name_what_every_reference_plan_needs_and_the_answer_lost(evaluator, bundles):
    bundle = bundles["blocksworld"]
    answer = mutated(bundles, "blocksworld", "pick-up", "(holding ?x)", "")
    result = evaluator.evaluate(bundle, "pick-up", answer)
    said = feedback_text(bundle, "pick-up", result, Feedback.LANDMARKS)
    assert "Every plan for problem p01 must at some point make (holding a)" in said, said
    assert feedback_text(bundle, "pick-up", result, Feedback.CHECKS) in said   # the checks come first
    everything = feedback_text(bundle, "pick-up", result, Feedback.ALL)
    assert said.split(". ")[-1] in everything


def test_each_kind_names_whether_it_uses_the_reference():
    assert not Feedback.CHECKS.uses_reference
    assert all(k.uses_reference for k in Feedback if k is not Feedback.CHECKS)
    assert "no reference" in Feedback.CHECKS.label and "uses the reference" in Feedback.ALL.label
    assert all(k.value in Feedback.help() for k in Feedback)


def _single_atom_mutants(action: ActionSchema):
    """Every literal of the precondition or effect dropped, one at a time."""
    for i in range(len(action.precondition)):
        yield dataclasses.replace(action, precondition=action.precondition[:i] + action.precondition[i + 1:])
    for i in range(len(action.effect)):
        yield dataclasses.replace(action, effect=action.effect[:i] + action.effect[i + 1:])


def test_checks_feedback_never_depends_on_the_reference_action(evaluator, bundles):
    """For every bundled action's single-atom mutants: the checks' words are the same whether the reference's
    action is the real one or an empty stand-in, so nothing only the reference could know reaches the model."""
    said_any = 0
    for bundle in bundles.values():
        for action in bundle.domain.actions:
            blank = dataclasses.replace(action, precondition=(), effect=())
            stand_in = dataclasses.replace(bundle, domain=bundle.domain.with_action(blank, replacing=action.name))
            reference_atoms = {str(l.atom) for l in action.precondition + action.effect}
            for mutant in _single_atom_mutants(action):
                answer = mutant.to_pddl()
                result = evaluator.evaluate(bundle, action.name, answer)
                said = feedback_text(bundle, action.name, result, Feedback.CHECKS)
                check = check_answer(answer, stand_in.domain, action.name)
                again = feedback_text(stand_in, action.name, dataclasses.replace(result, check=check),
                                      Feedback.CHECKS)
                assert said == again, (bundle.name, action.name, answer)
                if said:
                    said_any += 1
                    dropped = reference_atoms - {str(l.atom) for l in mutant.precondition + mutant.effect}
                    assert not any(f"your action needs {a}" in said for a in dropped)
    assert said_any >= 10    # NoPlan mutants are common: the checks had something to say on many
