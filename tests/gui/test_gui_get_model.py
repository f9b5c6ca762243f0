"""File > Get a model… (gui/dialogs/get_model_dialog.py), offscreen, against a real hub-like HTTP server on 127.0.0.1.

The download, the Stop and the resume go through huggingface_hub and the real dialog workers; the
speed check loads the downloaded tiny model in real llama.cpp. The network is the one thing this
cannot reach: the server stands in for huggingface.co (tests/support/hub_server.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hub_server import HUB_FILE as FILE
from hub_server import HUB_REPO as REPO
from hub_server import MIB, HubFiles, serve_hub
from PySide6.QtCore import Qt

from domain_drafter.gui.dialogs.get_model_dialog import CatalogueTableModel, GetModelDialog, open_get_model_dialog
from domain_drafter.gui.state.workers import JobKind, JobOutcome
from domain_drafter.llm.catalogue import RAM_NOTE, bundled_catalogue_path, load_catalogue
from domain_drafter.llm.download import STAGING
from domain_drafter.llm.models import list_models, user_models_dir


@pytest.fixture
def catalogue(tmp_path, monkeypatch, served_bytes):
    """The bundled catalogue plus a tiny model served by the test hub; models go to <tmp>/data/models."""
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    extra = tmp_path / "models.toml"
    extra.write_text(f'[models.tiny]\ntitle = "Tiny test model"\nrepo = "{REPO}"\nfile = "{FILE}"\nquant = "F32"\n'
                     f'size = {len(served_bytes)}\nram = {2 * len(served_bytes)}\nlicence = "MIT"\n'
                     'prompt_format = "completion"\n', encoding="utf-8")
    return load_catalogue([bundled_catalogue_path(), extra])


def column(dialog: GetModelDialog, name: str) -> list[str]:
    model = dialog.table_model
    col = model.HEADERS.index(name)
    return [model.data(model.index(row, col)) for row in range(model.rowCount())]


def _ended(blocker) -> tuple[JobKind, JobOutcome]:
    """The job_ended arguments, checked to be the enums themselves (a bare "download" string equals its str enum)."""
    kind, outcome = blocker.args
    assert type(kind) is JobKind and type(outcome) is JobOutcome, blocker.args
    return kind, outcome


def test_the_catalogue_table(qtbot, qtmodeltester, catalogue):
    qtmodeltester.check(CatalogueTableModel(catalogue, list_models()), force_py=True)   # one the test owns
    dialog = GetModelDialog(catalogue=catalogue, endpoint="http://127.0.0.1:9")
    qtbot.addWidget(dialog)
    titles = column(dialog, "Model")
    assert titles[0] == "Gemma 3 270M (embedded default)" and titles[-1] == "Tiny test model" and len(titles) == 6
    assert column(dialog, "Installed") == ["embedded", "no", "no", "no", "no", "no"]
    assert column(dialog, "Size")[3] == "4.7 GB" and column(dialog, "Licence")[4] == "Llama 3.1 Community License"
    assert column(dialog, "RAM") == [m.ram_text for m in catalogue]   # the catalogue's figure, as the CLI shows it
    ram = dialog.table_model.HEADERS.index("RAM")
    assert dialog.table_model.headerData(ram, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == RAM_NOTE
    dialog.select("gemma-3-270m")
    assert not dialog.download_button.isEnabled() and dialog.check_button.isEnabled()   # embedded: nothing to get
    dialog.select("tiny")
    assert dialog.download_button.isEnabled() and not dialog.check_button.isEnabled()
    assert not dialog.stop_button.isEnabled()
    assert f"http://127.0.0.1:9/{REPO}/resolve/main/{FILE}" in dialog.details.text()


def test_download_shows_progress_and_eta_stops_resumes_then_checks_speed(qtbot, catalogue, served_bytes):
    hub = HubFiles(rate=4 * MIB)                       # 1.5 s for the whole file: time to press Stop
    hub.add(REPO, FILE, served_bytes)
    with serve_hub(hub) as url:
        dialog = GetModelDialog(catalogue=catalogue, endpoint=url)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.select("tiny")
        qtbot.mouseClick(dialog.download_button, Qt.MouseButton.LeftButton)
        assert dialog.busy and dialog.stop_button.isEnabled() and not dialog.download_button.isEnabled()
        qtbot.waitUntil(lambda: dialog.progress_bar.value() >= MIB, timeout=10_000)
        assert " left" in dialog.status.text() and "MiB/s" in dialog.status.text()
        assert dialog.progress_bar.maximum() == len(served_bytes)
        with qtbot.waitSignal(dialog.job_ended, timeout=10_000) as ended:
            qtbot.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
        assert _ended(ended) == (JobKind.DOWNLOAD, JobOutcome.CANCELLED)
        part = user_models_dir() / STAGING / f"{FILE}.part"
        kept = part.stat().st_size
        assert MIB <= kept < len(served_bytes) and dialog.download_button.isEnabled()
        assert column(dialog, "Installed")[-1] == "no" and "resume" in dialog.status.text()

        hub.rate, hub.requests[:] = None, []
        with qtbot.waitSignal(dialog.model_installed, timeout=20_000) as installed, \
                qtbot.waitSignal(dialog.job_ended, timeout=20_000) as ended:
            qtbot.mouseClick(dialog.download_button, Qt.MouseButton.LeftButton)
    target = user_models_dir() / FILE
    assert _ended(ended) == (JobKind.DOWNLOAD, JobOutcome.FINISHED) and installed.args == [target]
    assert [r[2] for r in hub.requests if r[0] == "GET"] == [f"bytes={kept}-"]
    assert target.read_bytes() == served_bytes
    assert column(dialog, "Installed")[-1] == "yes" and "Installed" in dialog.status.text()
    assert f"resumed at {kept // MIB} MiB" in dialog.status.text()
    assert dialog.check_button.isEnabled() and not dialog.download_button.isEnabled()

    with qtbot.waitSignal(dialog.job_ended, timeout=60_000) as ended:
        qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    assert _ended(ended) == (JobKind.SPEED_CHECK, JobOutcome.FINISHED), dialog.last_error
    text = dialog.status.text()
    assert "tiny-random-llama" in text and "tokens/s" in text and "one answer: at most" in text
    assert "paper-exp1: 1,920 answers, at most" in text   # the paper's experiment 1 with this model


def test_a_refused_download_is_shown_in_the_dialog(qtbot, catalogue, served_bytes):
    hub = HubFiles(refuse=403)
    hub.add(REPO, FILE, served_bytes)
    with serve_hub(hub) as url:
        dialog = GetModelDialog(catalogue=catalogue, endpoint=url)
        qtbot.addWidget(dialog)
        dialog.select("tiny")
        with qtbot.waitSignal(dialog.job_ended, timeout=20_000) as ended:
            dialog.download()
    assert _ended(ended) == (JobKind.DOWNLOAD, JobOutcome.FAILED)
    assert "gated" in dialog.last_error and str(user_models_dir()) in dialog.last_error
    assert "Failed:" in dialog.status.text() and dialog.download_button.isEnabled()


def test_open_get_model_dialog_shows_the_real_catalogue(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    dialog = open_get_model_dialog(None)
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and not dialog.isModal()
    assert dialog.table_model.rowCount() == len(load_catalogue()) >= 5
    assert dialog.dest == Path(tmp_path / "data" / "models")
