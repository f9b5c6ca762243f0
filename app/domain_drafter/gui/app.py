"""Entry point of the desktop app (`domain-drafter-gui`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from domain_drafter import __version__
from domain_drafter.gui.startup.platform_check import Outcome, check_platform, show_native_dialog

ORGANIZATION_NAME = "Domain Drafter"
ORGANIZATION_DOMAIN = "domaindrafter.github.io"
APPLICATION_NAME = "Domain Drafter"
APPLICATION_ID = "io.github.domaindrafter.DomainDrafter"   # desktop file / Wayland app id / icon name


def icon_path() -> Path:
    """The application icon (written by the packaging work; may not exist in a checkout yet)."""
    import domain_drafter.resources as resources  # noqa: PLC0415

    return Path(resources.__file__).parent / "icons" / f"{APPLICATION_ID}.svg"


def configure_application() -> None:
    """Names Qt uses for the desktop file, the window class and the about box (before QApplication)."""
    from PySide6.QtWidgets import QApplication  # noqa: PLC0415 - kept out of the platform check's way

    QApplication.setOrganizationName(ORGANIZATION_NAME)
    QApplication.setOrganizationDomain(ORGANIZATION_DOMAIN)
    QApplication.setApplicationName(APPLICATION_NAME)
    QApplication.setApplicationDisplayName(APPLICATION_NAME)
    QApplication.setApplicationVersion(__version__)
    QApplication.setDesktopFileName(APPLICATION_ID)


def set_application_icon() -> None:
    """The window icon from resources/icons, or the theme's icon of that name, or none."""
    from PySide6.QtGui import QIcon  # noqa: PLC0415
    from PySide6.QtWidgets import QApplication  # noqa: PLC0415

    path = icon_path()
    icon = QIcon(str(path)) if path.is_file() else QIcon.fromTheme(APPLICATION_ID)
    if not icon.isNull():
        QApplication.setWindowIcon(icon)


def main(argv: Sequence[str] | None = None) -> int:
    report = check_platform()
    if not report.ok:
        # Qt would abort with a message that names no package: say what to install instead.
        print(report.message(), file=sys.stderr)
        if report.outcome is Outcome.MISSING_LIBRARIES:
            show_native_dialog(report.message())
        return 1
    from domain_drafter.gui.startup.binding_check import binding_problem  # noqa: PLC0415

    problem = binding_problem()
    if problem is not None:
        # Refuse now, with the fix, rather than abort minutes later and lose the user's work.
        print(problem, file=sys.stderr)
        show_native_dialog(problem)
        return 1
    configure_application()
    from PySide6.QtWidgets import QApplication  # noqa: PLC0415

    app = QApplication.instance() or QApplication(list(argv) if argv is not None else sys.argv)
    set_application_icon()
    from domain_drafter.gui.look.theme import apply_system_theme  # noqa: PLC0415
    from domain_drafter.gui.main.window import MainWindow  # noqa: PLC0415 - after the app exists

    apply_system_theme(app)
    window = MainWindow()
    window.show_fitted()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
