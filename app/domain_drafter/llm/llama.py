"""Run a local GGUF model in-process with llama.cpp (through llama-cpp-python).

The model is loaded once; each generate() call reads the prompt (llm/prompt_reader.py) and then
decodes in our own loop (llm/decode_loop.py), which gives per-token control: the task's cancel flag
is checked after every token (and between prompt chunks), text is streamed as soon as it is final,
and stop sequences are cut on the decoded text. With DecodingOptions.speculate (opt-in: --speculate) the
loop guesses the next tokens from the prompt and checks them in one batch (llm/speculate.py).

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
Sampling under a grammar likewise asks about the 64, 4096, then 32768 likeliest tokens, and draws from them
when they surely hold what top-k and top-p keep (grammar_sampler.GrammarShortlist): the same token as the
whole vocabulary gives, 1.7 times as fast on Gemma-3 with an action grammar.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from collections.abc import Sequence as Sequence_
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.amx import ModelParamsPatch, _cpu_count, cpu_has_amx, default_threads  # noqa: F401 - re-exported
from domain_drafter.llm.backend import (
    PROMPT_FORMATS,
    CallbackError,
    DecodingOptions,
    Generation,
    PromptFormat,
    make_stats,
)
from domain_drafter.llm.chat_format import apply_chat_template, model_chat_template
from domain_drafter.llm.decode_loop import Speculator, decode_plain
from domain_drafter.llm.gguf_check import GGUFInfo, inspect_gguf
from domain_drafter.llm.llama_log import CaptureLog, load_lock
from domain_drafter.llm.prefix_store import DEFAULT_STATES, PrefixStore
from domain_drafter.llm.prompt_reader import PromptReader, default_prompt_chunk
from domain_drafter.llm.sequence import Pieces, Sequence

if TYPE_CHECKING:
    from domain_drafter.llm.batch import BatchRequest

__all__ = ["LlamaCppBackend", "cpu_has_amx", "default_threads"]

_INSTALL_HINT = "install it with `pip install llama-cpp-python` (it compiles llama.cpp; needs a C++ compiler and cmake)"

def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as e:
        raise ModelError(f"llama-cpp-python is not installed ({e})", hint=_INSTALL_HINT) from e
    return llama_cpp


class LlamaCppBackend(PromptReader):
    """A GGUF model loaded in this process. Thread-safe: concurrent generate() calls queue up.

    n_ctx: context size in tokens (prompt + generated; llama.cpp rounds it up to a multiple of
    256, see the n_ctx attribute). n_threads: CPU threads (default: half the CPUs, see
    default_threads()). n_gpu_layers: layers to offload on a GPU build of llama-cpp-python.

    extra_buffers: let llama.cpp repack weights for its faster CPU kernels (AMX, AVX repacking).
    None means yes unless the CPU advertises AMX: llama.cpp's AMX kernels kill the whole process
    (general protection fault) on VMs that advertise AMX but do not let programs use it.

    flash_attn: llama.cpp's flash attention (off by default, as the committed runs were made). Neither way are
    speculative greedy answers always byte-identical to one-at-a-time ones on a real model: a batch of guesses
    computes the answer's cells in another order, the small differences add up, and a near tie can go the other
    way (Gemma-3 270M with flash attention: 2 of 4 free answers, where the two likeliest tokens were 0.12 and 0.34
    logits apart; tests/llm/test_speculate.py). On the tiny test model they are identical.

    reuse_prompt_cache: keep the KV cache of the common token prefix with the previous call, in
    whole prompt chunks, so prompts that share their few-shot examples skip re-evaluating them.
    The kept chunks were computed exactly as a fresh evaluation computes them, so the answers are
    byte-identical with and without reuse, whatever ran before. prompt_chunk: the size of those
    chunks in tokens (default from the model's size, see default_prompt_chunk()).
    """

    steers_tokens = True   # judged answers and forbidden literals act on this model's logits (backend.steers_tokens)

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
        prompt_chunk: int | None = None,
        n_ctx_per_seq: int | None = None,
        prefix_states: int = DEFAULT_STATES,
        flash_attn: bool = False,
    ):
        self.model_path = Path(model_path).expanduser()
        # Cheap header checks first: some bad files make llama.cpp abort the whole process.
        self.info: GGUFInfo = inspect_gguf(self.model_path)
        llama_cpp = _import_llama_cpp()
        self._lc = llama_cpp
        self._verbose = verbose
        self._reuse = reuse_prompt_cache
        self.prompt_format: PromptFormat = prompt_format
        self.prompt_chunk = prompt_chunk or default_prompt_chunk(self.model_path.stat().st_size)
        if not 1 <= self.prompt_chunk <= 512:
            raise ValueError(f"prompt_chunk must be 1..512 tokens, got {self.prompt_chunk}")
        self._n_ctx_per_seq = n_ctx_per_seq
        self._batcher: Any = None  # batch.BatchDecoder, made at the first batched call
        self._speculator: Speculator | None = None  # made at the first speculating call (llm/decode_loop.py)
        self.last_reused_tokens = 0  # prompt tokens the last generate() took from the cache
        self._clean = 0  # cached positions computed in whole prompt chunks (exact as a fresh evaluation)
        self._prefixes = PrefixStore(llama_cpp, prefix_states if reuse_prompt_cache else 0)
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
                    flash_attn=flash_attn,
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
        self._n_swa = int(llama_cpp.llama_model_n_swa(self._llm.model))   # sliding-window attention: see _exact
        self._pieces = Pieces(llama_cpp, self._vocab)
        # Greedy + grammar: check the grammar on few tokens (GrammarGreedy). False runs llama.cpp's
        # grammar sampler over the whole vocabulary every step (same output, slower; for tests).
        self._grammar_fast_path = True
        # GrammarGreedy's or GrammarShortlist's counts of the last call (None: the grammar ran over the whole vocabulary)
        self._last_grammar_counts: dict[str, int] | None = None
        self._closed = False
        if prompt_format not in PROMPT_FORMATS:
            self.close()
            raise ModelError(f"unknown prompt format {prompt_format!r}", where=self.model_path,
                             hint="use " + " or ".join(PROMPT_FORMATS))
        self._chat_template: str | None = None
        if prompt_format == "chat":  # refuse a model without a usable template now, not at the first prompt
            try:
                self._chat_template = model_chat_template(llama_cpp, self._llm.model, self.model_path)
                apply_chat_template(llama_cpp, self._chat_template, "x", self.model_path)
            except ModelError:
                self.close()
                raise

    # --- protocol -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return f"llama.cpp:{self.model_path.name}"

    def __enter__(self) -> LlamaCppBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                if self._batcher is not None:
                    self._batcher.close()
                    self._batcher = None
                if self._speculator is not None:
                    self._speculator.close()
                    self._speculator = None
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

    def generate_stream(self, requests: Iterable[BatchRequest], on_done: Callable[[BatchRequest, Generation], None],
                        *, n_slots: int, task: TaskState | None = None) -> None:
        """Decode `requests` n_slots at a time in one llama.cpp batch (batch.BatchDecoder.run): a slot
        whose answer ends takes the next request at once; `on_done(request, generation)` per answer."""
        with self._lock:
            self._check_open()
            batcher = self._batch_decoder(n_slots)
            try:
                batcher.run(requests, on_done, task, limit=n_slots)
            except CallbackError as e:
                raise e.original from None
            except RuntimeError as e:
                raise ModelError(f"batched generation failed: {e}", where=self.model_path) from e

    def generate_batch(self, prompts: Sequence_[str], options: DecodingOptions | Sequence_[DecodingOptions] = DecodingOptions(),
                       *, task: TaskState | None = None, on_token: Callable[[int, str], None] | None = None,
                       n_slots: int | None = None) -> list[Generation]:
        """One Generation per prompt (in order), decoded n_slots (default: all) at a time in one batch.
        `options`: one for all or one per prompt; on_token(index, piece) streams each answer."""
        from domain_drafter.llm.batch import BatchRequest, per_prompt

        opts = per_prompt(options, len(prompts))
        out: list[Generation | None] = [None] * len(prompts)

        def stream(i: int) -> Callable[[str], None] | None:
            return None if on_token is None else (lambda piece: on_token(i, piece))

        requests = (BatchRequest(p, o, i, None, stream(i)) for i, (p, o) in enumerate(zip(prompts, opts)))
        if prompts:
            self.generate_stream(requests, lambda r, g: out.__setitem__(r.tag, g),
                                 n_slots=min(n_slots or len(prompts), len(prompts)), task=task)
        never = make_stats(prompt_tokens=0, generated_tokens=0, t_start=0.0, t_first=None, t_end=0.0,
                           stop_reason="cancelled")
        return [g if g is not None else Generation("", never) for g in out]  # None: cancelled before its turn

    def generate_candidates(self, prompt: str, n: int, options: DecodingOptions | Sequence_[DecodingOptions] = DecodingOptions(),
                            *, task: TaskState | None = None,
                            on_token: Callable[[int, str], None] | None = None) -> list[Generation]:
        """n answers to one prompt decoded together; the prompt is evaluated once and its cache copied.
        One DecodingOptions gives candidate j the seed options.seed + j (equal answers when greedy)."""
        if isinstance(options, DecodingOptions):
            options = [replace(options, seed=options.seed + j) for j in range(n)]
        from domain_drafter.llm.batch import per_prompt

        opts = per_prompt(options, n)
        with self._lock:
            self._check_open()
            try:
                return self._batch_decoder(n).run_candidates(prompt, opts, task=task, on_token=on_token)
            except CallbackError as e:
                raise e.original from None
            except RuntimeError as e:
                raise ModelError(f"batched generation failed: {e}", where=self.model_path) from e

    def _batch_decoder(self, n_slots: int) -> Any:
        from domain_drafter.llm.batch import BatchDecoder

        b = self._batcher
        if b is None or b.n_slots < n_slots:
            if b is not None:
                b.close()
            self._batcher = None
            per_seq = self._n_ctx_per_seq or self.n_ctx
            self._batcher = BatchDecoder(self, n_slots, per_seq)
        return self._batcher

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
        tokens = self._prompt_tokens(prompt)
        seq = Sequence(lc, self._vocab, self._pieces, options, n_prompt=len(tokens),
                       max_new=min(options.max_tokens, self.n_ctx - len(tokens)), on_token=on_token, task=task,
                       fast_grammar=self._grammar_fast_path, verbose=self._verbose, t_start=t_start,
                       speculate=options.speculate)
        self._last_grammar_counts = None
        try:
            if not self._eval_prompt(tokens, task):
                seq.finish("cancelled")
            elif options.speculate:
                if self._speculator is None:
                    self._speculator = Speculator(lc, llm)
                self._speculator.run(seq, tokens)
            else:
                decode_plain(llm, seq)
        except CallbackError as e:
            raise e.original from None
        except ModelError:
            raise
        except Exception as e:  # llama_decode failures surface as RuntimeError
            self._forget_cache()
            raise ModelError(f"generation failed: {e}", where=self.model_path) from e
        finally:
            self._last_grammar_counts = seq.fast.counts if seq.fast is not None else \
                seq.shortlist.counts if seq.shortlist is not None else None
            seq.close()
        return seq.result()
