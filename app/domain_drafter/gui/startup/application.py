"""The names and icon Qt uses for the app: the desktop file, the window class, the about box.

Set before (names) and after (icon) the QApplication exists, by the entry point (gui/app.py) and the
self-test's GUI stage, which therefore never import each other.
"""

from __future__ import annotations

from pathlib import Path

from domain_drafter import __version__

ORGANIZATION_NAME = "Domain Drafter"
ORGANIZATION_DOMAIN = "domaindrafter.github.io"
APPLICATION_NAME = "Domain Drafter"
APPLICATION_ID = "io.github.domaindrafter.DomainDrafter"   # desktop file / Wayland app id / icon name


def icon_path() -> Path:
    """The application icon (written by the packaging work; may not exist in a checkout yet)."""
    import domain_drafter.resources as resources

    return Path(resources.__file__).parent / "icons" / f"{APPLICATION_ID}.svg"


def configure_application() -> None:
    """Names Qt uses for the desktop file, the window class and the about box (before QApplication)."""
    from PySide6.QtWidgets import QApplication

    QApplication.setOrganizationName(ORGANIZATION_NAME)
    QApplication.setOrganizationDomain(ORGANIZATION_DOMAIN)
    QApplication.setApplicationName(APPLICATION_NAME)
    QApplication.setApplicationDisplayName(APPLICATION_NAME)
    QApplication.setApplicationVersion(__version__)
    QApplication.setDesktopFileName(APPLICATION_ID)


def set_application_icon() -> None:
    """The window icon from resources/icons, or the theme's icon of that name, or none."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    path = icon_path()
    icon = QIcon(str(path)) if path.is_file() else QIcon.fromTheme(APPLICATION_ID)
    if not icon.isNull():
        QApplication.setWindowIcon(icon)
