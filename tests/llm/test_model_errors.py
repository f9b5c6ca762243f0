"""Bad model files and bad requests become ModelError (with the path and a fix); the process lives."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from tiny_gguf import write_tiny_llama

from domain_drafter.core.errors import ContextTooSmallError, DrafterError, ModelError
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.llama import LlamaCppBackend


def _load_error(path) -> ModelError:
    with pytest.raises(ModelError) as e:
        LlamaCppBackend(path)
    err = e.value
    assert isinstance(err, DrafterError) and err.exit_code == 5
    assert str(path) in str(err)
    assert err.hint
    return err


def _still_works(tiny_backend) -> None:
    assert tiny_backend.generate("x", DecodingOptions(max_tokens=3, stop=())).stats.generated_tokens == 3


def test_missing_file(tmp_path, tiny_backend):
    err = _load_error(tmp_path / "nope.gguf")
    assert "not found" in err.what
    _still_works(tiny_backend)


def test_directory_instead_of_file(tmp_path):
    assert "not a file" in _load_error(tmp_path).what


def test_not_a_gguf(tmp_path, tiny_backend):
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"PK\x03\x04 this is a zip, not a model" * 10)
    err = _load_error(bad)
    assert "not a GGUF" in err.what
    _still_works(tiny_backend)


def test_empty_file(tmp_path):
    bad = tmp_path / "empty.gguf"
    bad.write_bytes(b"")
    assert "not a GGUF" in _load_error(bad).what


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.999])
def test_truncated_gguf(tiny_model, tmp_path, tiny_backend, keep):
    data = tiny_model.read_bytes()
    bad = tmp_path / f"cut-{keep}.gguf"
    bad.write_bytes(data[: int(len(data) * keep)])
    err = _load_error(bad)
    assert "truncated" in err.what
    _still_works(tiny_backend)


def test_truncated_inside_the_header(tiny_model, tmp_path):
    bad = tmp_path / "head.gguf"
    bad.write_bytes(tiny_model.read_bytes()[:3000])  # inside the vocabulary
    err = _load_error(bad)
    assert "truncated" in err.what and "header" in err.what


def test_bad_version(tiny_model, tmp_path):
    data = bytearray(tiny_model.read_bytes())
    data[4:8] = (99).to_bytes(4, "little")
    bad = tmp_path / "v99.gguf"
    bad.write_bytes(bytes(data))
    assert "version 99" in _load_error(bad).what


def test_duplicate_token_string(tmp_path, tiny_backend):
    bad = write_tiny_llama(tmp_path / "dup.gguf", duplicate_token=True)
    err = _load_error(bad)
    assert "twice" in err.what and "abort" in err.hint
    _still_works(tiny_backend)


def test_duplicate_token_really_aborts_llama_cpp(tmp_path):
    """Why the check exists: plain llama-cpp-python on that file kills the process (SIGABRT)."""
    bad = write_tiny_llama(tmp_path / "dup.gguf", duplicate_token=True)
    code = f"import llama_cpp; llama_cpp.Llama({str(bad)!r}, verbose=False); print('survived')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "survived" not in proc.stdout


def test_llama_cpp_refusal_is_explained(tmp_path, tiny_backend):
    """A file that passes our header checks but that llama.cpp refuses: its log says why."""
    bad = write_tiny_llama(tmp_path / "foo.gguf", architecture="foo")
    err = _load_error(bad)
    assert "unknown model architecture: 'foo'" in err.what
    _still_works(tiny_backend)


def test_prompt_longer_than_context(tiny_model):
    with LlamaCppBackend(tiny_model, n_ctx=256) as b:
        prompt = "(:action pick-up :parameters (?x - block)) " * 40
        n = len(b.tokenize(prompt))
        assert n > 256
        with pytest.raises(ContextTooSmallError) as e:   # a ModelError the app can point at a setting
            b.generate(prompt, DecodingOptions())
        msg = str(e.value)
        assert isinstance(e.value, ModelError)
        assert f"prompt has {n} tokens but the model's context is 256" in msg
        assert str(tiny_model) in msg and "n_ctx" in msg
        assert b.generate("short", DecodingOptions(max_tokens=3, stop=())).stats.generated_tokens == 3


def test_invalid_grammar(tiny_backend):
    with pytest.raises(ModelError) as e:
        tiny_backend.generate("x", DecodingOptions(grammar="root ::= undefined_rule"))
    assert "undefined_rule" in str(e.value)
    with pytest.raises(ModelError):
        tiny_backend.generate("x", DecodingOptions(grammar='root ::= "unterminated'))
    _still_works(tiny_backend)


def test_closed_backend(tiny_model):
    b = LlamaCppBackend(tiny_model, n_ctx=256)
    b.close()
    b.close()  # twice is fine
    with pytest.raises(ModelError) as e:
        b.generate("x", DecodingOptions())
    assert "closed" in str(e.value)


def test_errors_in_a_fresh_process(tiny_model, tmp_path):
    """End to end in a child process: every bad file is refused and the process exits normally."""
    bad = tmp_path / "junk.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 64)
    code = textwrap.dedent(
        f"""
        from domain_drafter.core.errors import ModelError
        from domain_drafter.llm.llama import LlamaCppBackend
        for p in [{str(bad)!r}, {str(tmp_path / 'missing.gguf')!r}]:
            try:
                LlamaCppBackend(p)
            except ModelError as e:
                print("refused", e.what)
        print("alive")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("refused") == 2 and "alive" in proc.stdout
