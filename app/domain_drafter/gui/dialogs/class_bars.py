"""The Benchmark dialog's bar chart: judged answers per result class, in the classes' colours."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QWidget

CLASS_COLOURS = {"Syntax error": "#c0392b", "Semantic error": "#e67e22", "Different domain": "#2e86c1",
                 "Equivalent": "#27ae60", "error": "#7f8c8d"}


class ClassBars(QWidget):
    """A small bar chart: judged answers per result class."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.counts: dict[str, int] = {}
        self.setMinimumHeight(110)

    def set_counts(self, counts: dict[str, int]) -> None:
        self.counts = dict(counts)
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        names = [n for n in CLASS_COLOURS if n != "error" or self.counts.get("error")]
        top = max([self.counts.get(n, 0) for n in names] + [1])
        width = self.width() / len(names)
        height = self.height() - 34
        for i, name in enumerate(names):
            value = self.counts.get(name, 0)
            bar = height * value / top
            rect = QRectF(i * width + 8, 14 + height - bar, width - 16, bar)
            painter.fillRect(rect, QColor(CLASS_COLOURS[name]))
            painter.drawText(QRectF(i * width, 0, width, 14), Qt.AlignmentFlag.AlignCenter, str(value))
            painter.drawText(QRectF(i * width, self.height() - 18, width, 18), Qt.AlignmentFlag.AlignCenter, name)
        painter.end()
