"""Loading bundles: bundled ones, a user's folder, a bare domain.pddl, and clear errors for bad ones."""

from __future__ import annotations

import shutil

import pytest

from domain_drafter.core.bundle import bundled_names, load_bundle
from domain_drafter.core.errors import DomainError, PddlSyntaxError, SourceLocation, UsageError


@pytest.fixture
def user_folder(tmp_path, bundles):
    folder = tmp_path / "my-blocks"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_bundled_names_are_the_nine_domains():
    assert bundled_names() == ["blocksworld", "depot", "gripper", "heavy-pack", "hiking", "logistics", "miconic",
                               "track-building", "trap-newspapers"]


def test_user_folder_loads_like_a_bundled_one(user_folder, bundles):
    bundle = load_bundle(user_folder)
    assert bundle.name == "my-blocks"
    assert bundle.domain == bundles["blocksworld"].domain
    assert len(bundle.problems) == 2
    assert bundle.require_descriptions() is bundle.descriptions


def test_bare_domain_file_loads_and_says_descriptions_and_problems_are_missing(user_folder, tmp_path):
    bare = tmp_path / "elsewhere.pddl"
    shutil.copy(user_folder / "domain.pddl", bare)
    bundle = load_bundle(bare)
    assert bundle.descriptions is None and bundle.problems == ()
    with pytest.raises(DomainError, match=r"no descriptions\.toml"):
        bundle.require_descriptions()
    with pytest.raises(DomainError, match="no problems"):
        bundle.require_problems()


def test_missing_descriptions_entries_are_listed(user_folder):
    path = user_folder / "descriptions.toml"
    path.write_text(path.read_text().replace("[actions.stack]", "[actions.stack-up]"))
    with pytest.raises(DomainError) as err:
        load_bundle(user_folder).require_descriptions()
    assert "no [actions.stack] summary" in str(err.value)


def test_domain_syntax_error_names_file_line_and_column(user_folder):
    path = user_folder / "domain.pddl"
    lines = path.read_text().splitlines()
    index = next(i for i, l in enumerate(lines) if ":precondition" in l)
    lines[index] = lines[index].replace(":precondition", ":precondition :precondition")
    path.write_text("\n".join(lines))
    with pytest.raises(PddlSyntaxError) as err:
        load_bundle(user_folder)
    where = err.value.where
    assert isinstance(where, SourceLocation)
    assert where.path == path and where.line == index + 1
    assert f"{path}:{index + 1}:" in err.value.message


def test_domain_with_undeclared_predicate_in_an_action_is_located(user_folder):
    path = user_folder / "domain.pddl"
    text = path.read_text()
    path.write_text(text.replace("(handempty)\n    )\n    :effect (and\n      (holding", "(arm-free)\n    )\n    :effect (and\n      (holding", 1))
    with pytest.raises(DomainError) as err:
        load_bundle(user_folder)
    assert "arm-free" in err.value.message
    assert err.value.where.line == text[:text.index("(handempty)\n    )\n    :effect (and\n      (holding")].count("\n") + 1


def test_problem_with_unknown_object_is_rejected_with_the_file(user_folder):
    problem = sorted((user_folder / "problems").glob("*.pddl"))[0]
    problem.write_text(problem.read_text().replace("(:init", "(:init (clear zz)", 1))
    with pytest.raises(DomainError, match="zz") as err:
        load_bundle(user_folder)
    assert str(problem) in err.value.message


def test_unsupported_requirement_is_refused_with_the_supported_list(user_folder):
    path = user_folder / "domain.pddl"
    path.write_text(path.read_text().replace(":typing", ":typing :conditional-effects"))
    with pytest.raises(DomainError, match=":conditional-effects") as err:
        load_bundle(user_folder)
    assert ":negative-preconditions" in err.value.message


def test_unknown_name_lists_the_bundled_domains():
    with pytest.raises(UsageError) as err:
        load_bundle("blockworld")
    assert "blocksworld" in err.value.message and err.value.exit_code == 2


def test_unknown_action_lists_the_valid_ones(bundles):
    with pytest.raises(UsageError, match="pick-up, put-down, stack, unstack"):
        bundles["blocksworld"].require_action("putdown")


def test_not_utf8_file_is_a_clear_error(tmp_path):
    path = tmp_path / "domain.pddl"
    path.write_bytes(b"(define (domain x) \xff\xfe)")
    with pytest.raises(DomainError, match="not UTF-8"):
        load_bundle(path)


def test_a_loaded_bundle_is_reused_from_the_disk_cache_until_a_file_changes(user_folder, tmp_path, monkeypatch):
    import domain_drafter.core.reader as reader

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    first = load_bundle(user_folder)
    calls = []
    monkeypatch.setattr(reader, "read_domain", lambda *a, **k: calls.append(a) or (_ for _ in ()).throw(
        AssertionError("parsed again")))
    again = load_bundle(user_folder)  # from the cache: the parser is never called
    assert again == first and again is not first and calls == []
    monkeypatch.undo()
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    path = user_folder / "descriptions.toml"
    path.write_text(path.read_text().replace("[actions.stack]", "[actions.stack-up]"))
    changed = load_bundle(user_folder)
    assert "stack-up" in changed.descriptions.actions and "stack-up" not in first.descriptions.actions
    entries = list((tmp_path / "cache" / "bundles").iterdir())
    assert len(entries) == 2
    entries[0].write_bytes(b"not a pickle")
    entries[1].write_bytes(b"not a pickle")
    assert load_bundle(user_folder) == changed  # damaged entries are misses, rebuilt


def test_a_type_cycle_is_refused_naming_the_cycle(tmp_path):
    from domain_drafter.core.bundle import load_bundle
    from domain_drafter.core.errors import DomainError

    (tmp_path / "domain.pddl").write_text(
        "(define (domain loop) (:requirements :strips :typing)\n"
        "  (:types crate - box box - crate thing)\n"
        "  (:predicates (at ?x - thing))\n"
        "  (:action touch :parameters (?x - thing) :precondition (at ?x) :effect (not (at ?x))))\n")
    with pytest.raises(DomainError) as caught:
        load_bundle(tmp_path)
    assert "the types form a cycle: crate - box" in caught.value.message
    assert str(tmp_path / "domain.pddl") in caught.value.message
