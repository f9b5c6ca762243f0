"""Will a model run here, and how fast? Load it, read one real prompt, generate a few tokens.

`speed_check(path)` refuses a model whose file is larger than the memory available now (Linux:
MemAvailable in /proc/meminfo) before loading anything, then loads it, evaluates the paper's
prompt for one action of a bundled domain (core/prompt.py), generates a few greedy tokens and
measures prompt and generation tokens/s and the process's resident memory before and after.
`estimate_spec` turns that into the time an experiment spec (bench/spec.py) would take with it.

The estimate of one answer is prompt_tokens / prompt speed + max_tokens / generation speed: an
upper bound, since answers usually stop (at the next "Input:") before max_tokens, and a run's
prompts share their first examples, which the llama.cpp backend does not evaluate twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState


class PlannedExperiment(Protocol):
    """What estimate_spec reads of an experiment spec (bench.spec.ExperimentSpec): bench/ sits above llm/, so
    the spec is named by the four things used, not imported."""

    @property
    def name(self) -> str: ...
    @property
    def models(self) -> Sequence[object]: ...
    @property
    def max_tokens(self) -> int: ...
    def tasks(self) -> Sequence[object]: ...


PROC_MEMINFO = Path("/proc/meminfo")
PROC_STATUS = Path("/proc/self/status")
DEFAULT_TOKENS = 16
DEFAULT_DOMAIN = "blocksworld"
_MIB = float(1 << 20)


def _proc_kib(path: Path, key: str) -> int | None:
    """A "Key:   1234 kB" line of a /proc file, in bytes; None where there is no such file or line."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == key:
            fields = rest.split()
            if fields and fields[0].isdigit():
                return int(fields[0]) * 1024
    return None


def memory_available(meminfo: Path = PROC_MEMINFO) -> int | None:
    """Bytes the kernel says can be used now without swapping (MemAvailable); None if unknown."""
    return _proc_kib(meminfo, "MemAvailable")


def process_rss(status: Path = PROC_STATUS) -> int | None:
    """This process's resident memory in bytes (VmRSS); None if unknown."""
    return _proc_kib(status, "VmRSS")


def check_fits(path: Path, *, ram: int | None = None, meminfo: Path = PROC_MEMINFO) -> str:
    """Refuse (ModelError) a model file larger than the memory available; else return a warning
    ("" if none) when the catalogue's `ram` estimate is above it."""
    available = memory_available(meminfo)
    size = path.stat().st_size
    if available is None:
        return "the available memory is unknown here (no /proc/meminfo); not checked"
    if size > available:
        raise ModelError(
            f"the model file alone is {size / _MIB:,.0f} MiB but only {available / _MIB:,.0f} MiB of memory "
            "is available now, so it cannot run here",
            where=path, hint="close other programs, or pick a smaller model (domain-drafter models)")
    if ram is not None and ram > available:
        return (f"the model may need about {ram / _MIB:,.0f} MiB with its working memory, and "
                f"{available / _MIB:,.0f} MiB are available: it may swap")
    return ""


@dataclass(frozen=True)
class SpeedReport:
    """One measurement on this machine. Speeds are tokens/s; memory is bytes (None if unknown)."""

    model: str
    path: Path
    size: int
    threads: int
    load_s: float
    prompt_tokens: int
    prompt_s: float
    generated_tokens: int
    generate_s: float
    rss_before: int | None
    rss_after: int | None
    available_before: int | None
    warning: str = ""
    prompt_format: str = "completion"   # how the measured prompt was read: "completion" or "chat"
    # a search child's answer (its prompt holds the parent's answer) written greedily: its tokens, and the tokens/s
    # without and with speculative decoding (llm/speculate.py); None when not measured
    child_tokens: int = 0
    child_tps: tuple[float, float] | None = None

    @property
    def prompt_tps(self) -> float:
        return self.prompt_tokens / self.prompt_s if self.prompt_s > 0 else 0.0

    @property
    def generate_tps(self) -> float:
        """Decoding speed after the first token (llm.backend.GenerationStats.tokens_per_s)."""
        return (self.generated_tokens - 1) / self.generate_s if self.generated_tokens > 1 and self.generate_s > 0 else 0.0

    @property
    def memory_used(self) -> int | None:
        if self.rss_before is None or self.rss_after is None:
            return None
        # The process may free other memory while the model loads (the GC, the allocator
        # returning pages): a drop in the resident size is not negative use.
        return max(0, self.rss_after - self.rss_before)

    def answer_seconds(self, max_tokens: int, prompt_tokens: int | None = None) -> float:
        """Upper bound of one answer's time: the prompt, then max_tokens new tokens."""
        if self.prompt_tps <= 0 or self.generate_tps <= 0:
            return float("inf")
        return (prompt_tokens or self.prompt_tokens) / self.prompt_tps + max_tokens / self.generate_tps

    def to_dict(self) -> dict:
        data = asdict(self)
        data["path"] = str(self.path)
        data.update(prompt_tps=self.prompt_tps, generate_tps=self.generate_tps, memory_used=self.memory_used)
        return data


@dataclass(frozen=True)
class SpecEstimate:
    """How long an experiment spec's answers would take with the measured model (upper bound)."""

    spec: str
    tasks: int
    max_tokens: int
    seconds_per_answer: float

    @property
    def total_s(self) -> float:
        return self.tasks * self.seconds_per_answer


def speed_check(path: str | Path, *, tokens: int = DEFAULT_TOKENS, n_ctx: int | None = None,
                threads: int | None = None, domain: str = DEFAULT_DOMAIN, ram: int | None = None,
                meminfo: Path = PROC_MEMINFO, task: TaskState | None = None,
                prompt_format: str = "auto") -> SpeedReport:
    """Measure the GGUF at `path` on this machine (see the module doc). `ram`: the catalogue's
    memory estimate, if any, for the warning. prompt_format: as the model will be used ("auto":
    the catalogue's format for it). Raises ModelError before loading if it cannot fit."""
    from domain_drafter.core.bundle import load_bundle, load_bundled
    from domain_drafter.core.prompt import build_prompt
    from domain_drafter.llm.backend import DecodingOptions
    from domain_drafter.llm.factory import open_backend, resolve_prompt_format
    from domain_drafter.llm.gguf_check import inspect_gguf

    path = Path(path).expanduser()
    info = inspect_gguf(path)                      # a missing or broken file: say so before anything else
    warning = check_fits(path, ram=ram, meminfo=meminfo)
    task = task or TaskState()
    bundle = load_bundle(domain)
    prompt = build_prompt(bundle, bundle.action_names[0], load_bundled())
    try:  # the binding's own memory is not the model's: load the library before measuring
        import llama_cpp  # noqa: F401
    except ImportError:
        pass  # open_backend says what to install
    available = memory_available(meminfo)
    rss_before = process_rss()
    task.report(0, 3, f"loading {path.name}")
    with open_backend(path, n_ctx=n_ctx, n_threads=threads,
                      prompt_format=resolve_prompt_format(path, prompt_format)) as backend:
        task.check_cancelled()
        task.report(1, 3, f"reading a {bundle.name} prompt and writing {tokens} tokens")
        generation = backend.generate(prompt.text, DecodingOptions(max_tokens=tokens, stop=(), speculate=False),
                                      task=task)
        task.check_cancelled()
        rss_after = process_rss()
        child_tokens, child_tps = _child_speeds(backend, bundle, prompt.text, max(tokens, 64), task)
        stats = generation.stats
        load_s = float(getattr(backend, "load_time_s", 0.0))
        used_threads = int(getattr(backend, "n_threads", threads or 0))
        used_format = str(getattr(backend, "prompt_format", "completion"))
    task.report(3, 3, "measured")
    return SpeedReport(
        model=info.name, path=path, size=info.file_size, threads=used_threads, load_s=load_s,
        prompt_tokens=stats.prompt_tokens, prompt_s=stats.time_to_first_token_s,
        generated_tokens=stats.generated_tokens,
        generate_s=max(0.0, stats.wall_time_s - stats.time_to_first_token_s),
        rss_before=rss_before, rss_after=rss_after, available_before=available, warning=warning,
        prompt_format=used_format, child_tokens=child_tokens, child_tps=child_tps)


def _child_speeds(backend, bundle, prompt: str, tokens: int, task: TaskState) -> tuple[int, tuple[float, float] | None]:
    """A search child's call (the prompt, the reference answer as its parent's, the generic feedback) written
    greedily without and with speculative decoding: (tokens written, (tokens/s without, tokens/s with)).
    A server decodes as it does: not measured."""
    from domain_drafter.core.prompt import load_template
    from domain_drafter.llm.backend import DecodingOptions

    if not getattr(backend, "steers_tokens", False):
        return 0, None
    task.report(2, 3, "writing a search child's answer with speculative decoding and without")
    parent = next(a for a in bundle.domain.actions if a.name == bundle.action_names[0]).to_pddl("")
    child = prompt + parent + load_template().render_feedback("reconsider its preconditions and effects")
    speeds, written = [], 0
    for speculate in (False, True):
        g = backend.generate(child, DecodingOptions(max_tokens=tokens, speculate=speculate), task=task)
        task.check_cancelled()
        speeds.append(g.stats.tokens_per_s)
        written = g.stats.generated_tokens
    return written, (speeds[0], speeds[1])


def estimate_spec(report: SpeedReport, spec: PlannedExperiment) -> SpecEstimate:
    """The answers one model writes for `spec` (all its tasks for one of the spec's models)."""
    tasks = len(spec.tasks()) // max(1, len(spec.models))
    return SpecEstimate(spec.name, tasks, spec.max_tokens, report.answer_seconds(spec.max_tokens))


def format_report(report: SpeedReport, estimate: SpecEstimate | None = None, max_tokens: int = 300) -> list[str]:
    """A person's view of a report, one line each (the CLI prints it, the GUI shows it)."""
    from domain_drafter.llm.download import format_duration

    def mib(n: int | None) -> str:
        return "unknown" if n is None else f"{n / _MIB:,.0f} MiB"

    lines = [
        f"{report.model} ({report.path.name}, {mib(report.size)}), {report.threads} "
        f"thread{'' if report.threads == 1 else 's'}:",
        f"  loaded in {report.load_s:.1f} s",
        f"  prompt ({report.prompt_format} format): {report.prompt_tokens} tokens in {report.prompt_s:.2f} s = "
        f"{report.prompt_tps:,.1f} tokens/s",
        f"  generation: {report.generated_tokens} tokens, {report.generate_tps:,.1f} tokens/s",
        f"  memory: {mib(report.memory_used)} used by the model (resident {mib(report.rss_before)} before, "
        f"{mib(report.rss_after)} after; {mib(report.available_before)} were available)",
        f"  one answer: at most {format_duration(report.answer_seconds(max_tokens))} "
        f"(this prompt, then {max_tokens} new tokens)",
    ]
    if report.child_tps is not None:
        off, on = report.child_tps
        lines.append(f"  speculative decoding (a search child's answer, {report.child_tokens} tokens): {on:,.1f} tokens/s "
                     f"with it, {off:,.1f} without = {on / off if off > 0 else 0.0:.2f}x")
    if estimate is not None:
        lines.append(f"  {estimate.spec}: {estimate.tasks:,} answers, at most "
                     f"{format_duration(estimate.total_s)} ({estimate.max_tokens} new tokens each)")
    if report.warning:
        lines.append(f"  warning: {report.warning}")
    return lines


@dataclass(frozen=True)
class BatchReport:
    """B answers one at a time against B answers decoded together in one llama.cpp batch, on this machine."""

    batch: int
    tokens: int
    one_at_a_time_s: float
    batched_s: float
    answers_differ: int

    @property
    def ratio(self) -> float:
        """Answers per second batched, as a multiple of one at a time (above 1: batching pays here)."""
        return self.one_at_a_time_s / self.batched_s if self.batched_s > 0 else 0.0

    def verdict(self) -> str:
        if self.ratio >= 1.2 and not self.answers_differ:
            return f"batching pays here: use --batch {self.batch}"
        why = f"{self.ratio:.2f}x the answers/s" + (f", and {self.answers_differ} of {self.batch} greedy answers "
                                                    "change" if self.answers_differ else "")
        return (f"batching does not pay here ({why}): keep --batch 1, and use the other cores with "
                "bench run --generators")

    def to_dict(self) -> dict:
        return {**asdict(self), "ratio": self.ratio, "verdict": self.verdict()}


def batch_check(path: str | Path, batch: int, *, tokens: int = 96, threads: int | None = None,
                task: TaskState | None = None) -> BatchReport:
    """Write `batch` experiment prompts' answers (`tokens` each, greedy, every prompt read in full) one at a time,
    then `batch` together in one llama.cpp batch; compare the time and the answers."""
    import time

    from domain_drafter.core.bundle import load_bundled
    from domain_drafter.core.prompt import build_prompt
    from domain_drafter.llm.backend import DecodingOptions
    from domain_drafter.llm.batch import BatchRequest
    from domain_drafter.llm.llama import LlamaCppBackend

    if batch < 2:
        raise ModelError(f"--batch must be at least 2 to compare with one at a time, got {batch}")
    task = task or TaskState()
    pool = load_bundled()
    prompts = [build_prompt(b, a, pool).text for b in pool for a in b.action_names][:batch]
    options = DecodingOptions(max_tokens=tokens, stop=())
    with LlamaCppBackend(Path(path).expanduser(), n_threads=threads, reuse_prompt_cache=False,
                         n_ctx_per_seq=2048) as backend:
        task.report(0, 2, f"{batch} answers one at a time")
        start = time.perf_counter()
        alone = [backend.generate(p, options, task=task).text for p in prompts]
        one_s = time.perf_counter() - start
        task.check_cancelled()
        task.report(1, 2, f"{batch} answers in one batch")
        together: dict[int, str] = {}
        start = time.perf_counter()
        backend.generate_stream((BatchRequest(p, options, i) for i, p in enumerate(prompts)),
                                lambda request, generation: together.__setitem__(request.tag, generation.text),
                                n_slots=batch, task=task)
        batched_s = time.perf_counter() - start
        task.check_cancelled()
    task.report(2, 2, "measured")
    differ = sum(together.get(i) != text for i, text in enumerate(alone))
    return BatchReport(batch, tokens, one_s, batched_s, differ)
