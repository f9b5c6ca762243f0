"""Greedy decoding under a llama.cpp grammar, asking the grammar about as few tokens as possible.

Running llama.cpp's grammar sampler over the whole vocabulary at every step costs more than
the model itself for big vocabularies (Gemma-3's 262k tokens: ~40 ms a token). `GrammarGreedy`
asks about the unconstrained argmax first, then the top candidates, and the whole vocabulary
only when all of those are rejected; the token it picks is the one the full check would pick.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from domain_drafter.core.errors import ModelError

# llama.cpp's llama_token_data {int32 id; float logit; float p;} as a numpy record.
TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])


def token_array(lc: Any, data: np.ndarray) -> Any:
    """A llama_token_data_array over a numpy array of TOKEN_DATA (no copy)."""
    ptr = ctypes.cast(data.ctypes.data, lc.llama_token_data_p)
    return lc.llama_token_data_array(data=ptr, size=len(data), selected=-1, sorted=False)


class FullVocab:
    """The whole vocabulary as one llama_token_data_array, kept from step to step (no allocation per token)."""

    def __init__(self, lc: Any, n_vocab: int):
        self.data = np.zeros(n_vocab, dtype=TOKEN_DATA)
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self.array = token_array(lc, self.data)

    def load(self, logits: np.ndarray) -> Any:
        """The array holding `logits` in id order, its size and order reset (a sampler may have sorted or cut
        it), ready for llama_sampler_apply."""
        self.data["id"] = self._ids
        self.data["logit"] = logits
        self.data["p"] = 0.0
        self.array.size, self.array.selected, self.array.sorted = len(self.data), -1, False
        return self.array


def no_allowed_token() -> ModelError:
    return ModelError("the grammar allows no token of the model's vocabulary here", where="grammar",
                      hint="check that every string the grammar allows can be spelled with the model's tokens")


class GrammarCheck:
    """Which of some token ids a llama.cpp grammar sampler allows now, without changing its state."""

    def __init__(self, lc: Any, grammar: Any, capacity: int):
        self.lc, self.grammar = lc, grammar
        self._small = np.zeros(capacity, dtype=TOKEN_DATA)
        self._small_arr = token_array(lc, self._small)

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        """True where the grammar allows the token (at most `capacity` ids)."""
        n = len(ids)
        buf = self._small[:n]
        buf["id"] = ids
        buf["logit"] = 0.0
        self._small_arr.size = n
        self.lc.llama_sampler_apply(self.grammar, ctypes.byref(self._small_arr))
        return np.isfinite(buf["logit"])


class GrammarGreedy:
    """Greedy decoding constrained by a llama.cpp grammar sampler, checking as few tokens as possible.

    Each step picks exactly the token that "grammar over the whole vocabulary, then argmax" picks
    (the allowed token of highest logit, the lowest id among equals), in up to three tiers:
    1. the unconstrained argmax alone: if the grammar allows it, no other allowed token can beat it;
    2. else every token whose logit is at least the TOP-th highest, checked in (logit desc, id asc)
       order: if one is allowed, the first such is the answer, because all tokens outside that set
       have strictly lower logits;
    3. else the whole vocabulary, as llama.cpp's sampler chain would.
    The grammar sampler rejects a token by setting its logit to -inf; end-of-generation is allowed
    only when the grammar is complete. `counts` records how often each tier decided.
    """

    TOP = 64
    TOP_MAX = 4096  # many tokens tied at the threshold: go straight to the full check

    def __init__(self, lc: Any, ctx: Any, vocab: Any, grammar: Any):
        self.lc, self.ctx, self.grammar = lc, ctx, grammar
        self.n_vocab = int(lc.llama_vocab_n_tokens(vocab))
        self._check = GrammarCheck(lc, grammar, min(self.TOP_MAX, self.n_vocab))
        self._full: FullVocab | None = None  # allocated at the first full check
        self.counts = {"argmax": 0, "top": 0, "full": 0}

    def sample(self, idx: int = -1) -> int:
        """The token for the logits of output row `idx` of the last decode (-1: the last one)."""
        lc = self.lc
        logits = np.ctypeslib.as_array(lc.llama_get_logits_ith(self.ctx, idx), shape=(self.n_vocab,))
        tok = int(np.argmax(logits))
        if self._check(np.array([tok], dtype=np.int32))[0]:
            self.counts["argmax"] += 1
        else:
            tok = self._best_allowed(logits)
        lc.llama_sampler_accept(self.grammar, tok)
        return tok

    def _best_allowed(self, logits: np.ndarray) -> int:
        k = min(self.TOP, self.n_vocab)
        threshold = np.partition(logits, self.n_vocab - k)[self.n_vocab - k]
        top = np.flatnonzero(logits >= threshold)
        if len(top) <= self.TOP_MAX:
            top = top[np.lexsort((top, -logits[top]))]
            allowed = np.flatnonzero(self._check(top.astype(np.int32)))
            if len(allowed):
                self.counts["top"] += 1
                return int(top[allowed[0]])
        self.counts["full"] += 1
        if self._full is None:
            self._full = FullVocab(self.lc, self.n_vocab)
        self.lc.llama_sampler_apply(self.grammar, ctypes.byref(self._full.load(logits)))
        masked = self._full.data["logit"]
        tok = int(np.argmax(masked))
        if not np.isfinite(masked[tok]):
            raise no_allowed_token()
        return tok
