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


def likeliest(logits: np.ndarray, n: int, cap: int) -> tuple[np.ndarray, float] | None:
    """The ids of the n likeliest tokens and of every token tied with the n-th, in (logit desc, id asc) order, and
    that n-th logit; None when the ties make them more than `cap`."""
    size = len(logits)
    n = min(n, size)
    threshold = np.partition(logits, size - n)[size - n]
    ids = np.flatnonzero(logits >= threshold)
    if len(ids) > cap:
        return None
    return ids[np.lexsort((ids, -logits[ids]))].astype(np.int32), float(threshold)


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
        found = likeliest(logits, self.TOP, self.TOP_MAX)
        if found is not None:
            top = found[0]
            allowed = np.flatnonzero(self._check(top))
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


class GrammarShortlist:
    """Sampling under a llama.cpp grammar without asking the grammar about the whole vocabulary.

    The sampler chain after the grammar is top-k, temperature, top-p, then a draw (llm/sequence.py), so the
    token drawn depends only on the k allowed tokens of highest logit, and of those only on the nucleus top-p
    keeps. `allowed(logits, n)` asks the grammar about the n likeliest tokens (with every token tied at the
    threshold) and returns those it allows, in (logit desc, id asc) order: a prefix of the allowed tokens in
    that order. The rest of the chain draws from that prefix exactly what it would draw from the whole masked
    vocabulary (up to the order of equal logits) when it holds k tokens the caller keeps, or when top-p's
    nucleus lies inside it whatever the tokens not asked about weigh (`nucleus_inside`); else the caller asks
    again with the next size, and at the end runs the grammar over everything.
    Gemma-3's 262k tokens: the whole-vocabulary grammar costs more than the model; 64 tokens, almost nothing.
    """

    SIZES = (64, 4096, 32768)

    def __init__(self, lc: Any, grammar: Any, n_vocab: int):
        self.lc, self.n_vocab = lc, n_vocab
        self._check = GrammarCheck(lc, grammar, min(self.SIZES[-1], n_vocab))
        self.data = np.zeros(min(self.SIZES[-1], n_vocab), dtype=TOKEN_DATA)
        self.array = token_array(lc, self.data)
        self.counts = {f"top{n}": 0 for n in self.SIZES} | {"full": 0}

    def allowed(self, logits: np.ndarray, n: int) -> tuple[np.ndarray, float] | None:
        """The allowed tokens among the n likeliest (ties at the threshold included), in (logit desc, id asc)
        order, and the logit every token not asked about lies below (-inf: none is left); None when the ties
        make that more than the checker holds."""
        found = likeliest(logits, n, len(self.data))
        if found is None:
            return None
        ids, threshold = found
        below = threshold if len(ids) < self.n_vocab else -np.inf
        return ids[self._check(ids)], below

    def load(self, ids: np.ndarray, logits: np.ndarray) -> Any:
        """The array holding these tokens and their logits, ready for llama_sampler_apply."""
        n = len(ids)
        self.data["id"][:n] = ids
        self.data["logit"][:n] = logits[ids]
        self.data["p"][:n] = 0.0
        self.array.size, self.array.selected, self.array.sorted = n, -1, False
        return self.array


def nucleus_inside(kept: np.ndarray, below: float, room: int, temperature: float, top_p: float) -> bool:
    """Whether top-p, after top-k and the temperature, cuts the candidates at the same place for any weight of the
    tokens not asked about: `kept` are the logits of the allowed tokens asked about (descending), at most `room`
    others can join them in the top-k, each with a logit below `below`. The cut is the first count whose
    cumulative probability reaches top_p; it must be the same with those others weighing nothing and weighing
    their most, with a margin for llama.cpp's single-precision sums. The draw then reads only the kept logits."""
    heated = (kept.astype(np.float32) / np.float32(temperature)).astype(np.float64)   # llama.cpp divides in float
    top = heated[0]
    mass = np.cumsum(np.exp(heated - top))
    own = mass[-1]
    others = room * np.exp(below / temperature - top) if room > 0 and np.isfinite(below) else 0.0
    margin = 1e-4
    reach = np.flatnonzero(mass >= top_p * (own + others) * (1 + margin))
    if not len(reach):
        return False
    cut = int(reach[0])
    return cut == 0 or mass[cut - 1] < top_p * own * (1 - margin)
