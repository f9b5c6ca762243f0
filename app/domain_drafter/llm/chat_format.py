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
from domain_drafter.llm.backend import messages_of

_HINT_COMPLETION = 'use prompt_format "completion" (the paper\'s plain prompt, the default)'


def model_chat_template(lc: Any, model: Any, where: str | Path) -> str:
    """The model's chat template text; ModelError when its GGUF has none."""
    raw = lc.llama_model_chat_template(model, None)
    if not raw:
        raise ModelError("the model has no chat template (no tokenizer.chat_template in its GGUF metadata), "
                         "so the chat prompt format cannot be used", where=where,
                         hint=_HINT_COMPLETION + ", or a chat/instruct model")
    return raw.decode("utf-8", errors="replace")


def apply_chat_template(lc: Any, template: str, content: str | list[tuple[str, str]], where: str | Path) -> str:
    """`content` as the one user message (or the (role, content) messages), then the assistant's turn start."""
    messages = [("user", content)] if isinstance(content, str) else list(content)
    encoded = [(r.encode("utf-8"), c.encode("utf-8")) for r, c in messages]
    msgs = (lc.llama_chat_message * len(encoded))(*(lc.llama_chat_message(r, c) for r, c in encoded))
    tmpl = template.encode("utf-8")
    size = 4 * sum(len(c) for _, c in encoded) + 4096
    for _ in range(2):
        buf = ctypes.create_string_buffer(size)
        n = lc.llama_chat_apply_template(tmpl, msgs, len(encoded), True, buf, size)
        if n < 0:
            raise ModelError("llama.cpp does not recognise this model's chat template", where=where,
                             hint=_HINT_COMPLETION + "; llama.cpp knows the ChatML, Llama, Gemma, Mistral, "
                             "Phi and other common template families")
        if n < size:
            return buf.raw[:n].decode("utf-8", errors="replace")
        size = n + 1
    raise ModelError("the chat template's output kept growing", where=where)  # pragma: no cover


def chat_prompt_tokens(lc: Any, llm: Any, prompt: str, where: str | Path, template: str | None = None) -> list[int]:
    """Tokens of `prompt` wrapped in the model's chat template (`llm` is a llama_cpp.Llama).

    A `Conversation` prompt sends its turns as messages (user, assistant, user, ...). Every message's
    content is tokenized as plain text; only the template's own markers are special tokens.
    """
    if template is None:
        template = model_chat_template(lc, llm.model, where)
    messages = messages_of(prompt)
    marks = [f"@@domain-drafter:turn{i}@@" for i in range(len(messages))]
    text = apply_chat_template(lc, template, [(role, mark) for (role, _), mark in zip(messages, marks)], where)
    pieces: list[tuple[str, bool]] = []     # (text, special)
    for mark, (_, content) in zip(marks, messages):
        before, found, text = text.partition(mark)
        if not found:
            raise ModelError("the chat template dropped a message of the conversation", where=where,
                             hint=_HINT_COMPLETION)
        pieces += [(before, True), (content, False)]
    pieces.append((text, True))
    tokens = llm.tokenize(pieces[0][0].encode("utf-8"), add_bos=True, special=True)
    bos = llm.token_bos()
    if len(tokens) >= 2 and tokens[0] == tokens[1] == bos:  # the template writes BOS itself
        tokens = tokens[1:]
    for piece, special in pieces[1:]:
        if piece:
            tokens += llm.tokenize(piece.encode("utf-8"), add_bos=False, special=special)
    return tokens
