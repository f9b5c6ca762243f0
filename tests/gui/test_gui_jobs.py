"""The plain functions the workers run, and how results are put into words and marks (no widgets)."""

from __future__ import annotations

import shutil

import pytest

from domain_drafter.core.answers import check_answer
from domain_drafter.core.are import action_reconstruction_error
from domain_drafter.core.errors import DomainError, ModelError
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.gui.panels.result_display import (
    EXTRA,
    MISSING,
    are_panes,
    counterexample_title,
    failing_row,
    parameter_lines,
    renaming_note,
)
from domain_drafter.gui.state.jobs import load_startup, open_bundle
from domain_drafter.gui.state.workers import TaskWorker
from domain_drafter.llm.model_library import ModelLibrary
from domain_drafter.llm.models import ModelEntry, list_models
from domain_drafter.planning.equivalence import Counterexample
from domain_drafter.planning.validator import FailureKind, PlanStatus, PlanValidation


def test_startup_lists_nine_domains_and_the_default_model(private_homes):
    progress = []
    data = load_startup(task=TaskState(on_progress=lambda *a: progress.append(a)))
    assert len(data.bundles) == 9
    assert any(m.source == "default" for m in data.models)
    assert progress[-1][:2] == (2, 2)


def test_open_bundle_raises_what_the_window_reports(tmp_path):
    with pytest.raises(DomainError, match=r"no domain\.pddl"):
        open_bundle(tmp_path, task=TaskState())


def entry_of(path) -> ModelEntry:
    return ModelEntry(path.stem, path, path.stat().st_size, "path")


def test_a_leased_model_stays_loaded_across_a_switch_and_closes_when_let_go(tiny_model, tmp_path):
    other = tmp_path / "other.gguf"
    shutil.copy(tiny_model, other)
    library = ModelLibrary()
    first = library.acquire(entry_of(tiny_model), TaskState())
    again = library.acquire(entry_of(tiny_model), TaskState())
    assert again.backend is first.backend and library.users() == 2
    again.release()
    second = library.acquire(entry_of(other), TaskState())        # a switch: new jobs get the other model
    assert second.backend is not first.backend and library.loaded_path == other
    assert library.is_loaded(entry_of(other)) and not library.is_loaded(entry_of(tiny_model))
    assert first.backend.tokenize("x")                            # still open for the job that holds it
    first.release()
    with pytest.raises(ModelError):
        first.backend.tokenize("x")                               # closed once its last job let it go
    second.release()
    assert second.backend.tokenize("x")                           # the current model stays loaded, unused
    library.close()
    with pytest.raises(ModelError):
        second.backend.tokenize("x")
    assert library.loaded_path is None


def test_is_loaded_is_exact_for_the_default_entry(tiny_model, private_homes):
    library = ModelLibrary()
    default = next(m for m in list_models() if m.source == "default")
    with library.acquire(entry_of(tiny_model), TaskState()):
        assert library.is_loaded(entry_of(tiny_model)) and not library.is_loaded(default)
        library.n_threads = 1                                     # other threads: a new load for new jobs
        assert not library.is_loaded(entry_of(tiny_model))
    library.close()


def test_the_library_does_not_load_for_a_cancelled_task(tiny_model):
    task = TaskState()
    task.cancel()
    with pytest.raises(Cancelled):
        ModelLibrary().acquire(entry_of(tiny_model), task)


def test_huge_progress_numbers_are_scaled_for_the_int_signal(qtbot):
    worker = TaskWorker(lambda *, task: task.report(3 * 2**31, 6 * 2**31, "bytes"))
    with qtbot.waitSignal(worker.signals.progress, timeout=2000) as blocker:
        worker.run()
    done, total, message = blocker.args
    assert total <= 2**31 - 1 and done * 2 in (total, total - 1) and message == "bytes"


def test_are_panes_mark_missing_reference_lines_and_extra_generated_lines(bundles):
    domain = bundles["gripper"].domain
    reference = domain.action("pick")
    text = "(:action pick :parameters (?b - ball ?r - room ?h - gripper) " \
           ":precondition (and (at ?b ?r) (free ?h) (free left)) :effect (and (carry ?b ?h) (not (at ?b ?r))))"
    generated = check_answer(text, domain, "pick").action
    are = action_reconstruction_error(reference, generated)
    ref_lines, gen_lines = are_panes(reference, generated, are)
    assert [l.text.strip() for l in ref_lines if l.mark == MISSING] == ["(at-robby ?room)", "(not (free ?g))"]
    assert [l.text.strip() for l in gen_lines if l.mark == EXTRA] == ["(free left)"]
    assert {l.mark for l in ref_lines} <= {None, MISSING} and {l.mark for l in gen_lines} <= {None, EXTRA}
    assert renaming_note(are) == "compared with ?b as ?obj, ?r as ?room, ?h as ?g"


def test_counterexample_words_and_failing_rows():
    bad_step = PlanValidation(PlanStatus.INVALID, FailureKind.PRECONDITION, 2, "(b)", ("(p)",), "step 2: (p)")
    goal = PlanValidation(PlanStatus.INVALID, FailureKind.GOAL, None, None, ("(g)",), "goal not reached")
    opapp = Counterexample("p01", "reference-in-generated", ("(a)", "(b)"), bad_step)
    npapp = Counterexample("p02", "generated-in-reference", ("(a)",), goal)
    noplan = Counterexample("p01", "generated-in-reference", planner_status="timeout")
    assert failing_row(opapp) == 1 and failing_row(npapp) == 1 and failing_row(noplan) is None
    assert "reference domain, replayed in the generated" in counterexample_title(opapp)
    assert "generated domain, replayed in the reference" in counterexample_title(npapp)
    assert "timed out" in counterexample_title(noplan)


def test_long_parameter_lists_get_one_typed_group_a_line():
    assert parameter_lines(["?x", "-", "block"]) == ["  :parameters (?x - block)"]
    assert parameter_lines(["?truck", "-", "truck", "?from", "?to", "-", "place"]) == [
        "  :parameters (?truck - truck",
        "    ?from ?to - place)"]   # a short indent: a narrow pane (the Candidates dock open) wraps no group
    assert parameter_lines([]) == ["  :parameters ()"]


def test_the_library_loads_a_catalogue_chat_model_in_chat_format_and_reloads_on_a_format_change(tmp_path,
                                                                                                 private_homes):
    from tiny_gguf import CHATML_TEMPLATE, write_tiny_llama

    # a tiny model with a chat template, under the file name the catalogue lists as a chat model
    chat = write_tiny_llama(tmp_path / "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", chat_template=CHATML_TEMPLATE)
    library = ModelLibrary()
    with library.acquire(entry_of(chat), TaskState()) as lease:
        assert lease.backend.prompt_format == "chat" and library.loaded_prompt_format == "chat"
        assert library.is_loaded(entry_of(chat))
        library.prompt_format = "completion"                      # Settings > Prompt format: new jobs reload
        assert not library.is_loaded(entry_of(chat))
    with library.acquire(entry_of(chat), TaskState()) as lease:
        assert lease.backend.prompt_format == "completion"
    library.close()
