"""The app's one state: every engine option built from the one settings object, typed change signals,
the evaluator rebuilt only when its options change, what runs by owner, the prompt template read once."""

from __future__ import annotations

import os
import threading
from dataclasses import replace

from domain_drafter.core.descriptions import DescriptionClass
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.gui.state.app_state import AppState
from domain_drafter.gui.state.settings import AppSettings, load_settings
from domain_drafter.gui.state.workers import JobKind, TaskRunner, TaskWorker
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.planning.evaluate import EvaluationOptions
from domain_drafter.planning.proof_types import EquivalenceMode


def test_defaults_are_the_engine_dataclasses_own(qtbot):
    state = AppState(AppSettings())
    assert state.draft_options() == DraftOptions()
    assert state.draft_options().decoding == DecodingOptions()
    assert state.evaluation_options() == EvaluationOptions()
    state.close()


def test_options_follow_the_settings_and_the_chosen_class_and_seed(qtbot, private_homes):
    state = AppState(AppSettings(examples=1, max_new_tokens=50, equivalence="paper", k=5))
    changed = []
    state.target_changed.connect(lambda: changed.append("target"))
    state.set_description(DescriptionClass.RANDOM, 4)
    options = state.draft_options()
    assert (options.description_class, options.seed, options.examples, options.decoding.max_tokens) == \
        (DescriptionClass.RANDOM, 4, 1, 50)
    assert state.evaluator.options.equivalence is EquivalenceMode.PAPER and state.evaluator.planner.k == 5
    first = state.evaluator
    with_seed = []
    state.settings_changed.connect(with_seed.append)
    assert state.update_settings(replace(state.settings, seed=9))
    assert state.evaluator is first                        # not an evaluation option: the same evaluator
    assert state.update_settings(replace(state.settings, k=6))
    assert state.evaluator is not first and state.evaluator.planner.k == 6
    assert changed == ["target"] and [s.k for s in with_seed] == [5, 6] and load_settings().k == 6
    state.close()


def test_what_runs_is_known_by_owner_and_kind(qtbot):
    state = AppState(AppSettings())
    main, authoring = TaskRunner(), TaskRunner()
    state.track(main, "main")
    state.track(authoring, "authoring")
    release = threading.Event()
    with qtbot.waitSignal(state.running_changed):
        authoring.start(TaskWorker(lambda *, task: release.wait(5), kind=JobKind.DRAFT_ALL))
    assert state.running() and state.running("authoring", JobKind.DRAFT_ALL)
    assert not state.running("main") and not state.running("authoring", JobKind.JUDGE)
    release.set()
    qtbot.waitUntil(lambda: not state.running(), timeout=5000)
    state.close()


def test_the_prompt_template_is_read_again_only_when_its_file_changes(qtbot, private_homes, bundles):
    from domain_drafter.core.paths import config_dir
    from domain_drafter.core.prompt import default_template_path

    state = AppState(AppSettings())
    shipped = default_template_path().read_text(encoding="utf-8")
    assert state.prompt_template() is state.prompt_template()
    mine = config_dir() / "prompt.toml"
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(shipped.replace("Given a description", "Given a short description", 1), encoding="utf-8")
    try:
        state.set_bundles(list(bundles.values()))
        state.set_target(bundles["gripper"], "pick")
        assert state.prompt().text.startswith("Given a short description")
        before = state.prompt_template()
        mine.write_text(shipped, encoding="utf-8")
        os.utime(mine, ns=(1, 1))                          # another stamp, whatever the clock's resolution
        assert state.prompt_template() is not before and state.prompt().text.startswith("Given a description")
    finally:
        mine.unlink()
    state.close()
