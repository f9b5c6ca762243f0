"""Speculative decoding from the prompt: guess the next tokens by n-gram lookup, check them in one batch.

An answer mostly repeats its prompt: predicate names, parameters, whole literals, and in a search
child's prompt its parent's whole answer. `PromptLookup` guesses up to K next tokens by finding the
last n tokens written (n = N_MAX down to N_MIN, the longest match first, its most recent place)
in the prompt and the answer so far, and taking what followed them there. The backend then
decodes the last token and the guesses in one llama.cpp batch, with logits for every position,
and the sequence samples each position in turn: the guesses are kept while they equal what it
samples, and the KV cache is cut back past the first one it does not (llama.LlamaCppBackend).

Greedy decoding samples exactly the tokens it samples without guesses. Sampling keeps its
distribution with the accept/reject rule for a deterministic guess (`accept_or_redraw`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# Measured on Qwen2.5-Coder 1.5B child prompts (tests/perf/test_speculate_perf.py): longer guesses
# cost little in the batch, and 3-grams find the parent's answer without matching stray spaces.
K_MAX = 10
N_MAX = 3
N_MIN = 1


class PromptLookup:
    """The prompt's and the answer's tokens, indexed by their n-grams (n = n_min..n_max) for guessing."""

    def __init__(self, prompt: Iterable[int], *, k: int = K_MAX, n_max: int = N_MAX, n_min: int = N_MIN):
        if not 1 <= n_min <= n_max or k < 1:
            raise ValueError(f"need 1 <= n_min <= n_max and k >= 1, got n_min={n_min}, n_max={n_max}, k={k}")
        self.k, self.n_max, self.n_min = k, n_max, n_min
        self.tokens: list[int] = []
        # n-gram -> the position just after its most recent place that has a token after it
        self._after: dict[tuple[int, ...], int] = {}
        for tok in prompt:
            self.add(tok)

    def add(self, tok: int) -> None:
        """Append a token (of the prompt or the answer)."""
        toks, i = self.tokens, len(self.tokens)
        for n in range(self.n_min, self.n_max + 1):
            if i >= n:
                self._after[tuple(toks[i - n:i])] = i   # the n-gram ending before `tok` is followed by it
        toks.append(tok)

    def guess(self, limit: int | None = None) -> list[int]:
        """Up to min(k, limit) tokens that followed the longest most recent match of the last tokens; [] if none."""
        k = self.k if limit is None else min(self.k, limit)
        toks = self.tokens
        if k <= 0:
            return []
        for n in range(self.n_max, self.n_min - 1, -1):
            if len(toks) < n:
                continue
            at = self._after.get(tuple(toks[-n:]))
            if at is not None:
                return toks[at:at + k]
        return []


def accept_or_redraw(ids: np.ndarray, probs: np.ndarray, guess: int | None, rng: np.random.Generator) -> int:
    """One token drawn from the distribution `probs` over `ids`, given a deterministic guess.

    The guess is kept with probability p(guess); otherwise a token is drawn from p with the guess
    taken out, renormalised. So every token comes out with its probability p, guess or not
    (P(g) = p(g); P(x) = (1 - p(g)) p(x) / (1 - p(g)) = p(x) for x != g), and the draw depends
    only on the rng's state: deterministic for a seed. `guess` None: a plain draw from p.
    """
    p = np.asarray(probs, dtype=np.float64)
    if guess is not None:
        where = ids == guess
        pg = float(p[where].sum())
        if pg > 0.0 and rng.random() < pg:
            return int(guess)
        if pg > 0.0:
            p = np.where(where, 0.0, p)
    total = float(p.sum())
    if not total > 0.0:
        raise ValueError("no token has a positive probability")
    cum = np.cumsum(p)
    at = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
    return int(ids[min(at, len(ids) - 1)])


def softmax(logits: np.ndarray) -> np.ndarray:
    """The probabilities llama.cpp's dist sampler draws with: exp(l - max) normalised (-inf: 0)."""
    x = np.asarray(logits, dtype=np.float64)
    e = np.exp(x - np.max(x))
    return e / e.sum()
