"""Run a local GGUF model in-process with llama.cpp (through llama-cpp-python).

The model is loaded once; each generate() call evaluates the prompt and then decodes one token at
a time in our own loop, which gives per-token control: the task's cancel flag is checked after
every token (and between prompt chunks), text is streamed as soon as it is final, and stop
sequences are cut on the decoded text.

We drive llama.cpp through llama-cpp-python's `Llama` object (load, tokenize, `eval`) and its
thin ctypes bindings for sampling (a llama.cpp sampler chain: optional grammar, then greedy or
top-k/top-p/temperature). We do not use `Llama.generate`/`create_completion` because
* create_completion(stream=True) detokenizes the whole completion again for every token
  (quadratic: 6.6 tok/s over 1000 tokens of the tiny test model, against ~7000 for our loop);
* `Llama.detokenize` mis-slices token pieces longer than 32 bytes;
* an invalid grammar makes llama.cpp return a NULL sampler that `Llama` adds to its chain
  unchecked (a crash at the first sample); we check it and raise ModelError instead;
* neither can be interrupted while a long prompt is evaluated.

Greedy decoding under a grammar does not run llama.cpp's grammar sampler over the whole
vocabulary at every step (Gemma-3's 262k tokens: ~40 ms a token, more than the model itself).
It takes the unconstrained argmax and asks the grammar about that one token; only when the
grammar rejects it are the top candidates checked, and only when all of them are rejected the
whole vocabulary (see grammar_sampler.GrammarGreedy). The chosen token is the one the full check would pick.
"""

from __future__ import annotations

import codecs
import ctypes
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable


from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.backend import (
    DecodingOptions,
    Generation,
    PromptFormat,
    StopReason,
    StopScanner,
    make_stats,
)
from domain_drafter.llm.amx import ModelParamsPatch, cpu_has_amx
from domain_drafter.llm.gguf_check import GGUFInfo, inspect_gguf
from domain_drafter.llm.grammar_sampler import GrammarGreedy
from domain_drafter.llm.llama_log import CaptureLog, CaptureStderr, load_lock

# Old private names, kept importable for callers of the single-module version.
_GrammarGreedy = GrammarGreedy
_CaptureLog, _CaptureStderr, _ModelParamsPatch = CaptureLog, CaptureStderr, ModelParamsPatch
__all__ = ["LlamaCppBackend", "cpu_has_amx", "default_threads"]

_INSTALL_HINT = "install it with `pip install llama-cpp-python` (it compiles llama.cpp; needs a C++ compiler and cmake)"

# The prompt is evaluated in chunks and cancellation is checked between them. Chunk sizes adapt
# to the measured prompt speed so that one chunk takes about PROMPT_CHUNK_S seconds (bounded
# below for a responsive cancel on big models, above for throughput on small ones). Gemma-3 270M
# on one core: 64-token chunks cost ~12% more prompt time than 256-token ones; >256 gains nothing.
PROMPT_CHUNK_FIRST = 64
PROMPT_CHUNK_MIN = 16
PROMPT_CHUNK_MAX = 512
PROMPT_CHUNK_S = 0.5


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp  # noqa: PLC0415 - heavy import, only when a model is actually loaded
    except ImportError as e:
        raise ModelError(f"llama-cpp-python is not installed ({e})", hint=_INSTALL_HINT) from e
    return llama_cpp


class _CallbackError(Exception):
    """Carries an exception raised by the on_token callback out of the decoding loop."""

    def __init__(self, original: BaseException):
        super().__init__(repr(original))
        self.original = original


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """Half the CPUs the process may use (at least 1), for prompt evaluation and decoding alike.

    On SMT machines that is about one thread per physical core, which is llama.cpp's own
    heuristic. llama.cpp's threads spin while they wait for each other, so a thread whose core is
    taken by another process stalls all the others. Gemma-3 270M on a 2-vCPU VM: with the machine
    otherwise idle, 2 threads decode at 40 tok/s and 1 thread at 24; with one busy process
    beside, 2 threads fall to 18 tok/s (once, with more load, to 0.5 tok/s) while 1 thread keeps
    24. Pass n_threads explicitly on a machine reserved for the model.
    """
    return max(1, _cpu_count() // 2)


class LlamaCppBackend:
    """A GGUF model loaded in this process. Thread-safe: concurrent generate() calls queue up.

    n_ctx: context size in tokens (prompt + generated; llama.cpp rounds it up to a multiple of
    256, see the n_ctx attribute). n_threads: CPU threads (default: half the CPUs, see
    default_threads()). n_gpu_layers: layers to offload on a GPU build of llama-cpp-python.

    extra_buffers: let llama.cpp repack weights for its faster CPU kernels (AMX, AVX repacking).
    None means yes unless the CPU advertises AMX: llama.cpp's AMX kernels kill the whole process
    (general protection fault) on VMs that advertise AMX but do not let programs use it.

    reuse_prompt_cache: keep the KV cache of the longest common token prefix with the previous
    call, so prompts that share their few-shot examples skip re-evaluating them (Gemma-3 270M,
    930-token prompts: time to first token 2.9 s -> 0.18 s, same outputs). In principle it can
    flip a greedy near-tie, since the prompt is then evaluated in different batches; turn it off
    when runs must be bit-for-bit independent of call order.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        verbose: bool = False,
        n_gpu_layers: int = 0,
        reuse_prompt_cache: bool = True,
        extra_buffers: bool | None = None,
        prompt_format: PromptFormat = "completion",
    ):
        self.model_path = Path(model_path).expanduser()
        # Cheap header checks first: some bad files make llama.cpp abort the whole process.
        self.info: GGUFInfo = inspect_gguf(self.model_path)
        llama_cpp = _import_llama_cpp()
        self._lc = llama_cpp
        self._verbose = verbose
        self._reuse = reuse_prompt_cache
        self.prompt_format: PromptFormat = prompt_format
        self._lock = threading.Lock()
        threads = n_threads or default_threads()
        if extra_buffers is None:
            extra_buffers = not cpu_has_amx()
        self.extra_buffers = extra_buffers
        t0 = time.perf_counter()
        with load_lock, CaptureLog(llama_cpp, verbose) as log, ModelParamsPatch(extra_buffers):
            try:
                self._llm = llama_cpp.Llama(
                    model_path=str(self.model_path),
                    n_ctx=n_ctx,
                    n_batch=min(512, max(n_ctx, 1)),
                    n_threads=threads,
                    n_threads_batch=threads,
                    n_gpu_layers=n_gpu_layers,
                    seed=seed,
                    verbose=verbose,
                )
            except (ValueError, RuntimeError, OSError) as e:
                reason = log.problems() or str(e)
                raise ModelError(
                    f"llama.cpp could not load the model: {reason}",
                    where=self.model_path,
                    hint="the file may be damaged (download it again), or made for a model "
                    "architecture this llama-cpp-python does not know (upgrade it: "
                    "`pip install -U llama-cpp-python`); pass verbose=True for llama.cpp's full log",
                ) from e
        self.load_time_s = time.perf_counter() - t0
        self.n_ctx: int = self._llm.n_ctx()
        self.n_threads = threads
        self._vocab = llama_cpp.llama_model_get_vocab(self._llm.model)
        self._piece_buf = ctypes.create_string_buffer(256)
        # Greedy + grammar: check the grammar on few tokens (GrammarGreedy). False runs llama.cpp's
        # grammar sampler over the whole vocabulary every step (same output, slower; for tests).
        self._grammar_fast_path = True
        self._last_grammar_counts: dict[str, int] | None = None  # GrammarGreedy.counts of the last call
        self._closed = False

    # --- protocol -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return f"llama.cpp:{self.model_path.name}"

    def __enter__(self) -> "LlamaCppBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._llm.close()

    def tokenize(self, text: str, *, add_bos: bool = True) -> list[int]:
        """Token ids of `text` as the model sees it (special-token spellings are plain text)."""
        self._check_open()
        return self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=False)

    def generate(
        self,
        prompt: str,
        options: DecodingOptions = DecodingOptions(),
        *,
        on_token: Callable[[str], None] | None = None,
        task: TaskState | None = None,
    ) -> Generation:
        with self._lock:
            self._check_open()
            return self._generate(prompt, options, on_token, task)

    # --- internals ------------------------------------------------------------------------
    def _check_open(self) -> None:
        if getattr(self, "_closed", True):
            raise ModelError("the model was closed", where=self.model_path, hint="load it again")

    def _generate(
        self,
        prompt: str,
        options: DecodingOptions,
        on_token: Callable[[str], None] | None,
        task: TaskState | None,
    ) -> Generation:
        lc, llm = self._lc, self._llm
        t_start = time.perf_counter()
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
        if not tokens:  # empty prompt and a model that adds no BOS: give it something to start
            tokens = [llm.token_bos()] if llm.token_bos() >= 0 else [llm.token_eos()]
        n_prompt = len(tokens)
        if n_prompt >= self.n_ctx:
            trained = self.info.context_length
            raise ModelError(
                f"prompt has {n_prompt} tokens but the model's context is {self.n_ctx}",
                where=self.model_path,
                hint=f"raise n_ctx (the model was trained for {trained or 'an unknown number of'} tokens) "
                "or shorten the prompt (fewer or shorter examples)",
            )
        max_new = min(options.max_tokens, self.n_ctx - n_prompt)
        fast: GrammarGreedy | None = None
        if options.grammar is not None and options.temperature == 0.0 and self._grammar_fast_path:
            sampler = self._grammar_sampler(options.grammar)
            fast = GrammarGreedy(lc, llm.ctx, self._vocab, sampler)
        else:
            sampler = self._make_sampler(options)
        self._last_grammar_counts = fast.counts if fast is not None else None
        t_first: float | None = None
        n_gen = 0
        reason: StopReason = "length"
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        scanner = StopScanner(options.stop)

        def emit(text: str) -> None:
            if text and on_token is not None:
                try:
                    on_token(text)
                except BaseException as e:  # the caller's exception, not a model failure
                    raise _CallbackError(e) from e

        try:
            if not self._eval_prompt(tokens, task):
                reason = "cancelled"
            else:
                while True:
                    if fast is not None:
                        tok = fast.sample()
                    else:
                        tok = lc.llama_sampler_sample(sampler, llm.ctx, -1)
                    n_gen += 1
                    if t_first is None:
                        t_first = time.perf_counter()
                    if lc.llama_vocab_is_eog(self._vocab, tok):
                        reason = "eos"
                        break
                    emit(scanner.feed(decoder.decode(self._piece(tok))))
                    if scanner.stopped:
                        reason = "stop"
                        break
                    if n_gen >= max_new:
                        reason = "length"
                        break
                    if task is not None and task.cancelled:
                        reason = "cancelled"
                        break
                    llm.eval([tok])
        except _CallbackError as e:
            raise e.original from None
        except ModelError:
            raise
        except Exception as e:  # llama_decode failures surface as RuntimeError
            self._forget_cache()
            raise ModelError(f"generation failed: {e}", where=self.model_path) from e
        finally:
            lc.llama_sampler_free(sampler)
        if not scanner.stopped:
            try:
                emit(scanner.feed(decoder.decode(b"", final=True)))
                emit(scanner.finish())
            except _CallbackError as e:
                raise e.original from None
        t_end = time.perf_counter()
        stats = make_stats(
            prompt_tokens=n_prompt,
            generated_tokens=n_gen,
            t_start=t_start,
            t_first=t_first,
            t_end=t_end,
            stop_reason=reason,
        )
        return Generation(text=scanner.text, stats=stats)

    def _eval_prompt(self, tokens: list[int], task: TaskState | None) -> bool:
        """Evaluate the prompt in chunks (checking cancel in between); False if cancelled."""
        llm = self._llm
        keep = 0
        if self._reuse and llm.n_tokens > 0:
            cached = llm.input_ids[: llm.n_tokens]
            for a, b in zip(cached, tokens):
                if a != b:
                    break
                keep += 1
            keep = min(keep, len(tokens) - 1)  # re-evaluate at least one token to get its logits
            if keep > 0 and not self._seq_rm(keep):
                keep = 0
        if keep == 0:
            self._forget_cache()
        llm.n_tokens = keep
        i, chunk = keep, PROMPT_CHUNK_FIRST
        while i < len(tokens):
            if task is not None and task.cancelled:
                self._forget_cache()
                return False
            part = tokens[i : i + chunk]
            t0 = time.perf_counter()
            llm.eval(part)
            dt = time.perf_counter() - t0
            i += len(part)
            rate = len(part) / dt if dt > 0 else float("inf")
            chunk = int(max(PROMPT_CHUNK_MIN, min(PROMPT_CHUNK_MAX, rate * PROMPT_CHUNK_S)))
        return True

    def _seq_rm(self, keep: int) -> bool:
        lc = self._lc
        mem = lc.llama_get_memory(self._llm.ctx)
        return bool(lc.llama_memory_seq_rm(mem, -1, keep, -1))

    def _forget_cache(self) -> None:
        lc = self._lc
        mem = lc.llama_get_memory(self._llm.ctx)
        if mem is not None:
            lc.llama_memory_clear(mem, True)
        self._llm.n_tokens = 0

    def _piece(self, tok: int) -> bytes:
        """The bytes of one token (control tokens render as nothing)."""
        lc, buf = self._lc, self._piece_buf
        n = lc.llama_token_to_piece(self._vocab, tok, buf, len(buf), 0, False)
        if n < 0:  # buffer too small: -n is the size needed
            buf = ctypes.create_string_buffer(-n)
            n = lc.llama_token_to_piece(self._vocab, tok, buf, len(buf), 0, False)
        return buf.raw[:n]

    def _make_sampler(self, options: DecodingOptions) -> Any:
        lc = self._lc
        chain = lc.llama_sampler_chain_init(lc.llama_sampler_chain_default_params())
        try:
            if options.grammar is not None:
                g = self._grammar_sampler(options.grammar)
                lc.llama_sampler_chain_add(chain, g)
            if options.temperature == 0.0:
                lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_greedy())
            else:
                lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_top_k(40))
                lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_top_p(0.95, 1))
                lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_temp(options.temperature))
                lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_dist(options.seed & 0xFFFFFFFF))
        except BaseException:
            lc.llama_sampler_free(chain)
            raise
        return chain

    def _grammar_sampler(self, grammar: str) -> Any:
        lc = self._lc
        # LlamaGrammar is llama-cpp-python's holder of GBNF text (it parses nothing itself);
        # llama.cpp parses it here and returns NULL when the text is not valid GBNF.
        g = lc.LlamaGrammar.from_string(grammar, verbose=False)
        with load_lock, CaptureLog(lc, self._verbose) as log, CaptureStderr() as err:
            sampler = lc.llama_sampler_init_grammar(
                self._vocab, g._grammar.encode("utf-8"), g._root.encode("utf-8")
            )
        if not sampler:
            why = "\n".join(t for t in (err.text, log.problems()) if t) or "llama.cpp rejected it"
            raise ModelError(
                f"the grammar does not parse: {why}",
                where="grammar",
                hint="fix the GBNF text (it needs a `root ::= ...` rule)",
            )
        return sampler
