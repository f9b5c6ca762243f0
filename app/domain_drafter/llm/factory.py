"""The one place that turns "which model" into a loaded backend (CLI, benchmark and desktop app).

`open_backend(source)` takes a registry name ("default", a model's name), a GGUF path, or the URL
of an OpenAI-compatible server (http:// or https://). The context size default is written here
once (`DEFAULT_N_CTX`); callers pass None to get it.

The prompt format a front end offers is "auto", "completion" or "chat": `resolve_prompt_format`
turns "auto" into the catalogue's format for a model file the catalogue lists (its instruct
models are "chat") and into the paper's "completion" for anything else.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from domain_drafter.core.errors import DrafterError, ModelError
from domain_drafter.llm.backend import PROMPT_FORMATS, PromptFormat

if TYPE_CHECKING:
    from domain_drafter.llm.backend import GenerationBackend

log = logging.getLogger(__name__)
DEFAULT_N_CTX = 4096
AUTO = "auto"
PROMPT_FORMAT_CHOICES: tuple[str, ...] = (AUTO, *PROMPT_FORMATS)


def is_endpoint(source: str | Path) -> bool:
    """True when `source` names an HTTP server rather than a local model."""
    return isinstance(source, str) and source.strip().lower().startswith(("http://", "https://"))


def resolve_prompt_format(source: str | Path, choice: str = AUTO) -> PromptFormat:
    """The prompt format to open `source` with: `choice` itself, or for "auto" the catalogue's
    format of the model file `source` names (matched by file name), else "completion".
    An endpoint's "auto" is "completion": the server's model is not known here."""
    if choice in PROMPT_FORMATS:
        return choice  # type: ignore[return-value]
    if choice != AUTO:
        raise ModelError(f"unknown prompt format {choice!r}", where=str(source),
                         hint="use " + ", ".join(PROMPT_FORMAT_CHOICES))
    if is_endpoint(source) or str(source) in ("", "default"):
        return "completion"
    catalogue = _catalogue()
    model = catalogue.find(Path(str(source)).name) if catalogue is not None else None
    return model.prompt_format if model is not None else "completion"  # type: ignore[return-value]


_cached: tuple[tuple, object] | None = None   # (the catalogue files' mtimes, the Catalogue read then)


def _catalogue():
    """The catalogue, read again only when one of its files changed (the desktop app asks often,
    on its GUI thread: a stat per file, not a TOML parse)."""
    global _cached
    from domain_drafter.llm.catalogue import bundled_catalogue_path, load_catalogue, user_catalogue_path

    def stamp(path: Path) -> tuple:
        try:
            st = path.stat()
        except OSError:
            return (str(path), None)
        return (str(path), st.st_mtime_ns, st.st_size)

    key = (stamp(bundled_catalogue_path()), stamp(user_catalogue_path()))
    if _cached is not None and _cached[0] == key:
        return _cached[1]
    try:
        catalogue = load_catalogue()
    except DrafterError as exc:   # a broken user catalogue must not stop a model from loading
        log.warning("prompt format 'auto' reads as 'completion': %s", exc)
        catalogue = None
    _cached = (key, catalogue)
    return catalogue


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
) -> GenerationBackend:
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
        from domain_drafter.llm.http import OpenAICompletionsBackend

        return OpenAICompletionsBackend(str(source).strip(), model=remote_model, api_key=api_key,
                                        prompt_format=prompt_format)
    from domain_drafter.llm.llama import LlamaCppBackend
    from domain_drafter.llm.models import resolve_model

    path = source if isinstance(source, Path) else resolve_model(source)
    return LlamaCppBackend(path, n_ctx=n_ctx or DEFAULT_N_CTX, n_threads=n_threads or None, seed=seed,
                           reuse_prompt_cache=reuse_prompt_cache, prompt_format=prompt_format)
