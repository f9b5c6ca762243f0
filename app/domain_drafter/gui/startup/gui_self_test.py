"""The GUI stage of `domain-drafter --self-test`, run as `python -m domain_drafter.gui.startup.gui_self_test`.

Starts the app (offscreen when the parent asks for it), waits until the main window has loaded the
bundled domains, draws the window into a pixmap and prints one JSON line saying what it saw. A child
process, so the command line never imports Qt and a Qt crash cannot take the self-test down with it.
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from domain_drafter.gui.startup.application import configure_application, set_application_icon
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import JobKind, JobOutcome

STARTUP_TIMEOUT_MS = 60_000
MIN_COLOURS = 8   # a window with panels, text and a toolbar has far more; a blank one has one or two


def distinct_colours(image: QImage, step: int = 4) -> int:
    """Distinct pixel colours on a grid every `step` pixels (enough to tell a drawn window from a blank one)."""
    colours = {image.pixel(x, y) for y in range(0, image.height(), step) for x in range(0, image.width(), step)}
    return len(colours)


def draw_main_window() -> dict:
    """Build the main window, let it load, draw it; what it saw, with ok=False and an error if it failed."""
    from domain_drafter.gui.startup.binding_check import binding_problem

    problem = binding_problem()
    if problem is not None:
        return {"ok": False, "startup": "refused", "error": problem}
    configure_application()
    app = QApplication.instance() or QApplication([sys.argv[0]])
    set_application_icon()
    from domain_drafter.gui.main.window import MainWindow

    window = MainWindow()
    outcome: dict = {}

    def on_job_ended(kind: JobKind, how: JobOutcome) -> None:
        if kind is JobKind.STARTUP:
            outcome["startup"] = how.value
            app.quit()

    window.job_ended.connect(on_job_ended)
    window.error_reported.connect(lambda error: outcome.setdefault("error", describe_error(error).message))
    window.show()
    QTimer.singleShot(STARTUP_TIMEOUT_MS, app.quit)
    if "startup" not in outcome:
        app.exec()
    app.processEvents()
    image = window.grab().toImage()
    report = {"ok": False, "startup": outcome.get("startup", "timeout"), "width": image.width(),
              "height": image.height(), "colours": 0 if image.isNull() else distinct_colours(image),
              "domains": window.domain_panel.domain_list.count(), "icon": not window.windowIcon().isNull()}
    window.close()
    if "error" in outcome:
        report["error"] = outcome["error"].splitlines()[0]
    elif report["startup"] == "timeout":
        report["error"] = f"the main window did not finish loading within {STARTUP_TIMEOUT_MS // 1000} s"
    elif image.isNull() or report["colours"] < MIN_COLOURS:
        report["error"] = f"the main window drew as a blank image ({report['colours']} colours)"
    elif report["domains"] == 0:
        report["error"] = "the main window lists no domains"
    elif not report["icon"]:
        report["error"] = "the window has no icon (resources/icons is missing or Qt cannot read SVG)"
    else:
        report["ok"] = True
    return report


def main() -> int:
    report = draw_main_window()
    print(json.dumps(report), flush=True)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
