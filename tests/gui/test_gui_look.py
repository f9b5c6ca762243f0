"""Look: light and dark schemes that follow the system, text contrast of at least 4.5:1 (WCAG AA) for
every colour pair each scheme draws, Help ▸ About with the versions, Help ▸ Result classes and the
badge that links to it."""

from __future__ import annotations

from importlib import metadata

import pytest
from gui_helpers import JOB_TIMEOUT_MS, run_job, select
from pygments.token import Keyword
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from domain_drafter import __version__
from domain_drafter.core.classes import ResultClass
from domain_drafter.gui.dialogs.help_dialogs import AboutDialog, anchor, classes_html, versions
from domain_drafter.gui.look.colours import DARK, LIGHT, MIN_CONTRAST, SCHEMES, contrast_ratio, current_scheme
from domain_drafter.gui.look.theme import THEME_ENV, apply_scheme, apply_system_theme, system_scheme


def test_wcag_contrast_matches_the_reference_values():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)   # WebAIM's AA grey


@pytest.mark.parametrize("scheme", list(SCHEMES.values()), ids=list(SCHEMES))
def test_every_text_colour_keeps_4_5_to_1_on_its_background(scheme):
    pairs = scheme.text_pairs()
    assert len(pairs) > 40
    low = [(what, fg, bg, round(contrast_ratio(fg, bg), 2)) for what, fg, bg in pairs
           if contrast_ratio(fg, bg) < MIN_CONTRAST]
    assert low == []
    assert set(scheme.badges) == set(ResultClass)


def test_the_class_colours_differ_between_the_classes_on_both_schemes():
    for scheme in (LIGHT, DARK):
        assert len({s.background for s in scheme.badges.values()}) == 4


def test_the_theme_follows_the_system_colour_scheme(qapp, monkeypatch):
    monkeypatch.delenv(THEME_ENV, raising=False)
    hints = QGuiApplication.styleHints()
    try:
        apply_system_theme(qapp)
        # the offscreen platform cannot switch its colour scheme: say it switched, as a desktop does
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
        assert current_scheme() is DARK
        assert qapp.palette().color(QPalette.ColorRole.Window).name() == DARK.window
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
        assert current_scheme() is LIGHT
        assert qapp.palette().color(QPalette.ColorRole.Base).name() == LIGHT.base
        monkeypatch.setenv(THEME_ENV, "dark")
        assert system_scheme() is DARK
    finally:
        apply_scheme(qapp, LIGHT)


def test_switching_to_dark_repaints_the_badge_the_marks_and_the_highlighting(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    answer = window.current_bundle().domain.action("pick").to_pddl(indent="").replace("(free ?g)", "(empty ?g)", 1)
    window.answer_panel.editor.setPlainText(answer)
    run_job(qtbot, window, window.evaluate_action.trigger)
    app = QApplication.instance()
    try:
        apply_scheme(app, DARK)
        badge = window.result_panel.badge
        assert badge.style_ == DARK.badges[ResultClass.SEMANTIC_ERROR]
        assert DARK.badges[ResultClass.SEMANTIC_ERROR].background in badge.styleSheet()
        underline = [s.format.underlineColor().name() for s in window.answer_panel.editor.extraSelections()]
        assert underline and set(underline) == {DARK.error_underline}
        keyword = window.answer_panel.editor.highlighter.format_for(Keyword)
        assert keyword.foreground().color().name() == DARK.tokens["keyword"][0]
        assert DARK.link in window.result_panel.explain_link.text()
    finally:
        apply_scheme(app, LIGHT)
    assert window.result_panel.badge.style_ == LIGHT.badges[ResultClass.SEMANTIC_ERROR]


def test_about_names_the_versions(qtbot):
    found = versions()
    assert found["Domain Drafter"] == __version__
    assert found["Qt"].count(".") == 2
    assert found["llama-cpp-python (llama.cpp binding)"] == metadata.version("llama-cpp-python")
    assert not any(name.startswith("llama.cpp") for name in found)   # the binding's version is not llama.cpp's
    assert found["K* planner (kstar-planner)"] == metadata.version("kstar-planner")
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    for version in found.values():
        assert version in dialog.text.text()


def test_result_classes_page_explains_every_class_and_subclass():
    page = classes_html()
    for cls in ResultClass:
        assert f'name="{anchor(cls)}"' in page and cls.value in page
    for sub in ("NoPDDL", "PError", "UToken", "NError", "TError", "PAError", "BPError", "NoPlan", "NPApp", "OPApp"):
        assert f"{sub}:" in page


def test_the_badge_links_to_its_class_explanation(qtbot, window):
    select(qtbot, window, "gripper", "pick")
    window.answer_panel.editor.setPlainText("no action here")
    with qtbot.waitSignal(window.result_shown, timeout=JOB_TIMEOUT_MS):
        window.evaluate_action.trigger()
    badge = window.result_panel.badge
    assert badge.result_class is ResultClass.SYNTAX_ERROR
    qtbot.mouseClick(badge, Qt.MouseButton.LeftButton)
    dialog = window.classes_dialog
    assert dialog is not None and dialog.isVisible()
    browser = dialog.browser
    assert browser.verticalScrollBar().value() == 0   # Syntax error comes first
    dialog.close()
    dialog.resize(520, 260)   # shorter than the page, so the link has to scroll to its class
    window.result_panel.explain_requested.emit(ResultClass.EQUIVALENT)
    assert browser.verticalScrollBar().maximum() > 0
    assert dialog.isVisible() and browser.verticalScrollBar().value() > 0
    dialog.close()
    window.result_panel.explain_link.linkActivated.emit("classes")
    assert dialog.isVisible()
