"""Reading a prompt into the llama.cpp context: aligned chunks, exact reuse of cached prefixes, a prompt's cancel.

The prompt is evaluated in fixed chunks aligned to absolute positions ([0, C), [C, 2C), ...), and
a cancel stops the chunk being computed (llm/abort.py). llama.cpp's results for a token depend on the batch it was
computed in, so a reused cache prefix is only exact when it was computed in the same chunks as a
fresh evaluation would use: only whole chunks of an earlier prompt are kept (see _eval_prompt).
C depends on the model's size only (a responsive cancel on big models, throughput on small
ones; Gemma-3 270M on one core: 64-token chunks cost ~12% more prompt time than 256-token ones).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from domain_drafter.core.errors import ContextTooSmallError
from domain_drafter.core.tasks import TaskState
from domain_drafter.llm.abort import AbortOnCancel
from domain_drafter.llm.chat_format import chat_prompt_tokens
from domain_drafter.llm.gguf_check import GGUFInfo
from domain_drafter.llm.prefix_store import PrefixStore, window_kept


def default_prompt_chunk(model_bytes: int) -> int:
    """Prompt chunk (tokens) for a model file of this size: 256 below 1 GiB, 64 below 4 GiB, else 32."""
    return 256 if model_bytes < 1 << 30 else 64 if model_bytes < 4 << 30 else 32


class PromptReader:
    """LlamaCppBackend's prompt reading (a mixin: the attributes below are the backend's)."""

    _lc: Any
    _llm: Any                      # llama_cpp.Llama
    _reuse: bool
    _clean: int
    _n_swa: int
    _prefixes: PrefixStore
    _chat_template: str | None
    prompt_chunk: int
    prompt_format: str
    last_reused_tokens: int
    model_path: Path
    n_ctx: int
    info: GGUFInfo

    def _prompt_tokens(self, prompt: str) -> list[int]:
        """The prompt's tokens (in the chat template when prompt_format is "chat"), checked against n_ctx."""
        llm = self._llm
        if self.prompt_format == "chat":
            tokens = chat_prompt_tokens(self._lc, llm, prompt, self.model_path, self._chat_template)
        else:
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
        if not tokens:  # empty prompt and a model that adds no BOS: give it something to start
            tokens = [llm.token_bos()] if llm.token_bos() >= 0 else [llm.token_eos()]
        if len(tokens) >= self.n_ctx:
            trained = self.info.context_length
            raise ContextTooSmallError(
                f"prompt has {len(tokens)} tokens but the model's context is {self.n_ctx}",
                where=self.model_path,
                hint=f"raise n_ctx (the model was trained for {trained or 'an unknown number of'} tokens) "
                "or shorten the prompt (fewer or shorter examples)",
            )
        return tokens

    def _eval_prompt(self, tokens: list[int], task: TaskState | None) -> bool:
        """Evaluate the prompt in aligned chunks; False if the task was cancelled (also in the middle of one).

        With reuse on, the cached tokens shared with the previous prompt are kept in whole chunks
        only, and only those that prompt evaluated as whole chunks (its last partial chunk and its
        generated tokens were computed in other batches). So the kept part and the part evaluated
        now are computed exactly as a fresh evaluation computes them, and the answer does not
        depend on which prompt came before.
        """
        llm, chunk = self._llm, self.prompt_chunk
        keep = 0
        if self._reuse and llm.n_tokens > 0:
            cached = llm.input_ids[: min(llm.n_tokens, self._clean)]
            for a, b in zip(cached, tokens):
                if a != b:
                    break
                keep += 1
            keep = min(keep, len(tokens) - 1)  # re-evaluate at least one token to get its logits
            keep = self._exact(keep - keep % chunk)
        if self._reuse:   # an earlier prompt's state that shares more (llm/prefix_store.py)
            state, reach = self._prefixes.best(tokens, chunk, self._n_swa)
            if state is not None and reach > keep:
                self._forget_cache()
                keep = self._exact(reach if self._prefixes.restore(llm.ctx, state, reach) else 0)
                if keep:   # the cache now holds the state's tokens (the comparison next time reads them)
                    llm.input_ids[: len(state.tokens)] = state.tokens
        if keep > 0 and not self._seq_rm(keep):
            keep = 0
        if keep == 0:
            self._forget_cache()
        llm.n_tokens = self._clean = self.last_reused_tokens = i = keep
        with AbortOnCancel(self._lc, llm.ctx, task) as abort:
            while i < len(tokens) and not abort.cancelled:
                part = tokens[i : i + chunk]
                try:
                    llm.eval(part)
                except RuntimeError:   # llama_decode returned 2: aborted in the middle of the chunk
                    if not abort.cancelled:
                        raise
                    break
                i += len(part)
                if len(part) == chunk:
                    self._clean = i
                    if self._reuse and len(tokens) - i < chunk:   # the last whole chunk (see PrefixStore.save)
                        self._prefixes.save(llm.ctx, tokens[:i], i)
        if i < len(tokens):   # cancelled before the prompt was read
            self._forget_cache()
            return False
        return True

    def _exact(self, keep: int) -> int:
        """`keep`, or 0 when the memory lacks cells that a sliding-window layer reads from position `keep` on.

        A model with sliding-window attention (Gemma 3: 512 positions) reads, at position p, the cells from
        p - n_swa on. A saved sequence state holds only the window of its sliding-window layers, so once it
        is restored and cut shorter, the cells before the cut's window are missing, and the answer changes
        (seen: blocksworld unstack with the default model). The rule is llama-server's."""
        if keep <= 0 or self._n_swa <= 0:
            return keep
        lowest = int(self._lc.llama_memory_seq_pos_min(self._lc.llama_get_memory(self._llm.ctx), 0))
        return keep if window_kept(lowest, keep, self._n_swa) else 0

    def _seq_rm(self, keep: int) -> bool:
        return bool(self._lc.llama_memory_seq_rm(self._lc.llama_get_memory(self._llm.ctx), -1, keep, -1))

    def _forget_cache(self) -> None:
        mem = self._lc.llama_get_memory(self._llm.ctx)
        if mem is not None:
            self._lc.llama_memory_clear(mem, True)
        self._llm.n_tokens = 0
        self._clean = 0
