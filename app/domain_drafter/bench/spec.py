"""Experiment specs (TOML) and the tasks they stand for, materialised up front.

A spec names models (registry names, GGUF paths or OpenAI-compatible endpoints), domains,
description classes, prompts per action, and the planner and decoding settings. `tasks()`
expands it into one `BenchTask` per (system, domain, action, class, seed), in a fixed order,
so a run's size is known before it starts and the same spec always means the same tasks.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.errors import DomainError, DrafterError, UsageError
from domain_drafter.drafting.options import FEEDBACK_KINDS
from domain_drafter.llm.backend import GUIDED_NEEDS_LOGITS, PROMPT_FORMATS

# Answers in flight per llama.cpp batch (tests/perf/test_batch_perf.py, Gemma-3 270M, 1 thread on a
# busy 2-vCPU VM): with the experiment's ~930-token prompts prompt evaluation dominates and B = 2, 4, 8
# gave 0.99x, 0.82x, 0.83x the answers/s of B = 1; decoding alone gained up to 1.6-1.8x at B = 8 or 4.
# With llama.cpp's repacked weights B >= 4 also changed 4 of 8 greedy answers. So one at a time.
DEFAULT_BATCH = 1

_MODEL_KEYS = {"name", "model", "endpoint", "size_b", "api_key_env", "prompt_format", "parallel", "timeout_s"}
# How a model is served, not what it answers: left out of the fingerprint (like workers and threads).
_SERVING_KEYS = ("parallel", "timeout_s")
_RUN_KEYS = {"name", "description", "domains", "classes", "prompts_per_action", "first_seed", "examples", "k",
             "time_limit_s", "grammar", "retries", "feedback", "workers", "max_tokens", "n_ctx", "threads",
             "reuse_prompt_cache", "batch", "models", "equivalence", "strategies", "search", "generators",
             "blind"}
BLIND_VALUES = (False, True, "no-tests")   # blind = true: drafted with the blind judge (drafting/blind.py)
STRATEGIES = ("one-shot", "retries", "best-of", "search", "guided-search")
_SEARCH_KEYS = {"budget", "width", "children", "feedback", "temperature", "max_tokens", "time_limit_s", "repair",
                "reheat", "rotate", "batch_children", "speculate_children"}


@dataclass(frozen=True)
class ModelSpec:
    """One model: a registry name or GGUF path (`model`), or OpenAI-compatible endpoint(s).

    `endpoint` is one URL or a tuple of them (servers of the same model): tasks go to whichever is free,
    `parallel` requests at a time per endpoint; a request waits at most `timeout_s` for the server."""

    name: str
    model: str | None = None
    endpoint: str | tuple[str, ...] | None = None
    size_b: float | None = None        # parameters in billions, for the "class shares vs size" figure
    api_key_env: str | None = None     # environment variable holding the endpoint's key (never the key)
    prompt_format: str = "completion"  # "completion" (the paper's) or "chat" (the model's chat template)
    parallel: int = 1                  # requests in flight per endpoint (a server started with --parallel)
    timeout_s: float = 120.0           # how long one request may wait for its server

    @property
    def endpoints(self) -> tuple[str, ...]:
        if not self.endpoint:
            return ()
        return (self.endpoint,) if isinstance(self.endpoint, str) else tuple(self.endpoint)

    @property
    def source(self) -> str:
        return ", ".join(self.endpoints) if self.endpoint else str(self.model)


@dataclass(frozen=True)
class ExperimentSpec:
    """What to run. `grammar` lists decoding modes; each (model, mode) pair is one column ("system")."""

    name: str
    models: tuple[ModelSpec, ...]
    domains: tuple[str, ...] = ("all",)
    classes: tuple[str, ...] = ("base",)
    prompts_per_action: int = 1
    first_seed: int = 0
    examples: int = 3
    k: int = 100
    time_limit_s: float = 30.0
    grammar: tuple[bool, ...] = (False,)
    retries: int = 0
    feedback: str = "checks"
    equivalence: str = "proven"        # the verdict in `class`: "proven" (METHOD 6a) or "paper" (METHOD 6)
    workers: int = 1
    max_tokens: int = 300
    n_ctx: int = 4096
    threads: int | None = None
    reuse_prompt_cache: bool = True
    batch: int = DEFAULT_BATCH        # answers decoded together by llama.cpp (see DEFAULT_BATCH)
    description: str = ""
    strategies: tuple[str, ...] = ("one-shot",)   # how each task's answer is found (bench/strategies.py)
    search: dict = field(default_factory=dict)    # the [search] table: budget, width, children, feedback, ...
    generators: int | None = None      # generator processes for a local model (None: cores // threads)
    blind: bool | str = False          # True / "no-tests": drafted with the blind judge (without the tests file)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if list(self.strategies) == ["one-shot"] and not self.search:   # specs written before strategies existed
            data.pop("strategies")
            data.pop("search")
        if not self.blind:                 # specs written before blind drafting keep their fingerprint
            data.pop("blind")
        # prompt_format "completion" is left out so that specs written before it existed keep their fingerprint
        defaults = ModelSpec("")
        data["models"] = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(m).items()
                           if v is not None and not (k in ("prompt_format", *_SERVING_KEYS)
                                                     and v == getattr(defaults, k))}
                          for m in self.models]
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in data.items() if v is not None}

    @property
    def fingerprint(self) -> str:
        """Changes whenever the set of tasks, how they are generated or how they are judged changes
        (workers and threads do not count). A batch above 1 counts: with llama.cpp's repacked CPU
        weights, decoding 4+ sequences together rounds differently and can flip a greedy near-tie."""
        data = self.to_dict()
        for key in ("workers", "threads", "description", "generators"):
            data.pop(key, None)
        for model in data["models"]:
            for key in _SERVING_KEYS:
                model.pop(key, None)
        if data.get("batch") == 1:
            data.pop("batch")   # one at a time: the fingerprint of specs written before `batch` existed
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def domain_names(self) -> list[str]:
        from domain_drafter.core.bundle import bundled_names

        if list(self.domains) == ["all"]:
            return bundled_names()
        return list(self.domains)

    def systems(self) -> list[tuple[ModelSpec, bool, str]]:
        return [(m, g, s) for m in self.models for g in self.grammar for s in self.strategies]

    def strategy_of(self) -> dict[str, str]:
        """system name -> its strategy."""
        return {system_name(m.name, g, s): s for m, g, s in self.systems()}

    def tasks(self) -> list[BenchTask]:
        """Every task of the run, in generation order.

        A model's tasks come in a row (it is loaded once). Within a model, seeds are the outer loop
        and decoding modes the inner one: a run stopped early covers every action evenly, and the
        grammar variant of a prompt follows its free variant, reusing the model's prompt cache.
        """
        from domain_drafter.core.bundle import load_bundle

        names = self.domain_names()
        bundles = [load_bundle(d) for d in names]
        out = []
        for model in self.models:
            for seed in range(self.first_seed, self.first_seed + self.prompts_per_action):
                for cls in self.classes:
                    for spec_name, bundle in zip(names, bundles):
                        for action in bundle.action_names:
                            for grammar in self.grammar:
                                for strategy in self.strategies:
                                    out.append(BenchTask(system_name(model.name, grammar, strategy), model.name,
                                                         grammar, spec_name, action, cls, seed))
        return out

    def with_overrides(self, **changes: Any) -> ExperimentSpec:
        return replace(self, **changes)


def _search_table(raw: Any, fail) -> dict:
    """The [search] table, checked: the same limits as SearchOptions (a budget of at least 1 ...)."""
    from domain_drafter.drafting.options import Feedback, SearchOptions

    if not isinstance(raw, dict):
        fail("'search' must be a table: [search] budget = 16 width = 4 children = 4 feedback = \"all\"")
    bad = set(raw) - _SEARCH_KEYS
    if bad:
        fail("[search]: unknown key(s) " + ", ".join(sorted(bad)), "valid keys: " + ", ".join(sorted(_SEARCH_KEYS)),
             sorted(bad)[0])
    kinds = {"budget": int, "width": int, "children": int, "feedback": str, "temperature": float, "max_tokens": int,
             "time_limit_s": float, "repair": bool, "reheat": float, "rotate": bool, "batch_children": bool,
             "speculate_children": bool}
    out = {}
    for key, value in raw.items():
        kind = kinds[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            fail(f"[search] '{key}' must be {kind.__name__}, not {value!r}", None, key)
        out[key] = value
    if "feedback" in out and out["feedback"] not in FEEDBACK_KINDS:
        fail(f"[search] feedback must be one of {', '.join(FEEDBACK_KINDS)}, not {out['feedback']!r}", None,
             "feedback")
    try:
        SearchOptions(**{**out, "feedback": Feedback(out.get("feedback", "all"))})
    except DrafterError as exc:
        bad_key = next((k for k in out if f"'{k}'" in exc.what), None)
        fail(f"[search]: {exc.what}", exc.hint, bad_key)
    return out


def _model_spec(raw: Any, i: int, fail, source) -> ModelSpec:
    """The i-th (1-based) [[models]] table, checked; errors point at its line."""
    def bad(what: str, key: str | None = None, hint: str | None = None):
        if source is not None:
            raise source.fail_item(f"models entry {i}: {what}", "models", i - 1, key, hint=hint)
        fail(f"models entry {i}: {what}", hint)

    if not isinstance(raw, dict):
        fail(f"models entry {i} is not a table")
    unknown = set(raw) - _MODEL_KEYS
    if unknown:
        bad("unknown key(s) " + ", ".join(sorted(unknown)), sorted(unknown)[0],
            "valid keys: " + ", ".join(sorted(_MODEL_KEYS)))
    if bool(raw.get("model")) == bool(raw.get("endpoint")):
        bad("needs exactly one of 'model' (registry name or GGUF path) or 'endpoint' (a URL or a list of URLs)",
            "endpoint" if "endpoint" in raw else None)
    endpoint = raw.get("endpoint")
    if isinstance(endpoint, list):
        if not all(isinstance(u, str) and u.strip() for u in endpoint) or len(set(endpoint)) != len(endpoint):
            bad("'endpoint' must be a URL or a list of distinct URLs", "endpoint",
                'e.g. endpoint = ["http://gpu1:8080", "http://gpu2:8080"]')
        endpoint = tuple(u.strip() for u in endpoint)
    elif endpoint is not None and not isinstance(endpoint, str):
        bad(f"'endpoint' must be a URL or a list of URLs, not {endpoint!r}", "endpoint")
    for url in (endpoint,) if isinstance(endpoint, str) else endpoint or ():
        if not url.lower().startswith(("http://", "https://")):
            bad(f"endpoint {url!r} is not an http(s) URL", "endpoint", "e.g. http://127.0.0.1:8080")
    prompt_format = raw.get("prompt_format", "completion")
    if prompt_format not in PROMPT_FORMATS:
        bad(f"prompt_format must be one of {', '.join(PROMPT_FORMATS)}, not {prompt_format!r}", "prompt_format")
    parallel = raw.get("parallel", 1)
    if not isinstance(parallel, int) or isinstance(parallel, bool) or parallel < 1:
        bad(f"'parallel' must be a whole number of at least 1, not {parallel!r}", "parallel",
            "the requests one endpoint serves at once (llama.cpp's server: its --parallel)")
    if "parallel" in raw and not endpoint:
        bad("'parallel' is for endpoints; a local model's processes are --generators", "parallel")
    timeout_s = raw.get("timeout_s", 120.0)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
        bad(f"'timeout_s' must be a positive number of seconds, not {timeout_s!r}", "timeout_s")
    name = str(raw.get("name") or Path(str(raw.get("model") or (endpoint if isinstance(endpoint, str)
                                                                 else endpoint[0]))).stem)
    return ModelSpec(name, raw.get("model"), endpoint, raw.get("size_b"), raw.get("api_key_env"), prompt_format,
                     parallel, float(timeout_s))


def system_name(model: str, grammar: bool, strategy: str = "one-shot") -> str:
    """The column a (model, decoding mode, strategy) gets in the tables; one-shot is the paper's (no suffix)."""
    name = f"{model} +grammar" if grammar else model
    return name if strategy == "one-shot" else f"{name} [{strategy}]"


@dataclass(frozen=True)
class BenchTask:
    """One prompt to one system; `key` is unique within a results file."""

    system: str
    model: str
    grammar: bool
    domain: str
    action: str
    description_class: str
    seed: int
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def key(self) -> str:
        return "|".join([self.system, self.domain, self.action, self.description_class, str(self.seed)])


def load_spec(path: str | Path) -> ExperimentSpec:
    """Read and check an experiment TOML; DomainError naming the file, the line and the bad key otherwise."""
    from domain_drafter.core.toml_source import TomlSource

    path = Path(path)
    if not path.is_file():
        raise UsageError("cannot read the experiment spec: no such file", where=path)
    source = TomlSource.read(path, "experiment spec")
    return spec_from_dict(source.data, where=path, source=source)


def spec_from_dict(data: dict[str, Any], where: Path | str | None = None, source: Any = None) -> ExperimentSpec:
    """`source` (a TomlSource) points errors at the line of the key they are about."""
    def fail(what: str, hint: str | None = None, keys: tuple[str, ...] = ()) -> None:
        if source is not None and keys:
            raise source.fail(what, *keys, hint=hint)
        raise DomainError(what, where=where, hint=hint)

    unknown = set(data) - _RUN_KEYS
    if unknown:
        fail("unknown key(s) " + ", ".join(sorted(unknown)), "valid keys: " + ", ".join(sorted(_RUN_KEYS)))
    models_raw = data.get("models")
    if not isinstance(models_raw, list) or not models_raw:
        fail("the spec needs at least one [[models]] table", 'add [[models]] name = "gemma" model = "default"')
    models = [_model_spec(raw, i, fail, source) for i, raw in enumerate(models_raw, start=1)]
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        fail("two models share a name: " + ", ".join(sorted({n for n in names if names.count(n) > 1})))

    def listed(key: str, default: tuple) -> tuple:
        value = data.get(key, default)
        return tuple(value) if isinstance(value, (list, tuple)) else (value,)

    classes = listed("classes", ("base",))
    for cls in classes:
        try:
            DescriptionClass.parse(str(cls))
        except DrafterError:
            fail(f"unknown description class '{cls}'", "use base, flipped or random")
    fields = dict(
        name=str(data.get("name") or (Path(where).stem if where else "experiment")),
        description=str(data.get("description", "")),
        models=tuple(models), domains=tuple(str(d) for d in listed("domains", ("all",))),
        classes=tuple(str(c).lower() for c in classes), grammar=tuple(bool(g) for g in listed("grammar", (False,))),
    )
    for key, kind in (("prompts_per_action", int), ("first_seed", int), ("examples", int), ("k", int),
                      ("time_limit_s", float), ("retries", int), ("workers", int), ("max_tokens", int),
                      ("n_ctx", int), ("threads", int), ("reuse_prompt_cache", bool), ("feedback", str),
                      ("equivalence", str), ("batch", int), ("generators", int)):
        if key in data:
            value = data[key]
            if kind is float and isinstance(value, int):
                value = float(value)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                fail(f"'{key}' must be {kind.__name__}, not {value!r}", None, (key,))
            fields[key] = value
    if fields.get("generators", 1) < 1:
        fail(f"'generators' must be at least 1, not {fields['generators']}",
             "one generator process per `threads` cores fills the machine; leave it out for that default",
             ("generators",))
    if fields.get("prompts_per_action", 1) < 1 or fields.get("workers", 1) < 1 or fields.get("batch", 1) < 1:
        fail("prompts_per_action, workers and batch must be at least 1")
    strategies = listed("strategies", ("one-shot",))
    for st in strategies:
        if st not in STRATEGIES:
            fail(f"unknown strategy {st!r}", "strategies are " + ", ".join(STRATEGIES), ("strategies",))
    if len(set(strategies)) != len(strategies):
        fail("a strategy is listed twice in 'strategies'", None, ("strategies",))
    fields["strategies"] = tuple(str(s) for s in strategies)
    served = [m.name for m in models if m.endpoint]
    if "guided-search" in strategies and served:
        fail(f"guided-search needs each model loaded in this process, and {', '.join(served)} "
             f"{'is' if len(served) == 1 else 'are'} served by an endpoint: {GUIDED_NEEDS_LOGITS}",
             "compare 'search' on a served model, or give it a GGUF 'model' instead of 'endpoint'", ("strategies",))
    if "search" in data:
        fields["search"] = _search_table(data["search"], lambda what, hint=None, key=None: fail(
            what, hint, ("search", key) if key else ("search",)))
    if "blind" in data:
        if data["blind"] not in BLIND_VALUES or (isinstance(data["blind"], int) and not isinstance(data["blind"], bool)):
            fail(f"'blind' must be true, false or \"no-tests\", not {data['blind']!r}",
                 "blind = true drafts with the blind judge (the domain's tests included); \"no-tests\" without "
                 "the tests file", ("blind",))
        fields["blind"] = data["blind"]
    if fields.get("feedback", "checks") not in FEEDBACK_KINDS:
        fail("feedback must be one of " + ", ".join(FEEDBACK_KINDS))
    if fields.get("equivalence", "proven") not in ("proven", "paper"):
        fail("equivalence must be 'proven' (the proof, METHOD 6a) or 'paper' (the plan heuristic, METHOD 6)")
    return ExperimentSpec(**fields)
