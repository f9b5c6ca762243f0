"""The defects a user met walking through the app (issue 23), one test each through the real widgets.

Real parts: the real main, authoring and Benchmark windows offscreen, the tiny real GGUF, the real engine.
"""

from __future__ import annotations

from domain_drafter.gui.panels.result_panel import COUNTEREXAMPLE_TAB, ResultPanel
from domain_drafter.planning.evaluate import EvaluationOptions, Evaluator


def test_the_verdict_tab_has_one_name_on_every_verdict(qtbot, bundles):
    bundle = bundles["blocksworld"]
    answer = ("(:action put-down :parameters (?x - block) :precondition (and (holding ?x)) "
              ":effect (and (ontable ?x) (handempty) (not (holding ?x))))")   # a paper counterexample plan
    with Evaluator(EvaluationOptions(equivalence="paper", use_verdict_cache=False)) as judge:
        result = judge.evaluate(bundle, "put-down", answer)
    assert result.proof is None and result.equivalence.counterexample is not None
    panel = ResultPanel()
    qtbot.addWidget(panel)
    assert panel.tabs.tabText(COUNTEREXAMPLE_TAB) == "Distinguishing state"
    panel.show_result(result, bundle.domain.action("put-down"))
    assert panel.tabs.tabText(COUNTEREXAMPLE_TAB) == "Distinguishing state"   # was "Counterexample"
