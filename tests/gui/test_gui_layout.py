"""At 1280x800 every panel is visible, and for every bundled action the counterexample plan and the
reference/generated diff are readable without scrolling.

Each action's answer is the reference action without its first precondition (a real Different
domain: K* plans, the validator finds the counterexample); the results are computed with the real
Evaluator on two threads, then shown in the maximised window one after the other.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from gui_helpers import SCREEN_HEIGHT, SCREEN_WIDTH, select
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from domain_drafter.core.classes import ResultClass
from domain_drafter.gui.panels.result_panel import COUNTEREXAMPLE_TAB, DIFF_TAB


def fully_visible(widget: QWidget, window: QWidget) -> bool:
    """The widget is shown and lies entirely inside the window."""
    if not widget.isVisible() or widget.width() < 40 or widget.height() < 12:
        return False
    top_left = widget.mapTo(window, widget.rect().topLeft())
    bottom_right = widget.mapTo(window, widget.rect().bottomRight())
    return window.rect().contains(top_left) and window.rect().contains(bottom_right)


def needs_scrolling(view: QAbstractScrollArea) -> bool:
    return view.verticalScrollBar().maximum() > 0 or view.horizontalScrollBar().maximum() > 0


@pytest.fixture
def laptop_window(qtbot, window):
    window.showMaximized()
    qtbot.waitUntil(lambda: window.isMaximized() and window.width() == SCREEN_WIDTH)
    assert window.height() <= SCREEN_HEIGHT
    return window


def test_every_panel_is_visible_at_1280x800(qtbot, laptop_window):
    w = laptop_window
    select(qtbot, w, "logistics", "load-airplane")
    panels = [w.domain_panel.domain_list, w.domain_panel.action_list, w.description_panel.predicate_table,
              w.description_panel.description_view, w.answer_panel.editor, w.answer_panel.finding_list,
              w.result_panel.badge, w.result_panel.hint, w.toolbar.model_selector]
    assert [p.objectName() or type(p).__name__ for p in panels if not fully_visible(p, w)] == []
    assert w.result_panel.width() >= 420 and w.answer_panel.editor.width() >= 420


def test_counterexample_and_diff_fit_without_scrolling_for_every_action(qtbot, laptop_window, bundles):
    w = laptop_window
    w.state.update_settings(replace(w.app_settings, equivalence="paper"), save=False)   # the plan heuristic's views
    evaluator = w.state.evaluator

    def judge(target: tuple[str, str]):
        bundle = bundles[target[0]]
        action = bundle.domain.action(target[1])
        mutant = replace(action, precondition=action.precondition[1:])
        return target, evaluator.evaluate(bundle, target[1], mutant.to_pddl(indent=""))

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(judge, [(b.name, a) for b in bundles.values() for a in b.action_names]))
    assert len(results) == 32
    panel = w.result_panel
    scrolled, counterexamples = [], 0
    for (domain, action), result in results:
        select(qtbot, w, domain, action)
        w.drafts.show_result(result)
        qtbot.wait(1)   # let the layout settle
        if result.result_class is ResultClass.DIFFERENT_DOMAIN and result.equivalence.counterexample.plan:
            counterexamples += 1
            assert panel.tabs.currentIndex() == COUNTEREXAMPLE_TAB
            plan = panel.plan_view
            last = plan.visualRect(panel.plan_model.index(panel.plan_model.rowCount() - 1, 0))
            if needs_scrolling(plan) or last.bottom() > plan.viewport().height():
                scrolled.append(f"{domain}/{action}: counterexample plan")
            if not fully_visible(panel.plan_reason, w):
                scrolled.append(f"{domain}/{action}: failing step")
        panel.tabs.setCurrentIndex(DIFF_TAB)
        qtbot.wait(1)
        for view in (panel.reference_view, panel.generated_view):
            if needs_scrolling(view) or not fully_visible(view, w):
                scrolled.append(f"{domain}/{action}: {view.objectName()}")
        table = panel.are_table
        if table.isVisible() and table.rowViewportPosition(3) + table.rowHeight(3) > table.viewport().height():
            scrolled.append(f"{domain}/{action}: ARE table")
    assert scrolled == [], scrolled
    assert counterexamples >= 25   # nearly every mutant is a Different domain with a plan to show
