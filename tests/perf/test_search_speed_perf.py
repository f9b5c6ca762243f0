"""A guided search's speed with an expansion's children written together (issue 38), against one at a time.

The workload is issue 38's: fixed search tasks (guided search under the grammar, base descriptions, seed 0, 16
model calls, the reference judging, as the committed strategies runs), each run in every configuration in this
process, with the model loaded afresh for each search (so that none starts from the prompt states another one
kept): one child at a time (today's default) and `batch_children` (each expansion's children in one llama.cpp
batch, its slots starting from the roots' kept prompt states). A search that reaches a proven Equivalent early
stops, so the two trees can differ in size; the rates are per call and per token written.

Reported per configuration: model calls, tokens written, seconds of model time per call (the search's wall time
less its judging time) and tokens written per second of model time (reading the prompts included: a batch's
sequences share their steps, so per-call decoding rates would not add up); the ratios; the proven Equivalent
answers.

The model is the embedded default one; DOMAIN_DRAFTER_PERF_MODEL=/path/to.gguf measures another (issue 38's
targets are Qwen2.5-Coder 1.5B's: at least 2.5x the tokens per second, at most 0.4x the seconds per call),
DOMAIN_DRAFTER_PERF_TASKS=N runs the first N tasks (default 2; 8 for issue 38's measure), and
DOMAIN_DRAFTER_PERF_THREADS the llama.cpp threads (default 1, one core, as `bench run --threads 1`) and
DOMAIN_DRAFTER_PERF_PROMPT_FORMAT the prompt format (default: the catalogue's for the file name; Qwen's is chat);
DOMAIN_DRAFTER_PERF_SPECULATE=1 adds two runs one at a time with speculative decoding from the prompt (every call,
or the sampled children only); DOMAIN_DRAFTER_PERF_CONFIGS="a;b" keeps only those runs beside "one at a time".
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from tests.perf.conftest import report

from domain_drafter.core.bundle import load_bundled
from domain_drafter.drafting.options import DraftOptions
from domain_drafter.drafting.presets import Preset, preset_options
from domain_drafter.drafting.search import search_action
from domain_drafter.llm.backend import DecodingOptions

TASKS = (("blocksworld", "stack"), ("logistics", "load-truck"), ("depot", "drive"), ("gripper", "move"),
         ("miconic", "board"), ("heavy-pack", "stack"), ("trap-newspapers", "deliver"), ("hiking", "walk"))



def test_children_written_together_against_one_at_a_time_in_guided_searches(model_path, tmp_path):
    from domain_drafter.llm.factory import resolve_prompt_format
    from domain_drafter.llm.llama import LlamaCppBackend
    from domain_drafter.planning.evaluate import Evaluator, VerdictCache
    from domain_drafter.planning.kstar import KStarPlanner
    from domain_drafter.planning.plan_cache import PlanCache

    n_tasks = int(os.environ.get("DOMAIN_DRAFTER_PERF_TASKS", "2"))
    threads = int(os.environ.get("DOMAIN_DRAFTER_PERF_THREADS", "1"))
    pool = load_bundled()
    bundles = {b.name: b for b in pool}
    draft = DraftOptions(decoding=DecodingOptions(max_tokens=300), grammar=True)
    plain = preset_options(Preset.GUIDED_SEARCH, budget=16)
    prompt_format = resolve_prompt_format(model_path, os.environ.get("DOMAIN_DRAFTER_PERF_PROMPT_FORMAT", "auto"))
    planner = KStarPlanner()
    configs = {"one at a time": (False, False, False), "together": (True, False, False)}
    if os.environ.get("DOMAIN_DRAFTER_PERF_SPECULATE") == "1":
        configs["one at a time, speculating"] = (False, True, False)
        configs["one at a time, children speculating"] = (False, False, True)
    only = os.environ.get("DOMAIN_DRAFTER_PERF_CONFIGS")
    if only:
        configs = {name: c for name, c in configs.items() if name in only.split(";") or name == "one at a time"}
    rows: dict[str, list] = {name: [] for name in configs}
    with Evaluator(planner=planner, plan_cache=PlanCache(planner, tmp_path / "plans"),
                   verdicts=VerdictCache(tmp_path / "v.sqlite")) as evaluator:
        for domain, action in TASKS[:n_tasks]:
            for name, (together, speculate, children) in configs.items():
                decoding = replace(draft.decoding, speculate=speculate)
                # a model of its own for each search: none inherits the prompt states another one kept
                with LlamaCppBackend(model_path, n_threads=threads, prompt_format=prompt_format) as backend:
                    result = search_action(bundles[domain], action, backend, evaluator, pool,
                                           replace(draft, decoding=decoding),
                                           replace(plain, batch_children=together, speculate_children=children))
                model_s = result.wall_s - result.timings.get("judge_s", 0.0)
                rows[name].append((result.calls, result.generated_tokens, model_s, result.equivalent_at is not None))

    def total(name: str, i: int) -> float:
        return sum(r[i] for r in rows[name])

    base = "one at a time"
    lines = []
    for name in rows:
        per_call, speed = total(name, 2) / total(name, 0), total(name, 1) / total(name, 2)
        base_call, base_speed = total(base, 2) / total(base, 0), total(base, 1) / total(base, 2)
        lines.append((name, f"{total(name, 0):.0f} calls, {total(name, 1):.0f} tokens, {per_call:.1f} model s/call "
                            f"({per_call / base_call:.2f}x), {speed:.2f} tokens/model s ({speed / base_speed:.2f}x), "
                            f"{total(name, 3):.0f} of {n_tasks} proven Equivalent"))
    lines.append(("load average", Path("/proc/loadavg").read_text().split(" ")[0]
                  if Path("/proc/loadavg").exists() else "?"))
    report(f"guided search, {n_tasks} tasks x 16 calls, {Path(model_path).name}, {threads} thread(s), grammar", lines)
    assert all(r[0] >= 1 and r[1] > 0 for name in rows for r in rows[name]), "every search wrote answers"
