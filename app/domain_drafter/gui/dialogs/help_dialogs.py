"""Help ▸ About (the versions that matter in a bug report) and Help ▸ Result classes."""

from __future__ import annotations

import html
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from domain_drafter import __version__
from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.gui.look.colours import current_scheme
from domain_drafter.planning.evaluate import EquivalenceMode

# What each class and subclass means, in the order the checks decide them (METHOD 5).
CLASS_TEXT: dict[ResultClass, str] = {
    ResultClass.SYNTAX_ERROR: "The answer is not a PDDL action: the first failing check of the four.",
    ResultClass.SEMANTIC_ERROR: "The action parses but does not fit the domain's declarations.",
    ResultClass.DIFFERENT_DOMAIN: ("The action is valid PDDL, but with it in place of the reference action the "
                                   "domain behaves differently on the domain's problems (how that is decided: "
                                   "below)."),
    ResultClass.EQUIVALENT: ("With the action in place of the reference action, the domain behaves as the reference "
                             "does on the domain's problems (how that is decided: below)."),
}
# How Different and Equivalent are decided: Settings > Evaluation chooses (EvaluationOptions.equivalence).
EQUIVALENCE_TEXT: dict[EquivalenceMode, tuple[str, str]] = {
    EquivalenceMode.PROVEN: ("Proven", "the two domains are compared at every state reachable from the problems' "
                             "initial states. Equivalent is a proof that they agree at all of them; Different shows "
                             "the distinguishing state, where one domain allows a step the other does not, with a "
                             "counterexample problem you can save. When the proof cannot finish (too many states), "
                             "the verdict says so and rests on the paper's cross-check."),
    EquivalenceMode.PAPER: ("The paper's cross-check", "K* finds the top k plans per problem in both domains and "
                            "replays each in the other: Different when one fails, Equivalent when all pass. That is a "
                            "necessary condition for equivalence, not a proof."),
}
SUBCLASS_TEXT: dict[Subclass, str] = {
    Subclass.NO_PDDL: "NoPDDL: the answer holds no '('.",
    Subclass.P_ERROR: "PError: the parentheses from the first '(' are unbalanced.",
    Subclass.U_TOKEN: ("UToken: the first balanced expression does not parse as an action, or uses a construct "
                       "the domain's requirements do not allow."),
    Subclass.N_ERROR: "NError: the action has another name than the one asked for.",
    Subclass.T_ERROR: "TError: an undeclared type, or an argument of a type the predicate does not accept.",
    Subclass.PA_ERROR: "PAError: wrong arity, or an undefined predicate, variable or constant.",
    Subclass.BP_ERROR: ("BPError: a negated precondition on a predicate that actions change, without "
                        ":negative-preconditions."),
    Subclass.NO_PLAN: "NoPlan: the planner finds no plan (or times out) for a problem in the generated domain.",
    Subclass.NP_APP: ("NPApp: the generated domain allows what the reference does not (a step at a reachable state, "
                      "or a plan that fails in the reference): too permissive."),
    Subclass.OP_APP: ("OPApp: the reference domain allows what the generated one does not (a step, or a plan that "
                      "fails in the generated domain): too strict."),
}


def anchor(cls: ResultClass) -> str:
    return cls.name.lower()


def classes_html(mode: EquivalenceMode | str = EquivalenceMode.PROVEN) -> str:
    """The Result classes page; each class has an anchor (anchor(cls)) the badge links to. `mode` is the
    equivalence check in use (Settings > Evaluation), which the page names as the active one."""
    active = EquivalenceMode(mode)
    scheme = current_scheme()
    parts = ["<p>An answer is judged by four checks, in this order; the first that fails decides its class, "
             "and the subclass names the reason (the paper's names).</p>"]
    for number, cls in enumerate(ResultClass, start=1):
        style = scheme.badges[cls]
        parts.append(f'<a name="{anchor(cls)}"></a><h3><span style="background:{style.background}; '
                     f'color:{style.foreground}">&nbsp;{number}. {html.escape(cls.value)}&nbsp;</span></h3>')
        parts.append(f"<p>{html.escape(CLASS_TEXT[cls])}</p>")
        subs = [s for s in Subclass if s.result_class is cls and s in SUBCLASS_TEXT]
        if subs:
            parts.append("<ul>" + "".join(f"<li>{html.escape(SUBCLASS_TEXT[s])}</li>" for s in subs) + "</ul>")
    parts.append('<a name="equivalence"></a><h3>How Different and Equivalent are decided</h3><ul>')
    for each, (name, text) in EQUIVALENCE_TEXT.items():
        now = " (in use now; Settings ▸ Evaluation changes it)" if each is active else ""
        parts.append(f"<li><b>{html.escape(name)}</b>{html.escape(now)}: {html.escape(text)}</li>")
    parts.append("</ul>")
    parts.append("<p>The Action Reconstruction Error (ARE) counts the precondition, add and delete atoms in "
                 "one action and not the other; it is shown whenever the answer parses. A lower ARE is not "
                 "a better domain: it is a diagnostic.</p>")
    return "\n".join(parts)


class ResultClassesDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("resultClassesDialog")
        self.setWindowTitle("Result classes")
        self.resize(620, 640)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(classes_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)

    def show_class(self, cls: ResultClass | None, mode: EquivalenceMode | str = EquivalenceMode.PROVEN) -> None:
        self.show()
        self.raise_()
        self.browser.setHtml(classes_html(mode))   # the colours of the current scheme, the check in use
        if cls is not None and cls is not next(iter(ResultClass)):   # the first class: the page's top, as it opens
            self.browser.scrollToAnchor(anchor(cls))   # once shown: the layout decides where it is


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict[str, str]:
    """Name -> version of what the app is made of (the llama.cpp binding's own version: llama.cpp has none)."""
    return {
        "Domain Drafter": __version__,
        "Qt": qVersion(),
        "PySide6": pyside_version,
        "llama-cpp-python (llama.cpp binding)": package_version("llama-cpp-python"),
        "K* planner (kstar-planner)": package_version("kstar-planner"),
        "pddl": package_version("pddl"),
    }


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About Domain Drafter")
        rows = "".join(f"<tr><td>{html.escape(k)}</td><td>&nbsp;&nbsp;<b>{html.escape(v)}</b></td></tr>"
                       for k, v in versions().items())
        self.text = QLabel(
            f"<h2>Domain Drafter {html.escape(__version__)}</h2>"
            "<p>A local language model writes one PDDL action at a time from a description; syntax, "
            "semantic and plan-based checks (K*) judge it, after <i>Large Language Models as Planning "
            "Domain Generators</i> (ICAPS 2024).</p>"
            f"<table>{rows}</table>")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.setMinimumWidth(460)
