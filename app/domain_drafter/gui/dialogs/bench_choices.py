"""The Benchmark dialog's choices that need more than a checkbox: strategies, generator processes, the run's size.

The strategies a run compares at equal cost (bench/strategies.py) are a grid of checkboxes, one column of
the report each; the generator processes are a count with "automatic" for zero; the size line says how many
tasks the choices make and how many processes will generate them.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QGridLayout, QSpinBox, QWidget

from domain_drafter.bench.runner import generator_count
from domain_drafter.bench.spec import STRATEGIES, ExperimentSpec
from domain_drafter.core.errors import DrafterError
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.settings import AppSettings

GRAMMAR_CHOICES = {"free decoding": (False,), "grammar": (True,), "both, side by side": (False, True)}
STRATEGY_LABELS = {"one-shot": "one-shot", "retries": "linear retries", "best-of": "best-of-N", "search": "search",
                   "guided-search": "guided search"}
STRATEGY_TIPS = {
    "one-shot": "The paper's protocol: one greedy answer per prompt",
    "retries": "Corrective rounds: the last answer and its feedback, greedy, up to the search budget",
    "best-of": "One greedy answer per prompt seed, up to the search budget; the best is kept",
    "search": "Draft until proven: best-first search over answers and their feedback, up to the search budget",
    "guided-search": "The search, with no call writing an answer judged before (uses the reference; reported apart)",
}
NO_SPEC = "None: the run is the choices below, with the options of the settings."


def strategy_checks() -> dict[str, QCheckBox]:
    """One checkbox per strategy, one-shot ticked (the paper's protocol)."""
    checks = {name: QCheckBox(STRATEGY_LABELS[name]) for name in STRATEGIES}
    checks["one-shot"].setChecked(True)
    for name, box in checks.items():
        box.setObjectName(f"strategy-{name}")
        box.setToolTip(STRATEGY_TIPS[name])
    return checks


def strategy_grid(checks: dict[str, QCheckBox]) -> QGridLayout:
    grid = QGridLayout()
    for i, box in enumerate(checks.values()):
        grid.addWidget(box, i // 3, i % 3)
    return grid


def generators_spin(parent: QWidget | None = None) -> QSpinBox:
    """Processes that generate with a local model: 0 ("automatic") leaves it to the engine, which fills the machine."""
    spin = QSpinBox(parent, minimum=0, maximum=64, value=0)
    spin.setSpecialValueText("automatic")
    spin.setToolTip("Processes that generate with a local model, each with its own copy of it. "
                    "Automatic: the cores divided by the settings' threads "
                    "(one when the threads are automatic). "
                    "A model behind an endpoint uses its own parallel requests instead. "
                    "It does not change the answers, so a run stopped with one count "
                    "resumes with another.")
    return spin


def size_text(spec: ExperimentSpec, actions: int) -> tuple[bool, str]:
    """(startable, the size line): the tasks the spec makes, its generator processes and any warning."""
    size = actions * len(spec.classes) * spec.prompts_per_action * len(spec.systems())
    valid = True
    try:
        n_generators, oversubscribed = generator_count(spec)
        generators = f"; {n_generators} generator process(es) for a local model" + (
            f". {oversubscribed}" if oversubscribed else "")
    except DrafterError as err:   # e.g. a spec file's generators with its batch
        valid, generators = False, f". {describe_error(err).message}"
    return valid, (f"{size} tasks: {actions} actions x {len(spec.classes)} class(es) x "
                   f"{spec.prompts_per_action} prompt(s) x {len(spec.systems())} system(s)" + generators)


def action_count(domain: str) -> int:
    """Actions of a bundled domain (loaded once per process); DrafterError if it does not load."""
    from domain_drafter.core.bundle import load_bundle

    return len(load_bundle(domain).action_names)


def settings_summary(s: AppSettings) -> str:
    return (f"{s.examples} examples, at most {s.max_new_tokens} new tokens, {s.retries} retries, "
            f"{s.equivalence} equivalence, k = {s.k}, {s.planner_time_limit_s:.0f} s planner limit, "
            f"first seed {s.seed}; strategies other than one-shot: at most {s.search_budget} model calls per action "
            f"(change them in Settings)")
