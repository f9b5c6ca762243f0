"""Entry point of the desktop app (`domain-drafter-gui`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from domain_drafter.gui.startup.application import (
    APPLICATION_ID,
    APPLICATION_NAME,
    configure_application,
    icon_path,
    set_application_icon,
)
from domain_drafter.gui.startup.platform_check import Outcome, check_platform, show_native_dialog

__all__ = ["APPLICATION_ID", "APPLICATION_NAME", "configure_application", "icon_path", "main", "set_application_icon"]


def main(argv: Sequence[str] | None = None) -> int:
    report = check_platform()
    if not report.ok:
        # Qt would abort with a message that names no package: say what to install instead.
        print(report.message(), file=sys.stderr)
        if report.outcome is Outcome.MISSING_LIBRARIES:
            show_native_dialog(report.message())
        return 1
    from domain_drafter.gui.startup.binding_check import binding_problem

    problem = binding_problem()
    if problem is not None:
        # Refuse now, with the fix, rather than abort minutes later and lose the user's work.
        print(problem, file=sys.stderr)
        show_native_dialog(problem)
        return 1
    configure_application()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(list(argv) if argv is not None else sys.argv)
    set_application_icon()
    from domain_drafter.gui.look.theme import apply_system_theme
    from domain_drafter.gui.main.window import MainWindow

    apply_system_theme(app)
    window = MainWindow()
    window.show_fitted()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
