"""The plain functions the workers run, and how results are put into words and marks (no widgets)."""

from __future__ import annotations

import shutil

import pytest

from domain_drafter.core.answers import check_answer
from domain_drafter.core.are import action_reconstruction_error
from domain_drafter.core.errors import DomainError, ModelError
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.gui.jobs import ModelHolder, load_startup, open_bundle
from domain_drafter.gui.presentation import (
    EXTRA,
    MISSING,
    are_panes,
    counterexample_title,
    failing_row,
    parameter_lines,
    renaming_note,
)
from domain_drafter.gui.workers import TaskWorker
from domain_drafter.llm.models import ModelEntry
from domain_drafter.planning.equivalence import Counterexample
from domain_drafter.planning.validator import FailureKind, PlanStatus, PlanValidation


def test_startup_lists_nine_domains_and_the_default_model(private_homes):
    progress = []
    data = load_startup(task=TaskState(on_progress=lambda *a: progress.append(a)))
    assert len(data.bundles) == 9
    assert any(m.source == "default" for m in data.models)
    assert progress[-1][:2] == (2, 2)


def test_open_bundle_raises_what_the_window_reports(tmp_path):
    with pytest.raises(DomainError, match="no domain.pddl"):
        open_bundle(tmp_path, task=TaskState())


def test_model_holder_keeps_one_model_and_switches(tiny_model, tmp_path):
    other = tmp_path / "other.gguf"
    shutil.copy(tiny_model, other)
    holder = ModelHolder()
    first_entry = ModelEntry("tiny", tiny_model, tiny_model.stat().st_size, "path")
    first = holder.get(first_entry, TaskState())
    assert holder.get(first_entry, TaskState()) is first
    second = holder.get(ModelEntry("other", other, other.stat().st_size, "path"), TaskState())
    assert second is not first and holder.loaded_path == other
    with pytest.raises(ModelError):
        first.tokenize("x")   # closed when the other one loaded
    holder.close()
    assert holder.loaded_path is None


def test_model_holder_does_not_load_for_a_cancelled_task(tiny_model):
    task = TaskState()
    task.cancel()
    with pytest.raises(Cancelled):
        ModelHolder().get(ModelEntry("tiny", tiny_model, 0, "path"), task)


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
        "               ?from ?to - place)"]
    assert parameter_lines([]) == ["  :parameters ()"]
