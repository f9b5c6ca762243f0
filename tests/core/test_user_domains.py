"""The user's copies of bundled domains (the bundled ones are read-only to the app)."""

from __future__ import annotations

from domain_drafter.core.bundle import bundled_root, load_bundle_path, load_bundled
from domain_drafter.core.user_domains import ensure_user_copy, is_bundled, user_copy_folder


def test_a_bundled_domain_is_copied_once_and_its_copy_reads_as_a_domain(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    bundle = next(b for b in load_bundled() if b.name == "blocksworld")
    assert is_bundled(bundle.folder) and is_bundled(bundle.folder / "problems" / "p01.pddl")
    copy = ensure_user_copy(bundle)
    assert copy == user_copy_folder(bundle) == tmp_path / "domains" / "blocksworld" and not is_bundled(copy)
    copied = load_bundle_path(copy)
    assert copied.domain_text == bundle.domain_text and len(copied.problems) == len(bundle.problems)
    (copy / "problems" / "p99.pddl").write_text((copy / "problems" / "p01.pddl").read_text())
    assert ensure_user_copy(bundle) == copy and (copy / "problems" / "p99.pddl").is_file()   # kept as it is
    assert not (bundled_root() / "blocksworld" / "problems" / "p99.pddl").exists()
