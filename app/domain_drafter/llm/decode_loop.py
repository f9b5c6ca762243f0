"""One answer decoded on the backend's llama.cpp context after its prompt: token by token, or speculating.

`decode_plain` decodes the sampled token and samples the next, one at a time. `Speculator` guesses the
next tokens from the prompt and the answer so far (speculate.PromptLookup), cuts the guess at the first
token the grammar, the literal guard or the answer tabu refuses (`admissible`), decodes the last
token and the guesses in one batch with logits for every place, and lets the sequence sample each
place in turn: a guess is kept while it is the token sampled (greedy) or accepted by the exact rule
(sampling, Sequence(speculate=True)); the first token sampled in its stead, or after the last guess,
is the next one. The KV cache is cut back past the refused guesses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domain_drafter.llm.grammar_sampler import GrammarCheck
from domain_drafter.llm.sequence import Sequence
from domain_drafter.llm.speculate import K_MAX, PromptLookup


def decode_plain(llm: Any, seq: Sequence) -> None:
    """Sample, decode the token, repeat until the sequence is done (`llm` is llama-cpp-python's Llama)."""
    while not seq.accept(tok := seq.sample(llm.ctx, -1)):
        llm.eval([tok])


def admissible(lc: Any, seq: Sequence, guess: list[int]) -> list[int]:
    """The longest prefix of `guess` whose every token the grammar allows after the ones before it, and that the
    literal guard and the answer tabu would not refuse; it ends after an end-of-generation token."""
    grammar = seq.grammar_state()
    clone = lc.llama_sampler_clone(grammar) if grammar is not None and guess else None
    try:
        check = GrammarCheck(lc, clone, 1) if clone is not None else None
        before, out = "", []
        for tok in guess:
            if check is not None:
                if not check(np.array([tok], dtype=np.int32))[0]:
                    break
                lc.llama_sampler_accept(clone, tok)
            piece = seq.pieces(tok).decode("utf-8", "replace")
            if seq.guard is not None and seq.guard.refuses(piece, before):
                break
            if seq.tabu is not None and seq.tabu.refuses(piece, before):
                break
            out.append(tok)
            if lc.llama_vocab_is_eog(seq.vocab, tok):
                break
            before += piece
        return out
    finally:
        if clone is not None:
            lc.llama_sampler_free(clone)


class Speculator:
    """Speculative decoding on one llama.cpp context (a llama_cpp.Llama's), with its own batch of k + 1 tokens.

    `guessed` and `kept` count the guessed tokens checked and those kept (the acceptance rate), for the
    speed check and the log."""

    def __init__(self, lc: Any, llm: Any, k: int = K_MAX):
        self.lc, self.llm, self.k = lc, llm, k
        self.batch = lc.llama_batch_init(k + 1, 0, 1)
        self.guessed = self.kept = 0

    def close(self) -> None:
        if self.batch is not None:
            self.lc.llama_batch_free(self.batch)
            self.batch = None

    def run(self, seq: Sequence, prompt: list[int]) -> None:
        """Decode `seq` to its end; the prompt's logits are the context's last output."""
        lc, llm = self.lc, self.llm
        lookup = PromptLookup(prompt, k=self.k)
        tok = seq.sample(llm.ctx, -1)
        while not seq.accept(tok):
            lookup.add(tok)
            room = seq.max_new - seq.n_gen          # guesses past the answer's length are never needed
            guess = admissible(lc, seq, lookup.guess(room)) if room > 0 else []
            if not guess:
                llm.eval([tok])
                tok = seq.sample(llm.ctx, -1)
                continue
            start = llm.n_tokens
            self._decode([tok, *guess])
            self.guessed += len(guess)
            kept, done = 0, False
            for j, g in enumerate(guess):
                tok = seq.sample(llm.ctx, j, g)
                if tok != g:
                    break
                kept += 1
                if seq.accept(g):
                    done = True
                    break
                lookup.add(g)
            else:
                tok = seq.sample(llm.ctx, len(guess))
            self.kept += kept
            llm.n_tokens = start + 1 + kept    # the refused guesses' cells go at the next decode
            if done:
                return

    def _decode(self, tokens: list[int]) -> None:
        """Decode `tokens` after the context's tokens, with logits at every place (rows 0..len-1)."""
        lc, llm, b = self.lc, self.llm, self.batch
        n = llm.n_tokens
        lc.llama_memory_seq_rm(lc.llama_get_memory(llm.ctx), -1, n, -1)
        for i, tok in enumerate(tokens):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = tok, n + i, 1, True
            b.seq_id[i][0] = 0
        b.n_tokens = len(tokens)
        rc = lc.llama_decode(llm.ctx, b)
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc} for {len(tokens)} speculated tokens")
        llm.input_ids[n:n + len(tokens)] = tokens
        llm.n_tokens = n + len(tokens)
