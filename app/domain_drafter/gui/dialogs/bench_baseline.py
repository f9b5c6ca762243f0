"""The Benchmark dialog's baseline: the committed Table 1 of the default model as a real table.

A table view (not rich text) keeps every header and cell on its own lines, never broken mid-word;
headers wrap at their spaces ("paper" over "7b"), so the ten columns fit beside the run.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

FIRST_COLUMN_WIDTH = 150   # "Heuristic Equivalent: proven different" wraps onto two lines


def baseline_markdown() -> str:
    """The committed Table 1 of the default model (resources/results), shown as the baseline."""
    from importlib import resources

    path = Path(str(resources.files("domain_drafter.resources"))) / "results" / "default-exp1" / "table1.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def markdown_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown pipe table (header first, the --- line left out)."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if all(set(c) <= {"-", ":"} and c for c in cells):
            continue
        rows.append(cells)
    return rows


class BaselineTable(QTableWidget):
    """Read-only; bold rows (**Syntax total**) stay bold."""

    def __init__(self, markdown: str, parent: QWidget | None = None):
        rows = markdown_rows(markdown)
        header, body = (rows[0], rows[1:]) if rows else (["Baseline"], [["No baseline results are installed."]])
        super().__init__(len(body), len(header), parent)
        self.setObjectName("baselineTable")
        self.setHorizontalHeaderLabels([h.replace(" ", "\n") for h in header])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(True)   # at spaces only: the class names of the first column
        bold = QFont(self.font())
        bold.setBold(True)
        for r, cells in enumerate(body):
            for c, cell in enumerate(cells[:len(header)]):
                strong = cell.startswith("**") and cell.endswith("**")
                item = QTableWidgetItem(cell.strip("*"))
                if strong or cells[0].startswith("**"):
                    item.setFont(bold)
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
        self.setColumnWidth(0, min(self.columnWidth(0), FIRST_COLUMN_WIDTH))
        self.resizeRowsToContents()
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.setMinimumHeight(260)
