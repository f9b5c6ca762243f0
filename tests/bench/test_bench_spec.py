"""Experiment specs: the shipped ones materialise the paper's task counts; bad specs say what and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain_drafter.bench.spec import load_spec, spec_from_dict
from domain_drafter.core.errors import DomainError

EXPERIMENTS = Path(__file__).parents[2] / "resources" / "experiments"


def test_paper_experiment_1_is_60_base_prompts_per_action():
    spec = load_spec(EXPERIMENTS / "paper-exp1.toml")
    tasks = spec.tasks()
    assert len(tasks) == 32 * 60 * len(spec.systems())
    assert {t.description_class for t in tasks} == {"base"}
    assert len({t.key for t in tasks}) == len(tasks)


def test_paper_experiment_2_is_20_prompts_per_action_per_class():
    spec = load_spec(EXPERIMENTS / "paper-exp2.toml")
    tasks = spec.tasks()
    assert len(tasks) == 32 * 3 * 20 * len(spec.systems())
    assert {t.seed for t in tasks} == set(range(20))


def test_quick_spec_puts_both_decoding_modes_side_by_side():
    spec = load_spec(EXPERIMENTS / "quick.toml")
    assert [name for name in {t.system for t in spec.tasks()}] and len(spec.systems()) == 2
    assert len(spec.tasks()) == 2 * (4 + 3)   # blocksworld's 4 and gripper's 3 actions


def test_same_spec_same_tasks_in_the_same_order():
    a = load_spec(EXPERIMENTS / "paper-exp2.toml").tasks()
    b = load_spec(EXPERIMENTS / "paper-exp2.toml").tasks()
    assert [t.key for t in a] == [t.key for t in b]


def test_fingerprint_ignores_workers_but_not_the_task_set():
    spec = load_spec(EXPERIMENTS / "quick.toml")
    assert spec.with_overrides(workers=7).fingerprint == spec.fingerprint
    assert spec.with_overrides(prompts_per_action=2).fingerprint != spec.fingerprint


@pytest.mark.parametrize(("data", "message"), [
    ({"name": "x"}, "at least one [[models]]"),
    ({"models": [{"name": "a"}]}, "exactly one of 'model'"),
    ({"models": [{"model": "default", "endpoint": "http://x"}]}, "exactly one of 'model'"),
    ({"models": [{"model": "default", "colour": "red"}]}, "unknown key(s) colour"),
    ({"models": [{"model": "default"}], "prompts": 3}, "unknown key(s) prompts"),
    ({"models": [{"model": "default"}], "classes": ["sideways"]}, "unknown description class 'sideways'"),
    ({"models": [{"model": "default"}], "prompts_per_action": "ten"}, "'prompts_per_action' must be int"),
    ({"models": [{"model": "default"}, {"model": "default"}]}, "two models share a name"),
])
def test_bad_spec_says_what_is_wrong_and_where(data, message):
    with pytest.raises(DomainError) as err:
        spec_from_dict(data, where="exp.toml")
    assert message in err.value.what
    assert "exp.toml" in err.value.message


def test_spec_that_is_not_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = [unclosed\n", encoding="utf-8")
    with pytest.raises(DomainError) as err:
        load_spec(path)
    assert str(path) in err.value.message and "not valid TOML" in err.value.what
