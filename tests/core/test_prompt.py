"""The prompt has METHOD 3's layout, examples from other domains, and is reproducible."""

from __future__ import annotations

import re

import pytest

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.core.errors import DomainError
from domain_drafter.core.prompt import build_prompt, load_template

INSTRUCTION = ("Given a description of an action in some domain, convert it to Planning Domain Definition Language "
               "(PDDL) action. You may only use the allowed predicates provided for each action.")


def test_blocksworld_put_down_base_seed0_has_the_paper_layout(bundles):
    prompt = build_prompt(bundles["blocksworld"], "put-down", load_bundled(), DescriptionClass.BASE, seed=0)
    text = prompt.text
    assert text.startswith(INSTRUCTION + "\n\n")
    assert text.count("Allowed Predicates:\n") == 4
    assert text.count("\n\nInput:\n") == 4
    assert text.count("\n\nPDDL Action:\n") == 4
    assert text.endswith("PDDL Action:\n")
    assert len(prompt.examples) == 3
    assert all(e.domain != "blocksworld" for e in prompt.examples)
    # each example block ends with its action, the query with the header
    blocks = text[len(INSTRUCTION) + 2:].split("\n\nAllowed Predicates:\n")
    for example, block in zip(prompt.examples, blocks):
        assert block.rstrip().endswith(example.pddl.rstrip())
    query = blocks[-1]
    assert "(holding ?x - block) : the hand is holding block ?x" in query
    assert prompt.description in query
    assert re.search(r"^\(:action", query, re.M) is None


@pytest.mark.parametrize("cls", list(DescriptionClass))
def test_examples_use_the_same_description_class_as_the_query(bundles, cls):
    prompt = build_prompt(bundles["gripper"], "pick", load_bundled(), cls, seed=3)
    assert prompt.description_class is cls
    for example in prompt.examples:
        b = bundles[example.domain]
        from domain_drafter.core.descriptions import describe_action
        assert example.description == describe_action(b.domain, b.descriptions, example.action, cls, 3)


def test_same_seed_same_prompt_other_seed_other_examples(bundles):
    pool = load_bundled()
    a = build_prompt(bundles["miconic"], "up", pool, seed=11)
    assert a == build_prompt(bundles["miconic"], "up", pool, seed=11)
    drawn = {tuple((e.domain, e.action) for e in build_prompt(bundles["miconic"], "up", pool, seed=s).examples)
             for s in range(10)}
    assert len(drawn) > 5


def test_examples_are_drawn_from_every_other_domain_over_many_seeds(bundles):
    pool = load_bundled()
    seen = {e.domain for s in range(200) for e in build_prompt(bundles["hiking"], "walk", pool, seed=s).examples}
    assert seen == {b.name for b in pool} - {"hiking"}


def test_edited_template_changes_the_prompt(tmp_path, bundles):
    path = tmp_path / "prompt.toml"
    path.write_text('instruction = "Write PDDL."\nblock = "P:\\n{predicates}\\nD: {description}\\nA: {action}"\n')
    prompt = build_prompt(bundles["blocksworld"], "stack", load_bundled(), template=load_template(path))
    assert prompt.text.startswith("Write PDDL.\n\nP:\n")
    assert prompt.text.endswith("A:\n")


def test_template_missing_a_placeholder_is_a_clear_error(tmp_path):
    path = tmp_path / "prompt.toml"
    path.write_text('instruction = "x"\nblock = "{predicates} {description}"\n')
    with pytest.raises(DomainError, match=r"misses \{action\}"):
        load_template(path)


def test_predicate_text_holding_a_placeholder_name_is_not_spliced(tmp_path, bundles):
    import shutil

    from domain_drafter.core.bundle import load_bundle

    folder = tmp_path / "mine"
    shutil.copytree(bundles["blocksworld"].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "descriptions.toml"
    path.write_text(path.read_text().replace('text = "nothing is on top of block {x}"',
                                             'text = "nothing is on top of block {x} (see {{description}})"'))
    bundle = load_bundle(folder)
    prompt = build_prompt(bundle, "put-down", load_bundled(), DescriptionClass.BASE, seed=0)
    query = prompt.text.rsplit("Allowed Predicates:\n", 1)[1]
    assert "(clear ?x - block) : nothing is on top of block ?x (see {description})\n" in query
    assert query.count(prompt.description) == 1


def test_template_is_rendered_in_one_pass(tmp_path, bundles):
    path = tmp_path / "prompt.toml"
    path.write_text('instruction = "Write PDDL."\nblock = "{description}|{predicates}|{action}|{{literal}}"\n')
    template = load_template(path)
    assert template.render_block("P {action}", "D {predicates}", "A") == "D {predicates}|P {action}|A|{literal}"
    assert template.render_feedback("use {diagnostic} {x}").count("use {diagnostic} {x}") == 1


@pytest.mark.parametrize(("body", "words"), [
    ('instruction = "x"\nblock = "{predicates} {description} {action} {example}"\n', ["{example}", "block"]),
    ('instruction = "x"\nblock = "{predicates} {description {action}"\n', ["block", "brace"]),
    ('instruction = 3\nblock = "{predicates} {description} {action}"\n', ["instruction", "string"]),
    ('instruction = "x"\nblock = "{predicates} {description} {action}"\nfeedback = "try again {reason}"\n',
     ["feedback", "{diagnostic}"]),
    ('instruction = "x"\nblock = "{predicates} {description} {action}"\nseparator = 2\n', ["separator", "string"]),
    ('instruction = "x"\nblock = "{predicates} {description} {action}"\nfooter = "bye"\n', ["'footer'"]),
])
def test_malformed_template_is_a_domain_error_with_file_and_line(tmp_path, body, words):
    path = tmp_path / "prompt.toml"
    path.write_text(body)
    with pytest.raises(DomainError) as err:
        load_template(path)
    assert err.value.where.path == path and err.value.where.line >= 1
    assert err.value.message.startswith(f"{path}:{err.value.where.line}:")
    for word in words:
        assert word in err.value.what


def test_non_utf8_template_is_a_domain_error(tmp_path):
    path = tmp_path / "prompt.toml"
    path.write_bytes(b'instruction = "\xff"\nblock = "{predicates} {description} {action}"\n')
    with pytest.raises(DomainError, match="not UTF-8"):
        load_template(path)
