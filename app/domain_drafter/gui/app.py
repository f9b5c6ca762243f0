"""Entry point of the desktop app (`domain-drafter-gui`)."""

from __future__ import annotations

import sys
from typing import Sequence

from PySide6.QtWidgets import QApplication

from domain_drafter import __version__

ORGANIZATION_NAME = "Domain Drafter"
ORGANIZATION_DOMAIN = "domaindrafter.github.io"
APPLICATION_NAME = "Domain Drafter"
APPLICATION_ID = "io.github.domaindrafter.DomainDrafter"   # desktop file / Wayland app id


def configure_application() -> None:
    """Names Qt uses for the desktop file, the window class and the about box (before QApplication)."""
    QApplication.setOrganizationName(ORGANIZATION_NAME)
    QApplication.setOrganizationDomain(ORGANIZATION_DOMAIN)
    QApplication.setApplicationName(APPLICATION_NAME)
    QApplication.setApplicationDisplayName(APPLICATION_NAME)
    QApplication.setApplicationVersion(__version__)
    QApplication.setDesktopFileName(APPLICATION_ID)


def main(argv: Sequence[str] | None = None) -> int:
    configure_application()
    app = QApplication.instance() or QApplication(list(argv) if argv is not None else sys.argv)
    from domain_drafter.gui.main_window import MainWindow  # noqa: PLC0415 - after the app exists

    window = MainWindow()
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
