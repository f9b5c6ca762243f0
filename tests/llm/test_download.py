"""Pulling a model (llm/download.py, `domain-drafter models pull`) from a real HTTP server on 127.0.0.1.

The server (tests/support/hub_server.py) answers like the Hugging Face hub's file endpoint, and
huggingface_hub does the HTTP, the retry and the Range requests for real. The network itself is
the one thing these tests cannot reach: nothing here talks to huggingface.co, so whether the
catalogue's URLs and hashes are still right there is not tested (the hub's pages were read when
the catalogue was written; see resources/models.toml).
"""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import pytest
from hub_server import HUB_FILE as FILE
from hub_server import HUB_REPO as REPO
from hub_server import MIB, HubFiles, serve_hub

from domain_drafter.cli import main
from domain_drafter.core.errors import ModelError
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.llm.catalogue import CatalogueModel
from domain_drafter.llm.download import STAGING, pull_model
from domain_drafter.llm.models import list_models, user_models_dir


@pytest.fixture
def homes(tmp_path, monkeypatch) -> Path:
    """Private data and config folders: user_models_dir() is <tmp>/data/models."""
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return tmp_path


def catalogue_entry(content: bytes, *, sha256: str | None = "from content") -> CatalogueModel:
    digest = hashlib.sha256(content).hexdigest() if sha256 == "from content" else sha256
    return CatalogueModel(name="tiny", title="Tiny test model", repo=REPO, file=FILE,
                          revision="0123456789abcdef0123456789abcdef01234567", quant="F32", size=len(content),
                          ram=2 * len(content), licence="MIT", prompt_format="completion", sha256=digest)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / STAGING).glob("*")) if (folder / STAGING).exists() else []


def test_pull_resumes_after_the_connection_drops_midway(homes, served_bytes):
    hub = HubFiles(drop_after=3 * MIB + 12345)       # the first transfer dies in its 4th MiB
    hub.add(REPO, FILE, served_bytes)
    seen: list[tuple[int, int, str]] = []
    with serve_hub(hub) as url:
        result = pull_model(catalogue_entry(served_bytes), endpoint=url,
                            task=TaskState(on_progress=lambda *p: seen.append(p)))
    target = user_models_dir() / FILE
    assert result.path == target and target.read_bytes() == served_bytes
    assert (result.verified, result.resumed_from, result.already_installed) == ("catalogue sha256", 0, False)
    methods = [(method, ranged) for method, _, ranged in hub.requests]
    assert methods[0] == ("HEAD", None) and methods[1] == ("GET", None) and len(methods) == 3
    resumed_at = int(methods[2][1].removeprefix("bytes=").rstrip("-"))
    assert methods[2][0] == "GET" and 0 < resumed_at <= 3 * MIB + 12345   # only the rest was asked for
    downloading = [m for _, _, m in seen if m.startswith("downloading") and "MiB/s" in m]
    assert downloading and downloading[-1].startswith(f"downloading {FILE}: 6 of 6 MiB") and " left" in downloading[0]
    assert any(m.startswith("checking the sha256") for _, _, m in seen)
    assert leftovers(user_models_dir()) == []
    assert [e.source for e in list_models() if e.path == target] == ["user"]


def test_a_stopped_pull_resumes_from_the_part_file(homes, served_bytes):
    hub = HubFiles(rate=24 * MIB)
    hub.add(REPO, FILE, served_bytes)
    task = TaskState()
    task.on_progress = lambda done, total, message: task.cancel() if done >= 2 * MIB else None
    with serve_hub(hub) as url:
        with pytest.raises(Cancelled):
            pull_model(catalogue_entry(served_bytes), endpoint=url, task=task)
        part = user_models_dir() / STAGING / f"{FILE}.part"
        kept = part.stat().st_size
        assert 2 * MIB <= kept < len(served_bytes) and part.read_bytes() == served_bytes[:kept]
        assert FILE not in [e.path.name for e in list_models()]          # a part is not a model
        hub.requests.clear()
        result = pull_model(catalogue_entry(served_bytes), endpoint=url)
    assert result.resumed_from == kept and result.downloaded == len(served_bytes) - kept
    assert [r[2] for r in hub.requests if r[0] == "GET"] == [f"bytes={kept}-"]
    assert (user_models_dir() / FILE).read_bytes() == served_bytes and leftovers(user_models_dir()) == []


def test_a_file_whose_sha256_differs_from_the_catalogue_is_refused_and_deleted(homes, served_bytes):
    damaged = bytearray(served_bytes)
    damaged[-100] ^= 0xFF                                # in the padding: the GGUF header still reads fine
    hub = HubFiles()
    hub.add(REPO, FILE, bytes(damaged))
    with serve_hub(hub) as url, pytest.raises(ModelError) as info:
        pull_model(catalogue_entry(served_bytes), endpoint=url)
    message = info.value.message
    assert f"sha256 is {hashlib.sha256(damaged).hexdigest()}" in message
    assert f"the catalogue says {hashlib.sha256(served_bytes).hexdigest()}" in message and "deleted" in message
    assert not (user_models_dir() / FILE).exists() and leftovers(user_models_dir()) == []


def test_without_a_catalogue_sha256_the_hubs_etag_is_checked(homes, served_bytes):
    hub = HubFiles(etag_override="f" * 64)
    hub.add(REPO, FILE, served_bytes)
    with serve_hub(hub) as url, pytest.raises(ModelError) as info:
        pull_model(catalogue_entry(served_bytes, sha256=None), endpoint=url)
    assert f"but the hub's ETag says {'f' * 64}" in info.value.message
    hub.etag_override = None
    with serve_hub(hub) as url:
        assert pull_model(catalogue_entry(served_bytes, sha256=None), endpoint=url).verified == "hub sha256 (ETag)"


def test_a_file_that_is_not_a_gguf_is_refused_by_the_header_check(homes, served_bytes):
    hub = HubFiles()
    hub.add(REPO, FILE, served_bytes[: len(served_bytes) // 100])   # the header promises tensors the file lacks
    with serve_hub(hub) as url, pytest.raises(ModelError) as info:
        pull_model(catalogue_entry(served_bytes, sha256=None), endpoint=url)
    assert "not a usable GGUF model: truncated GGUF" in info.value.message
    assert not (user_models_dir() / FILE).exists() and leftovers(user_models_dir()) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_network_names_the_url_and_the_folder_for_a_manual_download(homes, served_bytes):
    endpoint = f"http://127.0.0.1:{_free_port()}"          # nothing listens there
    model = catalogue_entry(served_bytes)
    with pytest.raises(ModelError) as info:
        pull_model(model, endpoint=endpoint)
    message = info.value.message
    assert "cannot reach the hub (ConnectError" in message
    assert model.url(endpoint) in message and str(user_models_dir()) in message


@pytest.mark.parametrize("refuse, files, words", [
    (403, True, "the hub refused the download: test/tiny-GGUF is gated"),
    (500, True, "the hub refused the download (HTTP 500)"),
    (None, False, "the hub has no such file"),
])
def test_a_refused_download_says_why_and_where_to_put_a_manual_one(homes, served_bytes, refuse, files, words):
    hub = HubFiles(refuse=refuse)
    if files:
        hub.add(REPO, FILE, served_bytes)
    hub.add(REPO, "other.gguf", b"GGUF")
    with serve_hub(hub) as url, pytest.raises(ModelError) as info:
        pull_model(catalogue_entry(served_bytes), endpoint=url)
    assert words in info.value.message
    assert f"{url}/{REPO}/resolve/" in info.value.message and str(user_models_dir()) in info.value.message


# --- the command line ---------------------------------------------------------------------------
def run_models(capsys, *argv: str) -> tuple[int, str, str]:
    """`domain-drafter models ...` through the real command line (its error-to-exit-code rule included)."""
    code = main(["models", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write_user_catalogue(homes: Path, content: bytes) -> None:
    folder = homes / "config" / "domain-drafter"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "models.toml").write_text(
        f'[models.tiny]\nrepo = "{REPO}"\nfile = "{FILE}"\nquant = "F32"\nsize = {len(content)}\n'
        f'ram = {2 * len(content)}\nlicence = "MIT"\nprompt_format = "completion"\n', encoding="utf-8")


def test_cli_pull_downloads_then_says_it_is_installed(homes, served_bytes, capsys, monkeypatch):
    write_user_catalogue(homes, served_bytes)
    hub = HubFiles()
    hub.add(REPO, FILE, served_bytes)
    with serve_hub(hub) as url:
        monkeypatch.setenv("HF_ENDPOINT", url)
        code, out, err = run_models(capsys, "pull", "tiny")
        assert code == 0 and f"tiny: {user_models_dir() / FILE} (6 MiB" in out and "hub sha256 (ETag)" in out
        assert f"from {url}/{REPO}/resolve/main/{FILE}" in err
        code, out, _ = run_models(capsys, "pull", "tiny")
    assert code == 0 and "already installed" in out and len(hub.requests) == 2   # HEAD + GET, once
    code, out, _ = run_models(capsys)
    assert code == 0 and "tiny" in out and "qwen2.5-coder-7b" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("tiny "))
    assert row.rstrip().endswith("yes")


def test_cli_pull_of_an_unknown_name_lists_the_catalogue(homes, capsys):
    code, _, err = run_models(capsys, "pull", "gpt-17")
    assert code == 2 and "no model called 'gpt-17'" in err
    assert "gemma-3-270m" in err and "qwen2.5-coder-1.5b" in err and "llama-3.1-8b" in err
