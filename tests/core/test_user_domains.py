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


def test_a_copy_without_a_tests_file_gets_the_bundled_cases_before_a_new_one(tmp_path, monkeypatch):
    """A copy made before the bundled domain shipped tests.toml: the first kept case must join the bundled
    cases, not start a file of its own that hides them from then on."""
    from domain_drafter.core.tests_files import tests_file_of, writable_tests_file

    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path))
    bundle = next(b for b in load_bundled() if b.name == "gripper")
    copy = ensure_user_copy(bundle)
    (copy / "tests.toml").unlink()                        # as an older copy has it
    assert tests_file_of(bundle) == bundle.folder / "tests.toml"
    target = writable_tests_file(bundle)
    assert target == copy / "tests.toml"
    assert target.read_text(encoding="utf-8") == (bundle.folder / "tests.toml").read_text(encoding="utf-8")
    target.write_text(target.read_text(encoding="utf-8") + "\n# a case of the user's\n", encoding="utf-8")
    assert writable_tests_file(bundle) == target and target.read_text(encoding="utf-8").endswith("user's\n")
