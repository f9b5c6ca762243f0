"""The list of drafted candidates (Draft N candidates): a list model over plain `Candidate` data, its badges, a panel.

Rows are appended as each candidate is judged (connect the worker's `yielded` to `add`: it is queued to
the GUI thread) and reordered in place once the ranking is known, keeping the selection. Each row
paints its verdict badge in the result panel's colours (gui/look/colours.py, gui/panels/result_display.py).
Picking a row (click or Enter) emits `picked` with the Candidate; the window decides what that does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QLabel, QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QVBoxLayout, QWidget

from domain_drafter.core.classes import ResultClass
from domain_drafter.drafting.candidates import Candidate
from domain_drafter.gui.look.colours import BadgeStyle, Scheme, current_scheme
from domain_drafter.gui.panels.result_display import badge_style, badge_text

Index = QModelIndex | QPersistentModelIndex
CandidateRole = Qt.ItemDataRole.UserRole + 1   # the row's Candidate
BadgeRole = Qt.ItemDataRole.UserRole + 2       # (badge text, BadgeStyle)


def candidate_badge(candidate: Candidate, scheme: Scheme | None = None) -> tuple[str, BadgeStyle]:
    """The verdict badge, short (the subclass; the colour gives the class, the result panel's colours).
    Without a reference: the checks' verdict; neutral when it passed and every problem stays solvable,
    the "Different domain" colours when one is not."""
    scheme = scheme or current_scheme()
    if candidate.evaluation is not None:
        result = candidate.evaluation
        return (result.subclass.value if result.subclass else badge_text(result)), badge_style(result, scheme)
    subclass = candidate.check.subclass
    if subclass is not None:
        return subclass.value, scheme.badges[subclass.result_class]
    if candidate.solvable and not all(candidate.solvable):
        return "Unsolvable", scheme.badges[ResultClass.DIFFERENT_DOMAIN]
    return "Checks passed", scheme.neutral_badge


def candidate_details(candidate: Candidate) -> str:
    """`ARE 2 · 2 agree · seed 5 · 41 tokens`, `2/2 problems solvable · tests: 7 of 8 pass · …` (what ranks it
    besides the badge)."""
    parts = []
    evaluation = candidate.evaluation
    if candidate.score is not None and candidate.check.passed:
        parts.append(f"score {100 * candidate.score:.0f}%" if candidate.score in (0.0, 1.0) or
                     0.005 <= candidate.score <= 0.995 else f"score {100 * candidate.score:.1f}%")
    if evaluation is not None and evaluation.are is not None:
        parts.append(f"ARE {evaluation.are.total}")
    if candidate.solvable:
        parts.append(f"{candidate.solved}/{len(candidate.solvable)} problems solvable")
    if candidate.tests:
        parts.append(candidate.tests)
    if candidate.agreement > 1:
        parts.append(f"{candidate.agreement} agree")
    if candidate.origin:
        parts.append(candidate.origin)
    parts.append(f"{'sample' if candidate.sampled else 'prompt'} seed {candidate.seed}")
    parts.append(f"{candidate.stats.generated_tokens} tokens")
    return " · ".join(parts)


class CandidateListModel(QAbstractListModel):
    """One row per candidate, in arrival order until `set_ranked` puts them best first."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._rows: list[Candidate] = []
        self.ranked = False

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def candidate(self, row: int) -> Candidate:
        return self._rows[row]

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return tuple(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        c = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            place = f"#{c.rank}" if c.rank else f"{c.index + 1}."
            return f"{place} {candidate_badge(c)[0]} — {candidate_details(c)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            head = badge_text(c.evaluation) if c.evaluation is not None else c.verdict
            return f"{head}: {c.message}\n\n{c.answer}"
        if role == CandidateRole:
            return c
        if role == BadgeRole:
            return candidate_badge(c)
        return None

    def clear(self) -> None:
        self.beginResetModel()
        self._rows = []
        self.ranked = False
        self.endResetModel()

    def add(self, candidate: Candidate) -> None:
        """A candidate just judged: a new last row."""
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(candidate)
        self.endInsertRows()

    def set_ranked(self, ranked: Sequence[Candidate]) -> None:
        """The final ranking: rows take the ranked data and order; persistent indexes (the selection) follow."""
        self.layoutAboutToBeChanged.emit()
        old = {c.index: row for row, c in enumerate(self._rows)}
        persistent = self.persistentIndexList()
        self._rows = list(ranked)
        new = {c.index: row for row, c in enumerate(self._rows)}
        moved = {old_row: new.get(index, -1) for index, old_row in old.items()}
        self.changePersistentIndexList(persistent, [self.index(moved.get(p.row(), -1), 0) if moved.get(p.row(), -1) >= 0
                                                    else QModelIndex() for p in persistent])
        self.ranked = True
        self.layoutChanged.emit()


class BadgeDelegate(QStyledItemDelegate):
    """Paints a row as its coloured verdict badge, then the details."""

    PAD = 6

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        badge = index.data(BadgeRole)
        candidate = index.data(CandidateRole)
        if badge is None or candidate is None:
            super().paint(painter, option, index)
            return
        text, style = badge
        self.initStyleOption(option, index)
        widget = option.widget
        style_ = widget.style() if widget is not None else None
        option.text = ""
        if style_ is not None:
            style_.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        metrics = QFontMetrics(option.font)
        rect = option.rect.adjusted(self.PAD, 3, -self.PAD, -3)
        line = QRect(rect.left(), rect.top(), rect.width(), metrics.height() + 6)   # the place and the badge
        place = f"#{candidate.rank}" if candidate.rank else f"{candidate.index + 1}."
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text_colour = option.palette.highlightedText().color() if selected else option.palette.text().color()
        painter.setPen(text_colour)
        place_w = metrics.horizontalAdvance("#88 ")
        painter.drawText(QRect(line.left(), line.top(), place_w, line.height()),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, place)
        badge_w = metrics.horizontalAdvance(text) + 2 * self.PAD
        badge_rect = QRect(line.left() + place_w, line.top(), badge_w, line.height())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(QColor(style.background))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(badge_rect, 4, 4)
        painter.setPen(QColor(style.foreground))
        painter.drawText(badge_rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.setPen(text_colour)
        details = QRect(rect.left(), line.bottom() + 2, rect.width(), rect.bottom() - line.bottom() - 2)
        painter.drawText(details, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop) | int(Qt.TextFlag.TextWordWrap),
                         candidate_details(candidate))   # under the badge, wrapped: never cut off
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        """The badge line, then the details wrapped to the list's width."""
        candidate = index.data(CandidateRole)
        metrics = QFontMetrics(option.font)
        view = self.parent()
        width = (view.viewport().width() if isinstance(view, QListView) else 240) - 2 * self.PAD
        if candidate is None:
            return QSize(width, metrics.height() + 10)
        wrapped = metrics.boundingRect(0, 0, max(60, width), 100_000, int(Qt.TextFlag.TextWordWrap),
                                       candidate_details(candidate))
        return QSize(width, metrics.height() + 6 + 2 + wrapped.height() + 8)


class CandidatesPanel(QWidget):
    """A title, the candidates list, and a hint; `picked(Candidate)` when the user chooses one."""

    picked = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("candidatesPanel")
        self.model = CandidateListModel(self)
        self.title = QLabel("Candidates")
        self.title.setWordWrap(True)
        self.view = QListView()
        self.view.setObjectName("candidateList")
        self.view.setModel(self.model)
        self.view.setItemDelegate(BadgeDelegate(self.view))
        self.view.setResizeMode(QListView.ResizeMode.Adjust)   # rows wrap again when the dock is resized
        self.view.setMinimumWidth(240)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.hint = QLabel("Click a candidate to put it into the editor.")
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for widget, stretch in ((self.title, 0), (self.view, 1), (self.hint, 0)):
            layout.addWidget(widget, stretch)
        self.view.clicked.connect(self._on_chosen)
        self.view.activated.connect(self._on_chosen)

    def start(self, title: str) -> None:
        """A new batch: empty list, `title` saying what is being drafted."""
        self.model.clear()
        self.title.setText(title)

    def add(self, candidate: Candidate) -> None:
        self.model.add(candidate)

    def set_ranked(self, ranked: Sequence[Candidate], title: str) -> None:
        self.model.set_ranked(ranked)
        self.title.setText(title)

    def pick(self, row: int) -> Candidate:
        """Choose row `row` as the user would (selects it and emits `picked`)."""
        index = self.model.index(row, 0)
        self.view.setCurrentIndex(index)
        self._on_chosen(index)
        return self.model.candidate(row)

    def _on_chosen(self, index: QModelIndex) -> None:
        candidate = index.data(CandidateRole) if index.isValid() else None
        if candidate is not None:
            self.picked.emit(candidate)


def ranked_title(ranked: Sequence[Candidate], what: str) -> str:
    """`3 candidates for gripper / drop, best first: Equivalent (prompt seed 6)`."""
    if not ranked:
        return f"No candidates for {what}"
    best = ranked[0]
    return (f"{len(ranked)} candidate{'' if len(ranked) == 1 else 's'} for {what}, best first: "
            f"{candidate_badge(best)[0]} ({'sample' if best.sampled else 'prompt'} seed {best.seed})")
