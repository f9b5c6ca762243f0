"""The "chat" prompt format: the paper's prompt sent as one user message in the model's chat template.

The template is the model's own (`tokenizer.chat_template` in its GGUF metadata), applied by
llama.cpp (`llama_chat_apply_template`, which recognises the common template families). The
template's own markers (turn starts, BOS) are tokenized as special tokens; the prompt text itself
is tokenized as plain text, so a description that spells a special token cannot inject one.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from domain_drafter.core.errors import ModelError

_MARK = "@@domain-drafter:prompt@@"
_HINT_COMPLETION = 'use prompt_format "completion" (the paper\'s plain prompt, the default)'


def model_chat_template(lc: Any, model: Any, where: str | Path) -> str:
    """The model's chat template text; ModelError when its GGUF has none."""
    raw = lc.llama_model_chat_template(model, None)
    if not raw:
        raise ModelError("the model has no chat template (no tokenizer.chat_template in its GGUF metadata), "
                         "so the chat prompt format cannot be used", where=where,
                         hint=_HINT_COMPLETION + ", or a chat/instruct model")
    return raw.decode("utf-8", errors="replace")


def apply_chat_template(lc: Any, template: str, content: str, where: str | Path) -> str:
    """`content` as the one user message, followed by the assistant's turn start, in `template`."""
    msgs = (lc.llama_chat_message * 1)(lc.llama_chat_message(b"user", content.encode("utf-8")))
    tmpl = template.encode("utf-8")
    size = 4 * len(content) + 4096
    for _ in range(2):
        buf = ctypes.create_string_buffer(size)
        n = lc.llama_chat_apply_template(tmpl, msgs, 1, True, buf, size)
        if n < 0:
            raise ModelError("llama.cpp does not recognise this model's chat template", where=where,
                             hint=_HINT_COMPLETION + "; llama.cpp knows the ChatML, Llama, Gemma, Mistral, "
                             "Phi and other common template families")
        if n < size:
            return buf.raw[:n].decode("utf-8", errors="replace")
        size = n + 1
    raise ModelError("the chat template's output kept growing", where=where)  # pragma: no cover


def chat_prompt_tokens(lc: Any, llm: Any, prompt: str, where: str | Path, template: str | None = None) -> list[int]:
    """Tokens of `prompt` wrapped in the model's chat template (`llm` is a llama_cpp.Llama)."""
    if template is None:
        template = model_chat_template(lc, llm.model, where)
    text = apply_chat_template(lc, template, _MARK, where)
    before, found, after = text.partition(_MARK)
    if not found:
        raise ModelError("the chat template dropped the user's message", where=where, hint=_HINT_COMPLETION)
    tokens = llm.tokenize(before.encode("utf-8"), add_bos=True, special=True)
    bos = llm.token_bos()
    if len(tokens) >= 2 and tokens[0] == tokens[1] == bos:  # the template writes BOS itself
        tokens = tokens[1:]
    tokens += llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=False)
    tokens += llm.tokenize(after.encode("utf-8"), add_bos=False, special=True)
    return tokens
