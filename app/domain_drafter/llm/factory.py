"""The one place that turns "which model" into a loaded backend (CLI, benchmark and desktop app).

`open_backend(source)` takes a registry name ("default", a model's name), a GGUF path, or the URL
of an OpenAI-compatible server (http:// or https://). The context size default is written here
once (`DEFAULT_N_CTX`); callers pass None to get it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from domain_drafter.core.errors import ModelError
from domain_drafter.llm.backend import PROMPT_FORMATS, PromptFormat

if TYPE_CHECKING:
    from domain_drafter.llm.backend import GenerationBackend

DEFAULT_N_CTX = 4096


def is_endpoint(source: str | Path) -> bool:
    """True when `source` names an HTTP server rather than a local model."""
    return isinstance(source, str) and source.strip().lower().startswith(("http://", "https://"))


def open_backend(
    source: str | Path,
    *,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    prompt_format: PromptFormat = "completion",
    api_key: str | None = None,
    remote_model: str | None = None,
    seed: int = 0,
    reuse_prompt_cache: bool = True,
) -> "GenerationBackend":
    """A loaded backend for `source`; the caller closes it (it is a context manager).

    source: "default", a model name from the model folders, a .gguf path (str or Path), or an
    OpenAI-compatible server's base URL. n_ctx: context tokens (None: DEFAULT_N_CTX; ignored for
    a server). n_threads: CPU threads (None or 0: llama.cpp backend's default). prompt_format:
    "completion" (the paper's plain text prompt) or "chat" (the prompt as one user message in the
    model's own chat template). api_key, remote_model: for a server only ("model" field).
    Raises ModelError naming the model when it cannot be found or loaded.
    """
    if prompt_format not in PROMPT_FORMATS:
        raise ModelError(f"unknown prompt format {prompt_format!r}", where=str(source),
                         hint="use " + " or ".join(PROMPT_FORMATS))
    if is_endpoint(source):
        from domain_drafter.llm.http import OpenAICompletionsBackend  # noqa: PLC0415

        return OpenAICompletionsBackend(str(source).strip(), model=remote_model, api_key=api_key,
                                        prompt_format=prompt_format)
    from domain_drafter.llm.llama import LlamaCppBackend  # noqa: PLC0415 - loads llama.cpp's binding
    from domain_drafter.llm.models import resolve_model  # noqa: PLC0415

    path = source if isinstance(source, Path) else resolve_model(source)
    return LlamaCppBackend(path, n_ctx=n_ctx or DEFAULT_N_CTX, n_threads=n_threads or None, seed=seed,
                           reuse_prompt_cache=reuse_prompt_cache, prompt_format=prompt_format)
