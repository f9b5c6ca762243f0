"""atomic_write_bytes: the new content is on the disk (file and folder synced) once it returns."""

from __future__ import annotations

import os
from pathlib import Path

from domain_drafter.core import paths
from domain_drafter.core.paths import atomic_write_bytes


def test_the_file_and_its_folder_are_synced_before_it_returns(tmp_path, monkeypatch):
    synced: list[str] = []
    fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))   # which file or folder (Linux)
        fsync(fd)

    monkeypatch.setattr(paths.os, "fsync", recording_fsync)
    target = tmp_path / "history.json"
    target.write_bytes(b"old")
    atomic_write_bytes(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert len(synced) == 2
    assert Path(synced[0]).parent == tmp_path and Path(synced[0]).name.startswith(".history.json.")  # the temp file
    assert Path(synced[1]) == tmp_path                                                              # then the folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.json"]                           # no temp left
