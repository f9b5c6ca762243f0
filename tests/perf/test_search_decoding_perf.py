"""How a search's model calls are best decoded on this machine (issue 38: the search's own costs).

The workload is two expansions of a guided search as it runs them: the 4 root prompts of an action (prompt seeds
0 to 3) are read first, as the roots were written before; then the expansion's 4 children, each a root prompt
(in turn, `rotate`) followed by the parent's answer (the reference with its last precondition literal taken
out) and the generic feedback, sampled at 0.8 under the action's grammar with their own seeds.

- Children one at a time (the search's way: each child's prompt starts with a root prompt whose llama.cpp state
  the prefix store kept, llm/prefix_store.py) against the 4 children decoded together in one llama.cpp batch
  (`generate_batch`: one weight pass per step for 4 sequences, but each prompt read in full in its slot).
- One process with 2 threads running both expansions in turn against 2 processes with 1 thread each running one
  expansion each at the same time (`bench run --generators 2 --threads 1`).

The model is the embedded default one; DOMAIN_DRAFTER_PERF_MODEL=/path/to.gguf measures another (the numbers
in the README are Qwen2.5-Coder 1.5B's). Reported, with the load average; asserted: every call wrote an answer.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from dataclasses import replace
from pathlib import Path

from tests.perf.conftest import median, report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.prompt import build_prompt, load_template
from domain_drafter.drafting.feedback import follow_up
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar

FEEDBACK = "it does not do what the description says; reconsider its preconditions and effects"
EXPANSIONS = (("blocksworld", "stack"), ("logistics", "load-truck"))
WIDTH = CHILDREN = 4


def expansion(pool, name: str, action: str) -> tuple[list[str], list[tuple[str, DecodingOptions]]]:
    """The root prompts of `action` and its 4 children's (prompt, sampled decoding under the grammar)."""
    bundle = next(b for b in pool if b.name == name)
    template = load_template()
    roots = [build_prompt(bundle, action, pool, seed=s, template=template).text for s in range(WIDTH)]
    schema = next(a for a in bundle.domain.actions if a.name == action)
    parent = replace(schema, precondition=schema.precondition[:-1]).to_pddl("")
    grammar = ActionGrammar(bundle.domain, action).decoding(DecodingOptions(max_tokens=200))
    children = [(str(follow_up(roots[c % WIDTH], parent, FEEDBACK, template)),
                 replace(grammar, temperature=0.8, seed=1_009 + 7 * c)) for c in range(CHILDREN)]
    return roots, children


def one_at_a_time(backend, roots: list[str], children) -> tuple[float, list]:
    """The roots read (one token each, untimed), then the children one at a time: (seconds, generations)."""
    for prompt in roots:
        backend.generate(prompt, DecodingOptions(max_tokens=1))
    start = time.perf_counter()
    out = [backend.generate(prompt, options) for prompt, options in children]
    return time.perf_counter() - start, out


def run_expansions(path: str, threads: int, which: list[int], queue) -> None:
    """In a spawned generator process: load the model with `threads`, run the expansions `which` one at a time."""
    from domain_drafter.llm.llama import LlamaCppBackend

    pool = load_bundled()
    loaded = time.time()
    with LlamaCppBackend(path, n_threads=threads) as backend:
        loaded = time.time() - loaded
        start = time.time()
        rows = [one_at_a_time(backend, *expansion(pool, *EXPANSIONS[i])) for i in which]
        end = time.time()
    queue.put({"load_s": loaded, "start": start, "end": end,
               "answers": [g.text for _, gens in rows for g in gens],
               "tokens": sum(g.stats.generated_tokens for _, gens in rows for g in gens)})



def load_average() -> str:
    path = Path("/proc/loadavg")
    return path.read_text().split(" ")[0] if path.exists() else "?"


def test_children_together_against_one_at_a_time(model_path):
    from domain_drafter.llm.llama import LlamaCppBackend

    pool = load_bundled()
    threads = int(os.environ.get("DOMAIN_DRAFTER_PERF_THREADS", "2"))
    alone_s, together_s, tokens, written = [], [], [0, 0], []
    with LlamaCppBackend(model_path, n_threads=threads) as backend:
        for name, action in EXPANSIONS:
            roots, children = expansion(pool, name, action)
            seconds, gens = one_at_a_time(backend, roots, children)
            alone_s.append(seconds)
            tokens[0] += sum(g.stats.generated_tokens for g in gens)
            start = time.perf_counter()
            batched = backend.generate_batch([p for p, _ in children], [o for _, o in children])
            together_s.append(time.perf_counter() - start)
            tokens[1] += sum(g.stats.generated_tokens for g in batched)
            written += [g.text for g in gens + batched]
    ratio = sum(alone_s) / sum(together_s)
    report(f"an expansion's {CHILDREN} children, {Path(model_path).name}, {threads} threads, sampled under the grammar", [
        ("seconds per expansion, one at a time", " ".join(f"{s:.1f}" for s in alone_s)),
        ("seconds per expansion, together", " ".join(f"{s:.1f}" for s in together_s)),
        ("tokens written, one at a time / together", f"{tokens[0]} / {tokens[1]}"),
        ("together is", f"{ratio:.2f}x the speed of one at a time (answers per second)"),
        ("load average", load_average()),
    ])
    assert all(text.lstrip().startswith("(:action") for text in written), "every call writes an action"


def test_one_process_two_threads_against_two_processes_one_thread_each(model_path):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    run_expansions(str(model_path), 2, [0, 1], queue)
    one = queue.get()
    procs = [ctx.Process(target=run_expansions, args=(str(model_path), 1, [i], queue)) for i in range(2)]
    for p in procs:
        p.start()
    two = [queue.get(timeout=3600) for _ in procs]
    for p in procs:
        p.join()
    one_s = one["end"] - one["start"]
    two_s = max(r["end"] for r in two) - min(r["start"] for r in two)
    answers = len(one["answers"])
    report(f"2 expansions ({answers} child calls), {Path(model_path).name}", [
        ("1 process x 2 threads, s", f"{one_s:.1f} ({one['tokens']} tokens; load {one['load_s']:.1f} s)"),
        ("2 processes x 1 thread, s", f"{two_s:.1f} ({sum(r['tokens'] for r in two)} tokens; "
                                      f"loads {' '.join(format(r['load_s'], '.1f') for r in two)} s)"),
        ("2 x 1 is", f"{one_s / two_s:.2f}x the answers per second of 1 x 2"),
        ("median answer tokens", f"{median(len(a) for a in one['answers'])} chars"),
        ("load average", load_average()),
    ])
    assert answers == 2 * CHILDREN and sum(len(r["answers"]) for r in two) == answers
    assert all(a.lstrip().startswith("(:action") for r in [one, *two] for a in r["answers"])
