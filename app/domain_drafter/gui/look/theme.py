"""Light and dark look: follows the system's colour scheme (Qt 6.5+), or DOMAIN_DRAFTER_THEME.

The Fusion style with a palette built from a colours.Scheme looks the same on every desktop,
and the style sheet in resources/styles/app.qss adds spacing and the few custom widgets' looks.
Widgets that paint scheme colours themselves listen to `theme_notifier().changed`.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from domain_drafter.gui.look.colours import DARK, LIGHT, SCHEMES, Scheme, current_scheme, set_current_scheme

THEME_ENV = "DOMAIN_DRAFTER_THEME"   # "light" or "dark" forces a scheme (screenshots, tests)


class ThemeNotifier(QObject):
    changed = Signal(object)   # the new Scheme


_notifier: ThemeNotifier | None = None


def theme_notifier() -> ThemeNotifier:
    global _notifier
    if _notifier is None:
        _notifier = ThemeNotifier()
    return _notifier


def system_scheme(desktop: Qt.ColorScheme | None = None) -> Scheme:
    """The scheme the environment asks for: DOMAIN_DRAFTER_THEME, else the desktop's colour scheme.

    `desktop`: the scheme the desktop just switched to (else it is asked).
    """
    forced = os.environ.get(THEME_ENV, "").strip().lower()
    if forced in SCHEMES:
        return SCHEMES[forced]
    if desktop is None:
        hints = QGuiApplication.styleHints()
        desktop = hints.colorScheme() if hasattr(hints, "colorScheme") else Qt.ColorScheme.Unknown
    return DARK if desktop == Qt.ColorScheme.Dark else LIGHT


def palette_for(scheme: Scheme) -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: scheme.window,
        QPalette.ColorRole.WindowText: scheme.text,
        QPalette.ColorRole.Base: scheme.base,
        QPalette.ColorRole.AlternateBase: scheme.alternate_base,
        QPalette.ColorRole.Text: scheme.text,
        QPalette.ColorRole.Button: scheme.button,
        QPalette.ColorRole.ButtonText: scheme.text,
        QPalette.ColorRole.ToolTipBase: scheme.base,
        QPalette.ColorRole.ToolTipText: scheme.text,
        QPalette.ColorRole.PlaceholderText: scheme.muted_text,
        QPalette.ColorRole.Highlight: scheme.highlight,
        QPalette.ColorRole.HighlightedText: scheme.highlighted_text,
        QPalette.ColorRole.Link: scheme.link,
        QPalette.ColorRole.LinkVisited: scheme.link,
        QPalette.ColorRole.BrightText: "#ffffff",
    }
    for role, colour in roles.items():
        palette.setColor(QPalette.ColorGroup.All, role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(scheme.muted_text))
    # Fusion draws frames and separators from these
    light = QColor(scheme.button).lighter(130 if scheme.dark else 110)
    dark = QColor(scheme.button).darker(160 if scheme.dark else 125)
    palette.setColor(QPalette.ColorRole.Light, light)
    palette.setColor(QPalette.ColorRole.Midlight, light)
    palette.setColor(QPalette.ColorRole.Mid, dark)
    palette.setColor(QPalette.ColorRole.Dark, dark)
    palette.setColor(QPalette.ColorRole.Shadow, QColor("#000000"))
    return palette


def style_sheet(scheme: Scheme) -> str:
    """resources/styles/app.qss with the scheme's colours filled in ({name} placeholders)."""
    import domain_drafter.resources as resources

    path = Path(resources.__file__).parent / "styles" / "app.qss"
    try:
        template = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    values = {k: v for k, v in vars(scheme).items() if isinstance(v, str)}
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


def apply_scheme(app: QApplication, scheme: Scheme) -> None:
    set_current_scheme(scheme)
    app.setStyle("Fusion")
    app.setPalette(palette_for(scheme))
    app.setStyleSheet(style_sheet(scheme))
    theme_notifier().changed.emit(scheme)


def apply_system_theme(app: QApplication) -> Scheme:
    """Apply the system's scheme now and again whenever the desktop switches light/dark."""
    apply_scheme(app, system_scheme())
    hints = QGuiApplication.styleHints()
    signal = getattr(hints, "colorSchemeChanged", None)
    if signal is not None and not getattr(app, "_drafter_follows_scheme", False):
        signal.connect(lambda desktop: apply_scheme(app, system_scheme(desktop)))
        app._drafter_follows_scheme = True
    return current_scheme()
