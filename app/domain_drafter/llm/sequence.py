"""One sequence being decoded by llama.cpp: its sampler, its stop scanner, its streamed text.

Both the one-at-a-time loop (llama.LlamaCppBackend.generate) and the batched one (batch.py) drive
a `Sequence` the same way: `sample(ctx, idx)` picks the next token from the logits of output row
`idx`, `accept(tok)` turns it into final text and says whether the sequence is done, `result()`
builds the Generation. Samplers are freed by `close()`.
"""

from __future__ import annotations

import codecs
import ctypes
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.answer_tabu import AnswerTabu
from domain_drafter.llm.backend import (
    TOP_K,
    TOP_P,
    CallbackError,
    DecodingOptions,
    Generation,
    LoopWatch,
    StopReason,
    StopScanner,
    make_stats,
)
from domain_drafter.llm.grammar_sampler import (
    FullVocab,
    GrammarCheck,
    GrammarGreedy,
    GrammarShortlist,
    no_allowed_token,
    nucleus_inside,
)
from domain_drafter.llm.literal_guard import LiteralGuard
from domain_drafter.llm.sampling_chain import grammar_sampler, sampler_chain
from domain_drafter.llm.speculate import accept_or_redraw, softmax


class Pieces:
    """Token ids to bytes with llama.cpp's own detokenizer (control tokens render as nothing)."""

    def __init__(self, lc: Any, vocab: Any):
        self.lc, self.vocab = lc, vocab
        self._buf = ctypes.create_string_buffer(256)

    def __call__(self, tok: int) -> bytes:
        lc, buf = self.lc, self._buf
        n = lc.llama_token_to_piece(self.vocab, tok, buf, len(buf), 0, False)
        if n < 0:  # buffer too small: -n is the size needed
            buf = ctypes.create_string_buffer(-n)
            n = lc.llama_token_to_piece(self.vocab, tok, buf, len(buf), 0, False)
        return buf.raw[:n]


class Sequence:
    """The decoding state of one answer. `fast_grammar`: greedy under a grammar via GrammarGreedy.

    `speculate`: sampling draws with its own generator (seeded with options.seed) through `accept_or_redraw`,
    so a guessed token can be kept or refused by the exact rule (llm/speculate.py); greedy is unchanged."""

    def __init__(self, lc: Any, vocab: Any, pieces: Pieces, options: DecodingOptions, *, n_prompt: int,
                 max_new: int, on_token: Callable[[str], None] | None = None, task: TaskState | None = None,
                 fast_grammar: bool = True, verbose: bool = False, t_start: float | None = None,
                 speculate: bool = False):
        self.lc, self.vocab, self.pieces = lc, vocab, pieces
        self.options, self.n_prompt, self.max_new = options, n_prompt, max_new
        self.on_token, self.task = on_token, task
        self.t_start = time.perf_counter() if t_start is None else t_start
        self.t_first: float | None = None
        self.n_gen = 0
        self.reason: StopReason = "length"
        self.done = False
        self.fast: GrammarGreedy | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.scanner = StopScanner(options.stop)
        self.loops = LoopWatch() if options.stop_loops else None
        self._fast_mode = options.grammar is not None and options.temperature == 0.0 and fast_grammar
        # under an action grammar that lists its literals: no literal twice in a section (llm/literal_guard.py)
        self.guard = LiteralGuard(options.literals, options.forbidden, options.judged,
                                  static_negations=options.static_negations, exclusive=options.exclusive) \
            if options.grammar is not None and options.literals else None
        # without the guard: answers judged before are not written again (llm/answer_tabu.py)
        self.tabu = AnswerTabu(options.judged) if options.judged and self.guard is None else None
        self._guard_check: GrammarCheck | None = None
        # sampling under a grammar: the grammar outside the chain (_sample_constrained), asked about the likeliest
        # tokens only when `fast_grammar` (GrammarShortlist); under the guard always, whose bans go between the two
        self.grammar: Any = None
        self._full: FullVocab | None = None
        self.shortlist: GrammarShortlist | None = None
        self._guess: int | None = None
        self._fast_sampling = options.grammar is not None and options.temperature > 0 and fast_grammar \
            and self.tabu is None
        # speculative sampling: the chain stops before its draw, which `accept_or_redraw` makes with this generator
        self.rng = np.random.default_rng(options.seed) if speculate and options.temperature > 0 else None
        draw = self.rng is None
        if self._fast_mode:
            self.sampler = grammar_sampler(lc, vocab, options.grammar, verbose)
        elif self.guard is not None or self._fast_sampling:
            self.grammar = grammar_sampler(lc, vocab, options.grammar, verbose)
            try:
                self.sampler = sampler_chain(lc, vocab, replace(options, grammar=None), verbose, draw)
            except BaseException:
                lc.llama_sampler_free(self.grammar)
                raise
        else:
            self.sampler = sampler_chain(lc, vocab, options, verbose, draw)

    def _emit(self, text: str) -> None:
        if text and self.on_token is not None:
            try:
                self.on_token(text)
            except BaseException as e:  # the caller's exception, not a model failure
                raise CallbackError(e) from e

    def sample(self, ctx: Any, idx: int, guess: int | None = None) -> int:
        """The next token from the logits of output row `idx` of the last decode (-1: the last row). `guess`: the
        token guessed for this place (speculative sampling keeps it with its probability; greedy ignores it)."""
        self._guess = guess
        if self.grammar is not None:
            return self._sample_constrained(ctx, idx)
        if self.guard is not None:
            self._ban_repeats(ctx, idx)
        elif self.tabu is not None:
            self.tabu.ban(self._logits(ctx, idx), self._piece_text, TOP_K)
        if self.rng is not None:   # the chain (grammar included, if any) over the whole vocabulary, then our draw
            if self._full is None:
                self._full = FullVocab(self.lc, len(self._logits(ctx, idx)))
            return self._draw(self._full.load(self._logits(ctx, idx)), self._full.data)
        if self._fast_mode:
            if self.fast is None:
                self.fast = GrammarGreedy(self.lc, ctx, self.vocab, self.sampler)
            return self.fast.sample(idx)
        return self.lc.llama_sampler_sample(self.sampler, ctx, idx)

    def _sample_constrained(self, ctx: Any, idx: int) -> int:
        """What llama_sampler_sample does with the grammar first in the chain, with the guard's bans (if any)
        between the grammar and the rest of the chain. With `fast_grammar` the grammar is asked about the
        likeliest tokens first (GrammarShortlist); the token drawn is the one the whole vocabulary gives."""
        logits = self._logits(ctx, idx)
        if self._fast_sampling:
            if self.shortlist is None:
                self.shortlist = GrammarShortlist(self.lc, self.grammar, len(logits))
            for n in GrammarShortlist.SIZES:
                tok = self._sample_shortlist(logits, n)
                if tok is not None:
                    self.shortlist.counts[f"top{n}"] += 1
                    return tok
            self.shortlist.counts["full"] += 1
        return self._sample_whole(logits)

    def _sample_shortlist(self, logits: np.ndarray, n: int) -> int | None:
        """The token drawn from the allowed tokens among the n likeliest, or None when they cannot stand for the
        whole vocabulary: fewer than TOP_K that the guard keeps and top-p's nucleus not surely among them, or
        the guard found no way on among them (the whole vocabulary may hold one)."""
        shortlist = self.shortlist
        found = shortlist.allowed(logits, n)
        if found is None or not len(found[0]):
            return None
        ids, below = found
        arr = shortlist.load(ids, logits)
        sub = shortlist.data["logit"][: len(ids)]   # a view: the guard's bans land in the array the chain reads
        banned = self.guard.banned if self.guard is not None else 0
        if self.guard is not None:
            self.guard.mask_refused(sub, lambda i: self._piece_text(int(ids[i])), TOP_K)
        kept = sub[np.isfinite(sub)]
        enough = len(kept) >= TOP_K or (
            len(kept) > 0 and not (self.guard is not None and self.guard.stuck)
            and nucleus_inside(kept, below, TOP_K - len(kept), self.options.temperature, TOP_P))
        if not enough:
            if self.guard is not None:
                self.guard.banned = banned      # asked again with more tokens: count those bans once
            return None
        return self._draw(arr, shortlist.data)

    def _sample_whole(self, logits: np.ndarray) -> int:
        """The grammar over the whole vocabulary, the guard's bans, then the chain."""
        lc = self.lc
        if self._full is None:
            self._full = FullVocab(lc, len(logits))
        arr = self._full.load(logits)
        lc.llama_sampler_apply(self.grammar, ctypes.byref(arr))
        data = self._full.data
        logits = data["logit"]        # a view: the guard's bans land in the array the chain reads
        if self.guard is not None:
            self.guard.mask_refused(logits, self._piece_text, TOP_K)
        return self._draw(arr, data)

    def _draw(self, arr: Any, data: np.ndarray) -> int:
        """The rest of the chain on `arr` (the grammar's and the guard's -inf already in it; the chain sorts and cuts
        it in place, `data` being its storage), then the token taken by the grammar and the chain."""
        lc = self.lc
        lc.llama_sampler_apply(self.sampler, ctypes.byref(arr))
        if self.rng is not None:
            kept = data[: arr.size]
            ok = np.isfinite(kept["logit"])
            if not ok.any():
                raise no_allowed_token()
            tok = accept_or_redraw(kept["id"][ok], softmax(kept["logit"][ok]), self._guess, self.rng)
        else:
            if arr.selected < 0 or not np.isfinite(data["logit"][arr.selected]):
                raise no_allowed_token()
            tok = int(data["id"][arr.selected])
        if self.grammar is not None:
            lc.llama_sampler_accept(self.grammar, tok)
        lc.llama_sampler_accept(self.sampler, tok)
        return tok

    def grammar_state(self) -> Any:
        """The llama.cpp grammar sampler that holds this answer's grammar state, or None without a grammar."""
        if self.options.grammar is None:
            return None
        if self._fast_mode:
            return self.sampler
        return self.grammar if self.grammar is not None else self.lc.llama_sampler_chain_get(self.sampler, 0)

    def _ban_repeats(self, ctx: Any, idx: int) -> None:
        lc = self.lc
        if self._guard_check is None:
            grammar = self.sampler if self._fast_mode else lc.llama_sampler_chain_get(self.sampler, 0)
            self._guard_check = GrammarCheck(lc, grammar, LiteralGuard.CHUNK)   # mask asks about at most CHUNK ids
        self.guard.mask(self._logits(ctx, idx), self._piece_text, self._guard_check)

    def _logits(self, ctx: Any, idx: int) -> np.ndarray:
        """The logits of output `idx`, as a view: bans written into it are what the sampler reads."""
        n_vocab = int(self.lc.llama_vocab_n_tokens(self.vocab))
        return np.ctypeslib.as_array(self.lc.llama_get_logits_ith(ctx, idx), shape=(n_vocab,))

    def _piece_text(self, tok: int) -> str:
        return self.pieces(tok).decode("utf-8", "replace")

    def accept(self, tok: int) -> bool:
        """Take the sampled token; True when the sequence is finished (self.reason says why)."""
        self.n_gen += 1
        if self.t_first is None:
            self.t_first = time.perf_counter()
        if self.lc.llama_vocab_is_eog(self.vocab, tok):
            return self.finish("eos")
        text = self._decoder.decode(self.pieces(tok))
        if self.guard is not None:
            self.guard.feed(text)
        if self.tabu is not None:
            self.tabu.feed(text)
        self._emit(self.scanner.feed(text))
        if self.scanner.stopped:
            return self.finish("stop")
        if self.loops is not None and self.loops.feed(text):
            return self.finish("loop")
        if self.n_gen >= self.max_new:
            return self.finish("length")
        if self.task is not None and self.task.cancelled:
            return self.finish("cancelled")
        return False

    def finish(self, reason: StopReason) -> bool:
        """End the sequence now (releasing the held-back text unless a stop sequence cut it)."""
        if not self.done:
            self.done, self.reason = True, reason
            if not self.scanner.stopped:
                self._emit(self.scanner.feed(self._decoder.decode(b"", final=True)))
                self._emit(self.scanner.finish())
        return True

    def result(self) -> Generation:
        stats = make_stats(prompt_tokens=self.n_prompt, generated_tokens=self.n_gen, t_start=self.t_start,
                           t_first=self.t_first, t_end=time.perf_counter(), stop_reason=self.reason)
        return Generation(text=self.scanner.text, stats=stats)

    def close(self) -> None:
        if self.sampler is not None:
            self.lc.llama_sampler_free(self.sampler)
            self.sampler = None
        if self.grammar is not None:
            self.lc.llama_sampler_free(self.grammar)
            self.grammar = None
