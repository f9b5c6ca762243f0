"""Free decoding that writes no answer judged before (llm/answer_tabu.py): the keys, the bans, and the default
model (Gemma-3 270M, real prompts, greedy) writing a new answer where without the tabu it repeats itself."""

from __future__ import annotations

import numpy as np
import pytest

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.prompt import build_prompt
from domain_drafter.llm.answer_tabu import AnswerTabu, answer_key
from domain_drafter.llm.backend import DecodingOptions

HEAD = "(:action load-truck\n  :parameters (?pkg - package ?truck - truck ?place - place)\n"
JUDGED = HEAD + "  :precondition (and (at ?truck ?place) (at ?pkg ?place))\n  :effect (and (in ?pkg ?truck)\n" \
                "    (not (at ?pkg ?place))))"


def test_an_answer_is_keyed_by_its_parameters_and_each_sections_literals_in_any_order():
    shuffled = "(:action load-truck :parameters ( ?pkg - package ?truck - truck ?place - place )\n" \
               ":precondition (and (at ?pkg  ?place) (at ?truck ?place)) :effect (and (not (at ?pkg ?place)) " \
               "(in ?pkg ?truck)))"
    assert answer_key(shuffled) == answer_key(JUDGED) is not None
    assert answer_key(JUDGED.replace("?truck - truck", "?truck - vehicle")) != answer_key(JUDGED)
    assert answer_key(JUDGED.replace("(in ?pkg ?truck)", "(in ?pkg ?place)")) != answer_key(JUDGED)
    assert answer_key(JUDGED[:-3]) is None                   # the effect not closed yet


def test_an_answer_equal_to_a_judged_one_up_to_its_parameter_names_has_its_key():
    renamed = JUDGED.replace("?pkg", "?p").replace("?truck", "?t").replace("?place", "?loc")
    assert answer_key(renamed) == answer_key(JUDGED)
    swapped = JUDGED.replace("(?pkg - package ?truck - truck", "(?truck - package ?pkg - truck")
    assert answer_key(swapped) != answer_key(JUDGED)         # the names swapped in the list only: another answer
    undeclared = JUDGED.replace("(at ?truck ?place) (at", "(at ?truck ?where) (at")
    assert answer_key(undeclared) != answer_key(JUDGED)      # a variable not in the list keeps its own name
    tabu = AnswerTabu([renamed])
    tabu.feed(JUDGED[:-2])
    logits = np.array([5.0, 4.0])
    assert tabu.ban(logits, {0: "))", 1: " ("}.__getitem__, top=2) == 1


def test_only_the_tokens_that_close_the_effect_into_a_judged_answer_are_banned():
    pieces = {0: ")", 1: " (", 2: "))", 3: "\n", 4: ")\n"}
    tabu = AnswerTabu([JUDGED])
    tabu.feed(JUDGED[:-2])                                   # ... (not (at ?pkg ?place)) : the last literal written
    logits = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    assert tabu.ban(logits, pieces.__getitem__, top=5) == 3                # "))" closes the effect, then the action
    assert np.isneginf(logits[[0, 2, 4]]).all() and np.isfinite(logits[[1, 3]]).all()
    other = AnswerTabu([JUDGED.replace("(in ?pkg ?truck)", "(in ?pkg ?place)")])
    other.feed(JUDGED[:-2])
    fresh = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    assert other.ban(fresh, pieces.__getitem__, top=5) == 0   # a new answer: nothing banned


def test_the_tabu_never_bans_every_likeliest_token():
    tabu = AnswerTabu([JUDGED])
    tabu.feed(JUDGED[:-2])
    logits = np.array([5.0, 4.0, -3.0])
    assert tabu.ban(logits, {0: ")", 1: ")\n", 2: " ("}.__getitem__, top=2) == 0
    assert np.isfinite(logits).all()


def test_once_the_effect_is_closed_nothing_is_banned():
    """When the effect was closed into a judged answer anyway (every likeliest token closed it), the action's
    own closing parenthesis is not banned: the tabu does nothing outside the effect's conjunction."""
    tabu = AnswerTabu([JUDGED])
    tabu.feed(JUDGED[:-2])
    tabu.feed(")")                                           # the effect closed, into the judged answer
    logits = np.array([5.0, 4.0, 3.0])
    assert tabu.ban(logits, {0: ")", 1: ")\n", 2: " ("}.__getitem__, top=3) == 0
    assert np.isfinite(logits).all()


@pytest.fixture(scope="module")
def gemma(default_cache):
    from domain_drafter.llm import models
    from domain_drafter.llm.llama import LlamaCppBackend, _cpu_count

    with LlamaCppBackend(models.default_model_path(), n_threads=_cpu_count(), reuse_prompt_cache=True) as backend:
        yield backend


def test_told_its_answer_the_default_model_writes_another_where_it_would_repeat_it(gemma, bundles):
    """Greedy answers depend on the CPU's kernels (llama.cpp picks them by instruction set): on one machine
    logistics load-truck's answer closes its effect, on another it loops to the token limit. So the test takes
    the first three actions, in a fixed order, whose greedy answer is a whole action, and asks each for another."""
    pool = list(bundles.values())
    order = [("blocksworld", "unstack"), ("logistics", "load-truck"), ("gripper", "move"), ("gripper", "pick"),
             ("blocksworld", "pick-up"), ("miconic", "up"), ("depot", "drive"), ("logistics", "unload-truck")]
    looped, told_another = [], []
    for domain, action in order:
        prompt = build_prompt(bundles[domain], action, pool, DescriptionClass.BASE).text
        options = DecodingOptions()
        first = gemma.generate(prompt, options).text
        if answer_key(first) is None:                       # the greedy answer never closes its effect
            looped.append(action)
            continue
        assert gemma.generate(prompt, options).text == first    # greedy: without the tabu, the same answer
        told = gemma.generate(prompt, DecodingOptions(judged=(first,))).text
        assert answer_key(told) != answer_key(first), told
        told_another.append(action)
        if len(told_another) == 3:
            break
    assert len(told_another) == 3, f"only {told_another} closed their effect; these looped: {looped}"
