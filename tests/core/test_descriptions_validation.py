"""descriptions.toml is validated when it loads: shape, types, placeholders; each error names file:line."""

from __future__ import annotations

import shutil

import pytest

from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.descriptions import fill, load_descriptions
from domain_drafter.core.errors import DomainError, SourceLocation

GOOD = """\
[domain]
summary = "Stack blocks."

[predicates.handempty]
text = "the hand is empty"

[predicates.clear]
text = "nothing is on top of block {x}"
negated = "something is on top of block {x}"

[actions.pick-up]
summary = "The hand picks up block {x}."
"""

# (name, text, line of the culprit, words the message must hold)
MALFORMED = [
    ("predicates is a string", 'predicates = "x"\n\n[actions.pick-up]\nsummary = "The hand picks up {x}."\n',
     1, ["'predicates'", "table"]),
    ("action entry is a list", GOOD.replace('[actions.pick-up]\nsummary = "The hand picks up block {x}."',
                                            '[actions]\npick-up = ["The hand", "picks up {x}"]'),
     12, ["[actions.pick-up]", "string", "list"]),
    ("negated is a number", GOOD.replace('negated = "something is on top of block {x}"', "negated = 3"),
     9, ["[predicates.clear]", "negated", "string", "integer"]),
    ("text missing", GOOD.replace('text = "the hand is empty"', 'txt = "the hand is empty"'),
     5, ["[predicates.handempty]", "'txt'"]),
    ("unbalanced brace", GOOD.replace("block {x}\"\nnegated", "block {x\"\nnegated"),
     8, ["[predicates.clear]", "text", "brace"]),
    ("unknown top-level table", GOOD + '\n[predicate.on]\ntext = "block {x} is on {y}"\n',
     14, ["'predicate'", "domain, predicates, actions"]),
    ("summary is a table", GOOD.replace('summary = "The hand picks up block {x}."', "summary = { text = 1 }"),
     12, ["[actions.pick-up]", "summary", "string"]),
]


@pytest.mark.parametrize(("name", "text", "line", "words"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_descriptions_are_a_domain_error_at_their_line(tmp_path, name, text, line, words):
    path = tmp_path / "descriptions.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DomainError) as err:
        load_descriptions(path)
    assert isinstance(err.value.where, SourceLocation), err.value.message
    assert (err.value.where.path, err.value.where.line) == (path, line), err.value.message
    assert err.value.message.startswith(f"{path}:{line}:")
    assert err.value.exit_code == 3
    for word in words:
        assert word in err.value.what, err.value.what


def test_non_utf8_descriptions_name_the_line_of_the_bad_byte(tmp_path):
    path = tmp_path / "descriptions.toml"
    path.write_bytes(GOOD.encode().replace(b"nothing is on", b"nothing \xe9s on"))
    with pytest.raises(DomainError) as err:
        load_descriptions(path)
    assert (err.value.where.path, err.value.where.line) == (path, 8)
    assert "not UTF-8" in err.value.what


def test_good_descriptions_load(tmp_path):
    path = tmp_path / "descriptions.toml"
    path.write_text(GOOD, encoding="utf-8")
    loaded = load_descriptions(path)
    assert loaded.predicates["handempty"].negated == "it is not the case that the hand is empty"
    assert loaded.actions == {"pick-up": "The hand picks up block {x}."}


def test_a_bundle_with_malformed_descriptions_fails_to_load(tmp_path, bundles):
    folder = tmp_path / "mine"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "descriptions.toml"
    path.write_text(path.read_text().replace('negated = "the hand is not empty"', "negated = 3"))
    with pytest.raises(DomainError) as err:
        load_bundle(folder)
    assert err.value.message.startswith(f"{path}:8:")


def test_fill_is_one_pass_and_honours_escaped_braces():
    assert fill("block {x} is {{x}}", {"x": "{y}", "y": "b"}) == "block {y} is {x}"


def test_a_template_using_no_variable_of_its_predicate_is_located(tmp_path, bundles):
    folder = tmp_path / "mine"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "descriptions.toml"
    path.write_text(path.read_text().replace('text = "block {x} is on top of block {y}"',
                                             'text = "block {x} is on top of block {z}"'))
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if l == "[predicates.on]")
    with pytest.raises(DomainError) as err:
        load_bundle(folder).require_descriptions()
    assert err.value.message.startswith(f"{path}:{line}:")
    assert (f"descriptions.toml:{line}: [predicates.on] text uses {{z}}, but (on ?x ?y - block) "
            "has variables x, y") in err.value.what
