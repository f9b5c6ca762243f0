"""The prompt chunk size (llm/prompt_reader.py) against the search's prompts: a root read cold, then a child.

A search call's time is mostly reading its prompt (issue 38: Qwen2.5-Coder 1.5B at 2 threads, the median call
reads for 9.6 s and writes for 5.1 s). The prompt is read in fixed chunks aligned to positions, and a child's
prompt (a root prompt, the parent's answer, the feedback) reuses only the whole chunks its root's kept state holds.
Bigger chunks read faster per token on many cores but keep less for the child; smaller ones keep more and pay one
pass over the weights per chunk. This measures both on the same prompts for each size, the model loaded afresh for
each (no state kept from another size), the first size again at the end (the drift of a shared machine).

Qwen2.5-Coder 1.5B, 2 threads, idle 2-core machine (2026-12-07, DOMAIN_DRAFTER_PERF_MODEL):
  64-token chunks (the default for a model of 1 to 4 GiB): root 15.0 s, child 2.0 s (832 tokens kept)
  512: root 19.1 s, child 9.8 s (512 kept); 256: 18.4 / 3.8 s; 128: 17.7 / 4.0 s (768 kept)
The same with another 2-thread llama.cpp process on the 2 cores (oversubscribed): 64-token chunks took 121 to 135 s
for the root, 512-token ones 31 to 32 s: each chunk is a pass whose threads wait for each other at every layer, and
a waiting thread spins while the one it waits for is descheduled. Hence the default stays 64 for this size, and
`bench run` on N cores runs N / threads generators, never more threads than cores.

The model is the embedded default one; DOMAIN_DRAFTER_PERF_MODEL=/path/to.gguf measures another,
DOMAIN_DRAFTER_PERF_THREADS the llama.cpp threads (default 2), DOMAIN_DRAFTER_PERF_PROMPT_FORMAT the prompt
format (default: the catalogue's for the file name; Qwen's is chat). Reported with the load average; asserted: a child
reuses a whole number of chunks of its root, and every read gives a token.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.perf.conftest import report
from tests.perf.test_search_decoding_perf import expansion, load_average

from domain_drafter.core.bundle import load_bundled
from domain_drafter.llm.backend import DecodingOptions

CHUNKS = (64, 128, 256, 512, 64)


def test_prompt_chunk_sizes_on_a_root_and_its_child(model_path):
    from domain_drafter.llm.factory import resolve_prompt_format
    from domain_drafter.llm.llama import LlamaCppBackend

    threads = int(os.environ.get("DOMAIN_DRAFTER_PERF_THREADS", "2"))
    prompt_format = resolve_prompt_format(model_path, os.environ.get("DOMAIN_DRAFTER_PERF_PROMPT_FORMAT", "auto"))
    roots, children = expansion(load_bundled(), "blocksworld", "stack")
    root, child = roots[0], children[0][0]   # the first child is asked after the first root
    rows, seconds = [], {}
    for chunk in CHUNKS:
        with LlamaCppBackend(model_path, n_threads=threads, prompt_chunk=chunk,
                             prompt_format=prompt_format) as backend:
            start = time.perf_counter()
            first = backend.generate(root, DecodingOptions(max_tokens=1))
            root_s = time.perf_counter() - start
            start = time.perf_counter()
            second = backend.generate(child, DecodingOptions(max_tokens=1))
            child_s = time.perf_counter() - start
            kept = backend.last_reused_tokens
        assert first.stats.generated_tokens == 1 and second.stats.generated_tokens == 1
        assert kept > 0 and kept % chunk == 0, f"a child reuses whole chunks of its root ({kept} at {chunk})"
        seconds.setdefault(chunk, []).append(root_s + child_s)
        rows.append((f"{chunk}-token chunks", f"root {root_s:.2f} s ({first.stats.prompt_tokens} tokens), "
                                              f"child {child_s:.2f} s ({kept} kept of {second.stats.prompt_tokens})"))
    best = min(seconds, key=lambda c: min(seconds[c]))
    rows += [("fastest root + child", f"{best}-token chunks"), ("load average", load_average())]
    report(f"prompt chunks, {Path(model_path).name}, {threads} threads", rows)
