"""Whole-domain drafting on a real tiny llama.cpp model and real K*: D' assembled, judged, recorded."""

from __future__ import annotations

import pytest

from domain_drafter.core.bundle import load_bundle_path, load_bundled
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.drafting.loop import DraftOptions
from domain_drafter.drafting.whole_domain import draft_domain
from domain_drafter.drafting.workspace import WorkingCopy
from domain_drafter.planning.domain_compare import DomainVerdict


def test_failed_actions_are_listed_and_left_out(tiny_backend, evaluator, bundles, tmp_path):
    bundle = bundles["blocksworld"]
    copy = WorkingCopy.from_bundle(bundle)
    copy.save(tmp_path / "bw")
    started: list[str] = []
    result = draft_domain(bundle, tiny_backend, evaluator, load_bundled(), workspace=copy,
                          on_action_start=lambda i, n, name: started.append(name))
    assert started == list(bundle.action_names)
    assert [o.name for o in result.outcomes] == list(bundle.action_names)
    # random weights write no valid action: every one fails the checks and is left out of D'
    assert result.failed == bundle.action_names and result.candidate.actions == ()
    assert result.comparison.verdict is DomainVerdict.INCOMPLETE
    assert result.comparison.missing == bundle.action_names
    assert result.comparison.message.startswith("the candidate has no pick-up, put-down, stack, unstack;")
    assert result.to_dict()["failed_checks"] == list(bundle.action_names)
    again = WorkingCopy.open(tmp_path / "bw")
    assert [e.state for e in again.entries.values()] == ["drafted"] * 4   # attempts kept, nothing accepted
    assert load_bundle_path(tmp_path / "bw").domain == bundle.domain


def test_grammar_mode_yields_a_complete_domain_judged_as_a_whole(tiny_backend, evaluator, bundles, tmp_path):
    bundle = bundles["blocksworld"]
    copy = WorkingCopy.from_bundle(bundle)
    copy.save(tmp_path / "bw")
    result = draft_domain(bundle, tiny_backend, evaluator, load_bundled(), DraftOptions(grammar=True), workspace=copy)
    assert result.failed == ()
    assert [a.name for a in result.candidate.actions] == list(bundle.action_names)
    comparison = result.comparison
    assert comparison.verdict in (DomainVerdict.EQUIVALENT, DomainVerdict.DIFFERENT)
    if comparison.verdict is DomainVerdict.DIFFERENT and comparison.divergence is not None:
        assert comparison.divergence.action in comparison.changed   # the blame falls on a drafted action
    # the proof ran over all drafted actions at once (the evaluator's default mode is proven)
    assert comparison.proof is not None and comparison.proof.problems == len(bundle.problems)
    if comparison.proven and comparison.proof.counterexample is not None:
        blamed = comparison.proof.counterexample.state.step.strip("()").split()[0]
        assert blamed in comparison.changed and comparison.verdict is DomainVerdict.DIFFERENT
    assert result.are_defined == 4
    assert result.are_total == sum(o.evaluation.are.total for o in result.outcomes)
    saved = load_bundle_path(tmp_path / "bw")
    assert saved.domain.actions == result.candidate.actions     # every passing action was accepted and saved


def test_stop_between_actions_keeps_what_was_drafted(tiny_backend, evaluator, bundles, tmp_path):
    bundle = bundles["gripper"]
    copy = WorkingCopy.from_bundle(bundle)
    copy.save(tmp_path / "g")
    task = TaskState()
    with pytest.raises(Cancelled):
        draft_domain(bundle, tiny_backend, evaluator, load_bundled(), workspace=copy, task=task,
                     on_action=lambda outcome: task.cancel())
    states = [e.state for e in WorkingCopy.open(tmp_path / "g").entries.values()]
    assert states == ["drafted", "reference", "reference"]
