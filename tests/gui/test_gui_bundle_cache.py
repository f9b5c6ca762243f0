"""The window's start reads the parsed bundled domains from a cache keyed by their content."""

from __future__ import annotations

import pickle
import shutil

from domain_drafter.core.bundle import load_bundled
from domain_drafter.gui import bundle_cache
from domain_drafter.gui.bundle_cache import CACHE_NAME, bundled_digest, load_bundled_cached


def test_the_cache_is_written_once_and_gives_the_same_bundles(tmp_path):
    first = load_bundled_cached(tmp_path)
    [path] = list(tmp_path.glob(CACHE_NAME.format(digest="*")))
    assert path.name == CACHE_NAME.format(digest=bundled_digest())
    written = path.stat().st_mtime_ns
    second = load_bundled_cached(tmp_path)
    assert path.stat().st_mtime_ns == written
    assert [b.name for b in second] == [b.name for b in first] == [b.name for b in load_bundled()]
    for cached, parsed in zip(second, load_bundled()):
        assert cached.domain == parsed.domain and cached.problems == parsed.problems
        assert cached.descriptions == parsed.descriptions


def test_a_damaged_cache_is_parsed_again_and_replaced(tmp_path):
    path = tmp_path / CACHE_NAME.format(digest=bundled_digest())
    path.write_bytes(b"not a pickle")
    bundles = load_bundled_cached(tmp_path)
    assert len(bundles) == 9
    assert [b.name for b in pickle.loads(path.read_bytes())] == [b.name for b in bundles]


def test_changed_content_gives_another_key(tmp_path, monkeypatch, bundles):
    before = bundled_digest()
    copy = tmp_path / "domains"
    shutil.copytree(bundles["gripper"].folder.parent, copy)
    monkeypatch.setattr(bundle_cache, "bundled_root", lambda: copy)
    assert bundled_digest() == before
    (copy / "gripper" / "domain.pddl").write_text(
        (copy / "gripper" / "domain.pddl").read_text(encoding="utf-8") + "\n; edited\n", encoding="utf-8")
    assert bundled_digest() != before
