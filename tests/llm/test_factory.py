"""llm.factory.open_backend: the one place a model name, GGUF path or server URL becomes a backend."""

from __future__ import annotations

import pytest

from domain_drafter.core.errors import ModelError
from domain_drafter.llm.factory import DEFAULT_N_CTX, is_endpoint, open_backend


def test_a_gguf_path_as_str_or_path_loads_llama_cpp_with_the_default_context(tiny_model):
    from domain_drafter.llm.llama import LlamaCppBackend

    for source in (tiny_model, str(tiny_model)):
        with open_backend(source, n_threads=1) as b:
            assert isinstance(b, LlamaCppBackend) and b.n_ctx == DEFAULT_N_CTX and b.n_threads == 1
            assert b.prompt_format == "completion"
    with open_backend(tiny_model, n_ctx=512) as b:
        assert b.n_ctx == 512


def test_a_url_gives_the_http_backend_without_contacting_it():
    from domain_drafter.llm.http import OpenAICompletionsBackend

    b = open_backend("http://127.0.0.1:9/v1", api_key="k", remote_model="m")
    assert isinstance(b, OpenAICompletionsBackend) and (b.api_key, b.model) == ("k", "m")
    assert is_endpoint("HTTPS://host") and not is_endpoint("models/x.gguf")


def test_an_unknown_model_name_says_what_exists():
    with pytest.raises(ModelError) as info:
        open_backend("no-such-model-anywhere")
    assert "no such model" in info.value.what and "default" in info.value.hint


def test_auto_prompt_format_is_the_catalogues_for_a_catalogue_file_and_plain_otherwise(tmp_path, monkeypatch):
    from domain_drafter.llm.factory import resolve_prompt_format

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))   # no user catalogue
    qwen = tmp_path / "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf"        # listed with prompt_format = "chat"
    assert resolve_prompt_format(qwen) == "chat" and resolve_prompt_format(str(qwen), "auto") == "chat"
    assert resolve_prompt_format("qwen2.5-coder-1.5b") == "chat"       # the catalogue's name
    assert resolve_prompt_format(qwen, "completion") == "completion"   # an explicit choice wins
    assert resolve_prompt_format("default") == "completion"            # Gemma: the paper's prompt
    assert resolve_prompt_format(tmp_path / "my-own.gguf") == "completion"
    assert resolve_prompt_format("http://127.0.0.1:8080") == "completion"
    assert resolve_prompt_format("http://127.0.0.1:8080", "chat") == "chat"
    with pytest.raises(ModelError) as info:
        resolve_prompt_format(qwen, "instruct")
    assert "auto, completion, chat" in info.value.hint


def test_a_broken_user_catalogue_leaves_auto_as_the_plain_prompt(tmp_path, monkeypatch):
    from domain_drafter.llm.factory import resolve_prompt_format

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "domain-drafter").mkdir()
    (tmp_path / "domain-drafter" / "models.toml").write_text("[models.broken\n", encoding="utf-8")
    assert resolve_prompt_format(tmp_path / "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf") == "completion"
