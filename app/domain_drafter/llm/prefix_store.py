"""KV states of a few earlier prompts, so that a prompt sharing a long prefix with any of them (not only
with the one just before) reads only the rest.

The search in feedback space asks each child after another root prompt (other context examples), so
consecutive prompts rarely share more than the instruction: with the cache of the last prompt alone,
every call re-read some 900 tokens, and on a CPU that was 80% of its time (Qwen2.5-Coder 1.5B, one
thread). A child's prompt is a root prompt, then the parent's answer and its feedback, so with the root's
state kept it reads only those.

A state is llama.cpp's sequence state (`llama_state_seq_get_data`: the KV cells of sequence 0), taken
right after the prompt's last whole chunk was read (before its last partial chunk, and before anything was
generated). Only that whole-chunk prefix (`clean`) is ever reused, so a restored prefix is computed exactly
as a fresh evaluation computes it and the answers do not change (llm/llama.py explains the chunks). With
sliding-window attention (Gemma 3) a state longer than the window is reused only whole (`best`). Entries
for the same root replace each other; otherwise the least recently used goes, where a state counts as used when
it is saved or when a prompt that extends it whole starts from it (its root's child). A prompt that shares only
its start (the instruction and a context example that two roots happen to draw alike) may start from it too, but
that does not keep it: otherwise an earlier action's state, reused for a shared example, outlived a root of the
search under way, and every later child of that root read its ~1,100 tokens afresh (issue 38: blocksworld stack
after put-down in one process, the way `bench run` goes, 24 s instead of 7 s per child).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

DEFAULT_STATES = 4          # about one per root prompt of the search (its default width)


@dataclass
class PrefixState:
    tokens: tuple[int, ...]     # every token the state holds (the prompt read)
    clean: int                  # how many of them were computed in whole chunks
    data: Any                   # the ctypes buffer
    size: int
    used: int = 0               # for least-recently-used


def common_prefix(a: tuple[int, ...] | list[int], b: tuple[int, ...] | list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def window_kept(lowest: int, keep: int, n_swa: int) -> bool:
    """Whether a sequence whose lowest cell is at position `lowest` still holds every cell a sliding-window layer
    (over `n_swa` positions) reads from position `keep` on, after a restored state is cut to `keep` tokens (the
    rule is llama-server's; LlamaCppBackend._exact explains it)."""
    return 0 <= lowest <= max(0, keep - n_swa)


class PrefixStore:
    """At most `capacity` prompt states of one llama.cpp context (sequence 0)."""

    def __init__(self, lc: Any, capacity: int = DEFAULT_STATES, min_tokens: int = 128):
        self.lc = lc
        self.capacity = capacity
        self.min_tokens = min_tokens
        self.states: list[PrefixState] = []
        self._clock = 0
        self.restored = 0       # states put back (for tests and the speed report)

    def save(self, ctx: Any, tokens: list[int], clean: int) -> None:
        """Keep the state of sequence 0, which holds exactly `tokens`, of which `clean` in whole chunks.
        The backend saves a prompt's state right after its last whole chunk, so `clean` is all of them."""
        if self.capacity <= 0 or clean < self.min_tokens:
            return
        size = int(self.lc.llama_state_seq_get_size(ctx, 0))
        if size <= 0:
            return
        data = (ctypes.c_uint8 * size)()
        if int(self.lc.llama_state_seq_get_data(ctx, data, size, 0)) != size:
            return
        self._clock += 1
        state = PrefixState(tuple(tokens), clean, data, size, self._clock)
        same = [s for s in self.states if common_prefix(s.tokens[:s.clean], state.tokens) * 2 >= s.clean]
        for old in same:            # the same root prompt: the newer state serves every prompt the older did
            self.states.remove(old)
        self.states.append(state)
        while len(self.states) > self.capacity:
            self.states.remove(min(self.states, key=lambda s: s.used))

    def best(self, tokens: list[int], chunk: int, n_swa: int = 0) -> tuple[PrefixState | None, int]:
        """The state sharing the longest whole-chunk prefix with `tokens`, and that length (leaving at least
        one token to read, for its logits). With sliding-window attention over `n_swa` positions, a state
        longer than the window serves only as a whole: it holds only the window's cells of those layers, so
        cut shorter it would lack the cells before the cut (LlamaCppBackend._exact)."""
        found, most = None, 0
        for s in self.states:
            n = min(common_prefix(s.tokens[:s.clean], tokens), len(tokens) - 1)
            n -= n % chunk
            if n_swa > 0 and len(s.tokens) > n_swa and n < len(s.tokens):
                continue
            if n > most:
                found, most = s, n
        return found, most

    def restore(self, ctx: Any, state: PrefixState, reach: int) -> bool:
        """Put `state` back into sequence 0 (the caller cleared the context's memory first), for a prompt that
        shares `reach` tokens with it (`best`). Only a prompt that extends the state whole counts as a use of it
        (the module's docstring says why)."""
        ok = int(self.lc.llama_state_seq_set_data(ctx, state.data, state.size, 0)) == state.size
        if ok:
            self.restored += 1
            if reach >= state.clean:
                self._clock += 1
                state.used = self._clock
        return ok

    def clear(self) -> None:
        self.states.clear()
