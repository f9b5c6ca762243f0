"""Several sequences decoded in one llama.cpp batch: B answers in flight, N candidates of one prompt.

`BatchDecoder` owns a second llama.cpp context on the backend's model with `n_slots` sequences,
each in its own KV stream (`kv_unified = false`), so a sequence's attention sees exactly the cache
a one-at-a-time generation would see. Every step decodes one token of every active sequence in a
single `llama_decode` call (the weights are read once for all of them), and each sequence samples
from its own output row with its own sampler (grammar included) and stop scanner.

Requests are pulled from an iterator whenever a slot is free, so a finished sequence's slot takes
the next request at once. A prompt is evaluated in the same position-aligned chunks as
LlamaCppBackend uses, and a slot keeps the whole chunks it shares with its previous prompt, or
starts from a state the one-at-a-time context kept (its prefix store) that shares more.
Candidates of one prompt (`run_candidates`) evaluate the prompt once and copy its cache to the
other slots (`llama_memory_seq_cp`).
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Iterable
from collections.abc import Sequence as Seq
from dataclasses import dataclass
from typing import Any

from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.abort import AbortOnCancel
from domain_drafter.llm.backend import DecodingOptions, Generation
from domain_drafter.llm.llama_log import CaptureLog, load_lock
from domain_drafter.llm.prefix_store import window_kept
from domain_drafter.llm.sequence import Sequence


@dataclass
class BatchRequest:
    """One answer to write. `task` cancels this sequence alone; `on_token` streams its text."""

    prompt: str
    options: DecodingOptions
    tag: Any = None
    task: TaskState | None = None
    on_token: Callable[[str], None] | None = None


@dataclass
class _Slot:
    seq_id: int
    cached: list[int]          # tokens in this slot's stream computed in whole aligned chunks
    request: BatchRequest | None = None
    state: Sequence | None = None
    pos: int = 0               # position of the next token to decode
    token: int = -1            # the token sampled last, decoded at the next step


class BatchDecoder:
    """A multi-sequence llama.cpp context on `backend`'s model (a LlamaCppBackend)."""

    def __init__(self, backend: Any, n_slots: int, n_ctx_per_seq: int):
        if n_slots < 1:
            raise ValueError(f"n_slots must be >= 1, got {n_slots}")
        lc = backend._lc
        self.backend, self.lc, self.n_slots = backend, lc, n_slots
        # The one-at-a-time context's parameters (flash attention, RoPE, threads, ...), so that a
        # sequence is computed the same way in both; only the sizes and the streams differ.
        single = backend._llm.context_params
        params = type(single).from_buffer_copy(single)
        params.n_ctx = n_slots * n_ctx_per_seq
        params.n_seq_max = n_slots
        params.kv_unified = False
        with load_lock, CaptureLog(lc, backend._verbose) as log:
            self.ctx = lc.llama_init_from_model(backend._llm.model, params)
        if not self.ctx:
            raise ModelError(f"llama.cpp could not make a context for {n_slots} sequences of "
                             f"{n_ctx_per_seq} tokens: {log.problems() or 'no reason given'}",
                             where=backend.model_path, hint="use a smaller batch or context, or free memory")
        self.n_ctx_per_seq = int(lc.llama_n_ctx(self.ctx)) // n_slots
        self.mem = lc.llama_get_memory(self.ctx)
        self.batch = lc.llama_batch_init(512, 0, 1)
        self.slots = [_Slot(i, []) for i in range(n_slots)]
        self.chunk = backend.prompt_chunk
        self.restored = 0       # prompt states taken from the one-at-a-time context's prefix store

    def close(self) -> None:
        if self.ctx:
            self.lc.llama_batch_free(self.batch)
            self.lc.llama_free(self.ctx)
            self.ctx = None

    # --- llama.cpp calls ---------------------------------------------------------------------
    def _decode(self, items: Seq[tuple[int, int, int, bool]]) -> None:
        """Decode (token, pos, seq_id, wants_logits) items in one llama_decode call."""
        b = self.batch
        for i, (tok, pos, seq, logits) in enumerate(items):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = tok, pos, 1, logits
            b.seq_id[i][0] = seq
        b.n_tokens = len(items)
        rc = self.lc.llama_decode(self.ctx, b)
        if rc != 0:
            raise ModelError(f"llama_decode failed (code {rc}) with {len(items)} tokens in the batch",
                             where=self.backend.model_path, hint="use a smaller batch or context")

    def _eval_prompt(self, slot: _Slot, tokens: list[int], task: TaskState | None) -> bool:
        """Evaluate `tokens` into the slot's stream (keeping shared whole chunks); the last row holds logits."""
        keep = 0
        for a, b in zip(slot.cached if self.backend._reuse else (), tokens):
            if a != b:
                break
            keep += 1
        keep = min(keep, len(tokens) - 1)
        keep -= keep % self.chunk
        keep = self._restore_prefix(slot, tokens, keep)
        self.lc.llama_memory_seq_rm(self.mem, slot.seq_id, keep, -1)
        slot.cached = tokens[:keep]
        i = keep
        with AbortOnCancel(self.lc, self.ctx, task) as abort:   # a cancel stops the chunk being computed
            while i < len(tokens):
                if abort.cancelled:
                    return False
                part = tokens[i : i + self.chunk]
                last = i + len(part) == len(tokens)
                try:
                    self._decode([(t, i + j, slot.seq_id, last and j == len(part) - 1) for j, t in enumerate(part)])
                except ModelError:   # llama.cpp dropped the chunk's positions; the whole chunks before it stay
                    if abort.cancelled:
                        return False
                    raise
                i += len(part)
                if len(part) == self.chunk:
                    slot.cached = tokens[:i]
        slot.pos = len(tokens)
        return True

    def _restore_prefix(self, slot: _Slot, tokens: list[int], keep: int) -> int:
        """Where the one-at-a-time context kept the state of a prompt that shares more whole chunks with `tokens`
        than the slot holds (llm/prefix_store.py: a search child's prompt starts with a root prompt read before),
        that state put into the slot's stream: the tokens it now holds in common with `tokens`, else `keep`."""
        b = self.backend
        if not b._reuse:
            return keep
        state, reach = b._prefixes.best(tokens, self.chunk, b._n_swa)
        if state is None or reach <= keep:
            return keep
        self.lc.llama_memory_seq_rm(self.mem, slot.seq_id, -1, -1)
        slot.cached = []
        data = self._streams(state, slot.seq_id)
        if data is None or int(self.lc.llama_state_seq_set_data(self.ctx, data, len(data), slot.seq_id)) != len(data):
            self.lc.llama_memory_seq_rm(self.mem, slot.seq_id, -1, -1)
            return 0
        # a sliding-window state cut shorter lacks cells (LlamaCppBackend._exact)
        if b._n_swa > 0 and not window_kept(int(self.lc.llama_memory_seq_pos_min(self.mem, slot.seq_id)), reach,
                                            b._n_swa):
            self.lc.llama_memory_seq_rm(self.mem, slot.seq_id, -1, -1)
            return 0
        self.restored += 1
        return reach

    def _streams(self, state: Any, seq_id: int) -> Any:
        """A one-stream sequence state as this context reads it into `seq_id` (None: a layout not known here).

        llama.cpp (llama-cpp-python 0.3.36) writes a sequence's KV state as a 4-byte tag, the sequence id, its
        context's stream count, then per stream a cell count and the cells; restoring one sequence it reads
        every stream's record into that sequence's own stream, and refuses a stream count other than its own.
        The one-at-a-time context has one stream and this one a stream per slot, so the record is framed as
        n_slots streams of which the first holds the cells. A llama.cpp that writes something else fails to
        restore it, and the slot reads its prompt in full."""
        raw = bytes(state.data)
        if len(raw) < 16 or int.from_bytes(raw[8:12], "little") != 1:
            return None
        framed = (raw[:4] + seq_id.to_bytes(4, "little") + self.n_slots.to_bytes(4, "little") + raw[12:]
                  + bytes(4 * (self.n_slots - 1)))
        return (ctypes.c_uint8 * len(framed)).from_buffer_copy(framed)

    # --- scheduling --------------------------------------------------------------------------
    def _start(self, slot: _Slot, request: BatchRequest, tokens: list[int], t_start: float) -> Sequence:
        b = self.backend
        return Sequence(self.lc, b._vocab, b._pieces, request.options, n_prompt=len(tokens),
                        max_new=min(request.options.max_tokens, self.n_ctx_per_seq - len(tokens)),
                        on_token=request.on_token, task=request.task, fast_grammar=b._grammar_fast_path,
                        verbose=b._verbose, t_start=t_start)

    def _tokens(self, prompt: str) -> list[int]:
        tokens = self.backend._prompt_tokens(prompt)
        if len(tokens) >= self.n_ctx_per_seq:
            raise ModelError(f"prompt has {len(tokens)} tokens but a batched sequence has {self.n_ctx_per_seq}",
                             where=self.backend.model_path, hint="give the batch a bigger n_ctx_per_seq")
        return tokens

    def run(self, requests: Iterable[BatchRequest], on_done: Callable[[BatchRequest, Generation], None],
            task: TaskState | None = None, limit: int | None = None) -> None:
        """Decode every request, `limit` (default n_slots) at a time; `on_done(request, generation)` as each ends.

        A request's own task cancels it alone (stop_reason "cancelled", its slot moves on); `task`
        cancels everything: the unfinished sequences end "cancelled" and no new request is taken.
        """
        pending = iter(requests)
        exhausted = False
        try:
            while True:
                for slot in self.slots[:limit]:   # fill free slots; a prompt is evaluated when its slot is free
                    while slot.state is None and not exhausted and not (task and task.cancelled):
                        request = next(pending, None)
                        if request is None:
                            exhausted = True
                            break
                        self._admit(slot, request, on_done, task)
                active = [s for s in self.slots if s.state is not None]
                if not active:
                    return
                if task is not None and task.cancelled:
                    for s in active:
                        self._end(s, "cancelled", on_done)
                    return
                self._decode([(s.token, s.pos, s.seq_id, True) for s in active])
                for row, s in enumerate(active):
                    s.pos += 1
                    s.token = s.state.sample(self.ctx, row)
                    if s.state.accept(s.token):
                        self._end(s, None, on_done)
        except BaseException:
            for s in self.slots:
                if s.state is not None:
                    s.state.close()
                    s.state, s.request = None, None
                s.cached = []
                self.lc.llama_memory_seq_rm(self.mem, s.seq_id, -1, -1)
            raise

    def _admit(self, slot: _Slot, request: BatchRequest, on_done, task: TaskState | None) -> None:
        t_start = time.perf_counter()
        tokens = self._tokens(request.prompt)
        slot.request, slot.state = request, self._start(slot, request, tokens, t_start)
        cancelled = request.task is not None and request.task.cancelled
        if cancelled or not self._eval_prompt(slot, tokens, request.task or task):
            self._end(slot, "cancelled", on_done)
            return
        slot.token = slot.state.sample(self.ctx, -1)
        if slot.state.accept(slot.token):
            self._end(slot, None, on_done)

    def _end(self, slot: _Slot, reason, on_done) -> None:
        state, request = slot.state, slot.request
        slot.state, slot.request = None, None
        try:
            if reason is not None:
                state.finish(reason)
            generation = state.result()
        finally:
            state.close()
        on_done(request, generation)

    def run_candidates(self, prompt: str, options: Seq[DecodingOptions], *, task: TaskState | None = None,
                       on_token: Callable[[int, str], None] | None = None) -> list[Generation]:
        """len(options) answers to one prompt, its cache evaluated once and copied to every slot."""
        n = len(options)
        if not 1 <= n <= self.n_slots:
            raise ValueError(f"{n} candidates need 1..{self.n_slots} slots")
        t_start = time.perf_counter()
        tokens = self._tokens(prompt)
        out: list[Generation | None] = [None] * n
        first, slots = self.slots[0], self.slots[:n]
        states: list[Sequence] = []
        try:
            for j, opts in enumerate(options):
                stream = None if on_token is None else (lambda piece, j=j: on_token(j, piece))
                states.append(self._start(slots[j], BatchRequest(prompt, opts, j, task, stream), tokens, t_start))
            if not self._eval_prompt(first, tokens, task):
                for st in states:
                    st.finish("cancelled")
                return [st.result() for st in states]
            active: list[tuple[_Slot, Sequence]] = []
            for slot, st in zip(slots, states):
                slot.token = st.sample(self.ctx, -1)   # every candidate samples the prompt's last logits
                if slot is not first:
                    self.lc.llama_memory_seq_rm(self.mem, slot.seq_id, -1, -1)
                    self.lc.llama_memory_seq_cp(self.mem, first.seq_id, slot.seq_id, -1, -1)
                    slot.cached, slot.pos = list(first.cached), first.pos
                if not st.accept(slot.token):
                    active.append((slot, st))
            while active:
                if task is not None and task.cancelled:
                    for _, st in active:
                        st.finish("cancelled")
                    break
                self._decode([(s.token, s.pos, s.seq_id, True) for s, _ in active])
                still = []
                for row, (s, st) in enumerate(active):
                    s.pos += 1
                    s.token = st.sample(self.ctx, row)
                    if not st.accept(s.token):
                        still.append((s, st))
                active = still
            for j, st in enumerate(states):
                out[j] = st.result()
            return out  # type: ignore[return-value]
        except BaseException:
            for s in self.slots:
                s.cached = []
                self.lc.llama_memory_seq_rm(self.mem, s.seq_id, -1, -1)
            raise
        finally:
            for st in states:
                st.close()


def per_prompt(options: DecodingOptions | Seq[DecodingOptions], n: int) -> list[DecodingOptions]:
    """One DecodingOptions per prompt: the same for all, or checked to be one each."""
    if isinstance(options, DecodingOptions):
        return [options] * n
    opts = list(options)
    if len(opts) != n:
        raise ValueError(f"{len(opts)} DecodingOptions for {n} prompts")
    return opts
