"""The search's prompts with and without the KV states of earlier prompts (llm/prefix_store.py), in one
process: the four root prompts of blocksworld/stack (other context examples), then eight children asked
after the roots in turn, as the search asks them (a root, an answer, its feedback). Both ways read the
same prompts and write the same answers; the ratio is the prompt tokens read and the seconds spent.
The default model (Gemma-3 270M) unless DOMAIN_DRAFTER_PERF_MODEL names another GGUF (e.g. Qwen2.5-Coder
1.5B, in its chat format with DOMAIN_DRAFTER_PERF_CHAT=1).
"""

from __future__ import annotations

import os
import time

from tests.perf.conftest import report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.prompt import build_prompt, load_template
from domain_drafter.drafting.loop import follow_up
from domain_drafter.llm.backend import DecodingOptions


def _prompts():
    pool = load_bundled()
    bundle = next(b for b in pool if b.name == "blocksworld")
    template = load_template()
    roots = [build_prompt(bundle, "stack", pool, seed=s, template=template).text for s in range(4)]
    answer = "(:action stack\n  :parameters (?x - block ?y - block)\n  :precondition (and (holding ?x))\n" \
             "  :effect (and (on ?x ?y) (not (holding ?x))))"
    feedback = "missing precondition (clear ?y), here (clear b): add it to the precondition."
    return roots + [follow_up(roots[(j + 1) % 4], answer, feedback, template) for j in range(8)]


def _run(model, states: int, chat: bool):
    from domain_drafter.llm.llama import LlamaCppBackend

    read, texts = 0, []
    options = DecodingOptions(max_tokens=8, stop=())
    with LlamaCppBackend(model, n_ctx=4096, n_threads=1, prefix_states=states,
                         prompt_format="chat" if chat else "completion") as backend:
        start = time.perf_counter()
        for prompt in _prompts():
            generation = backend.generate(prompt, options)
            read += generation.stats.prompt_tokens - backend.last_reused_tokens
            texts.append(generation.text)
        return read, time.perf_counter() - start, texts


def test_children_after_other_roots_read_only_their_new_turns():
    from domain_drafter.llm.models import default_model_path

    model = os.environ.get("DOMAIN_DRAFTER_PERF_MODEL") or default_model_path()
    chat = os.environ.get("DOMAIN_DRAFTER_PERF_CHAT") == "1"
    read_last, seconds_last, texts_last = _run(model, 0, chat)    # the last prompt's cache only
    read_kept, seconds_kept, texts_kept = _run(model, 4, chat)
    assert texts_kept == texts_last
    report(f"prompt states kept ({os.path.basename(str(model))}, 12 prompts, 1 thread)", [
        ("prompt tokens read, last prompt's cache only", f"{read_last:,}"),
        ("prompt tokens read, 4 prompt states kept", f"{read_kept:,} ({read_last / read_kept:.2f}x fewer)"),
        ("seconds, last prompt's cache only", f"{seconds_last:.1f}"),
        ("seconds, 4 prompt states kept", f"{seconds_kept:.1f} ({seconds_last / seconds_kept:.2f}x faster)"),
    ])
    assert read_kept * 2 < read_last
