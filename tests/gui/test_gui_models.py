"""The Qt item models, checked by pytest-qt's qtmodeltester (Qt's QAbstractItemModelTester) and by content."""

from __future__ import annotations

from PySide6.QtCore import Qt

from domain_drafter.core.answers import check_answer
from domain_drafter.core.are import action_reconstruction_error
from domain_drafter.gui.panels.item_models import (
    AreTableModel,
    FailingRole,
    FindingListModel,
    PlanStepListModel,
    PredicateTableModel,
    SpanRole,
    predicate_rows,
)

PICK_MUTANT_EXTRA = "(free left)"


def test_predicate_table_model(qtmodeltester, bundles):
    model = PredicateTableModel(predicate_rows(bundles["blocksworld"]))
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == len(bundles["blocksworld"].domain.predicates)
    cells = {model.data(model.index(r, 0)): model.data(model.index(r, 1)) for r in range(model.rowCount())}
    assert cells["(on ?x ?y - block)"] == "block ?x is on top of block ?y"
    assert model.headerData(2, Qt.Orientation.Horizontal) == "When false"
    model.set_rows([])   # the tester keeps watching the model: the reset is checked too
    assert model.rowCount() == 0


def test_finding_list_model(qtmodeltester, bundles):
    pick = bundles["gripper"].domain.action("pick").to_pddl()
    answer = pick.replace("(free ?g)", "(empty ?g)", 1).replace("?room)", "?hall)", 1)
    report = check_answer(answer, bundles["gripper"].domain, "pick")
    model = FindingListModel(report.findings)
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == len(report.findings) >= 2
    first = model.index(0, 0)
    assert model.data(first).startswith(report.findings[0].subclass.value + ": ")
    assert model.data(first, SpanRole) == report.findings[0].span


def test_plan_step_list_model_marks_the_failing_step_and_a_goal_row(qtmodeltester):
    model = PlanStepListModel()
    qtmodeltester.check(model, force_py=True)
    model.set_plan(["(a)", "(b)", "(c)"], 1, "step 2: precondition (p) not satisfied")
    assert [model.data(model.index(r, 0), FailingRole) for r in range(3)] == [False, True, False]
    assert model.data(model.index(1, 0)) == "2. (b)  ✗"
    assert model.data(model.index(1, 0), Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    model.set_plan(["(a)"], 1, "goal not reached")
    assert model.rowCount() == 2 and model.data(model.index(1, 0)).startswith("goal")


def test_are_table_model(qtmodeltester, bundles):
    domain = bundles["gripper"].domain
    reference = domain.action("pick")
    answer = reference.to_pddl().replace("(free ?g)", f"(free ?g) {PICK_MUTANT_EXTRA}", 1)
    generated = check_answer(answer, domain, "pick").action
    model = AreTableModel()
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 0 and model.total is None
    model.set_report(action_reconstruction_error(reference, generated))
    rows = [[model.data(model.index(r, c)) for c in range(4)] for r in range(model.rowCount())]
    assert rows == [["pre", "1", "", PICK_MUTANT_EXTRA], ["add", "0", "", ""], ["del", "0", "", ""],
                    ["total", "1", "", ""]]
    assert model.total == 1


def test_predicate_rows_without_descriptions_are_empty_texts(bundles):
    from dataclasses import replace

    bare = replace(bundles["gripper"], descriptions=None)
    rows = predicate_rows(bare)
    assert [r.signature for r in rows] == [str(p) for p in bare.domain.predicates]
    assert all(r.text == "" for r in rows)

