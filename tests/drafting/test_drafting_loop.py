"""The ask-and-judge loop: rounds, corrective feedback, grammar mode, on a real (tiny) llama.cpp model."""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.drafting.loop import DraftOptions, Feedback, diagnostic_for, draft_action


def test_one_round_streams_the_answer_and_evaluates_it(tiny_backend, evaluator, bundles):
    pieces: list[str] = []
    draft = draft_action(bundles["blocksworld"], "put-down", tiny_backend, evaluator, load_bundled(),
                         on_token=pieces.append)
    assert len(draft.rounds) == 1
    assert "".join(pieces) == draft.final.answer
    assert draft.final.subclass is not None
    assert draft.prompt.text == draft.rounds[0].prompt_text


def test_corrective_rounds_are_kept_and_carry_the_diagnostic(tiny_backend, evaluator, bundles):
    draft = draft_action(bundles["gripper"], "move", tiny_backend, evaluator, load_bundled(),
                         DraftOptions(retries=2))
    # random weights never write a valid action: every round fails its checks and the next is told why
    assert len(draft.rounds) == 3
    assert draft.final.result_class in (ResultClass.SYNTAX_ERROR, ResultClass.SEMANTIC_ERROR)
    for before, after in zip(draft.rounds, draft.rounds[1:]):
        assert before.diagnostic
        assert after.prompt_text.startswith(before.prompt_text)
        assert before.diagnostic in after.prompt_text
        assert after.prompt_text.endswith("PDDL Action:\n")
    assert draft.rounds[-1].diagnostic is None


def test_grammar_mode_yields_no_syntax_or_semantic_error_even_from_random_weights(tiny_backend, evaluator, bundles):
    for domain, action in [("blocksworld", "stack"), ("gripper", "pick"), ("hiking", "walk"), ("logistics", "load-truck")]:
        draft = draft_action(bundles[domain], action, tiny_backend, evaluator, load_bundled(),
                             DraftOptions(grammar=True))
        assert draft.grammar and draft.grammar.startswith("root ::=")
        assert draft.final.result_class in (ResultClass.DIFFERENT_DOMAIN, ResultClass.EQUIVALENT), draft.final.message


def _evaluate(evaluator, bundles, domain, action, old, new):
    text = bundles[domain].domain.action(action).to_pddl().replace(old, new, 1)
    return evaluator.evaluate(bundles[domain], action, text)


def test_checks_feedback_never_shows_a_reference_plan(evaluator, bundles):
    npapp = _evaluate(evaluator, bundles, "blocksworld", "stack", "(on ?x ?y)", "(on ?y ?x)")
    assert npapp.subclass is Subclass.NP_APP
    bundle = bundles["blocksworld"]
    # the checks say only what the other actions keep (issue 37), in the answer's own domain: no reference plan
    checks = diagnostic_for(bundle, "stack", npapp, Feedback.CHECKS)
    assert checks.startswith("On problem blocksworld-p01, after (pick-up b) (stack b c): (clear b) and (on c b) both "
                             "hold") and "add only one of (clear ?x) and (on ?y ?x) to the effect" in checks, checks
    assert not any(issue in checks for issue in npapp.proof.counterexample.state.issues)
    said = diagnostic_for(bundle, "stack", npapp, Feedback.PLANS)
    # proven mode: the proof's distinguishing state, worded as the edit it calls for
    state = npapp.proof.counterexample.state
    assert said and state.step in said and state.issues and state.issues[0] in said


def test_noplan_and_check_findings_are_said_in_plain_words(evaluator, bundles):
    noplan = _evaluate(evaluator, bundles, "blocksworld", "pick-up", "(holding ?x) ", "")
    assert noplan.subclass is Subclass.NO_PLAN
    bundle = bundles["blocksworld"]
    assert "can never be reached" in diagnostic_for(bundle, "pick-up", noplan, Feedback.CHECKS)
    semantic = _evaluate(evaluator, bundles, "blocksworld", "pick-up", "(handempty)", "(arm-empty)")
    assert "arm-empty" in diagnostic_for(bundle, "pick-up", semantic, Feedback.CHECKS)
    equivalent = _evaluate(evaluator, bundles, "blocksworld", "pick-up", "(clear ?x)", "(clear ?x)")
    assert diagnostic_for(bundle, "pick-up", equivalent, Feedback.PLANS) is None


def test_round_start_hook_separates_the_rounds(tiny_backend, evaluator, bundles):
    events: list[tuple[str, int]] = []
    draft_action(bundles["gripper"], "drop", tiny_backend, evaluator, load_bundled(), DraftOptions(retries=1),
                 on_round_start=lambda i, _: events.append(("start", i)),
                 on_round=lambda r: events.append(("end", len(events))))
    assert [e[0] for e in events] == ["start", "end", "start", "end"]
    assert [e[1] for e in events if e[0] == "start"] == [0, 1]


def _plain_rounds(bundle, action, backend, evaluator, options):
    """The rounds as the plain ask, judge, re-ask loop gives them (what draft_action did before it became a preset
    of the search): (prompt, answer, subclass, diagnostic) per round."""
    from domain_drafter.core.prompt import build_prompt, load_template
    from domain_drafter.drafting.feedback import follow_up
    from domain_drafter.drafting.search import draft_decoding

    template = load_template()
    text = build_prompt(bundle, action, load_bundled(), options.description_class, options.seed, options.examples,
                        template).text
    decoding, out = draft_decoding(bundle, action, options), []
    for attempt in range(options.retries + 1):
        answer = backend.generate(text, decoding).text
        evaluation = evaluator.evaluate(bundle, action, answer)
        told = diagnostic_for(bundle, action, evaluation, options.feedback) if attempt < options.retries else None
        out.append((str(text), answer, evaluation.subclass, told))
        if told is None:
            break
        text = follow_up(text, answer, told, template)
    return out


@pytest.mark.parametrize(("domain", "action", "options"), [
    ("gripper", "move", DraftOptions(retries=2)),
    ("blocksworld", "put-down", DraftOptions(retries=3, grammar=True, feedback=Feedback.ALL)),
    ("logistics", "load-truck", DraftOptions(retries=2, grammar=True, seed=2, feedback=Feedback.PLANS)),
])
def test_the_rounds_are_those_of_the_plain_ask_judge_reask_loop(tiny_backend, evaluator, bundles, domain, action,
                                                                options):
    from dataclasses import replace

    from domain_drafter.llm.backend import DecodingOptions

    options = replace(options, decoding=DecodingOptions(max_tokens=64))
    draft = draft_action(bundles[domain], action, tiny_backend, evaluator, load_bundled(), options)
    got = [(str(r.prompt_text), r.generation.text, r.evaluation.subclass, r.diagnostic) for r in draft.rounds]
    assert got == _plain_rounds(bundles[domain], action, tiny_backend, evaluator, options)
    assert len(got) > 1 or got[0][3] is None
