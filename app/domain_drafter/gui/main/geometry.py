"""Where the main window goes on the screen, as plain rectangles (no Qt here, so it is testable).

The first size comes from the screen's available geometry (the screen minus panels and docks):
below 1440 px wide the window is maximised, since three columns need the whole width; above,
it takes a comfortable size, centred. A saved geometry is used only if it still fits a screen
(a laptop undocked from a big monitor must not get a window hanging off its edges).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MAXIMISE_BELOW_WIDTH = 1440
PREFERRED_WIDTH = 1560
PREFERRED_HEIGHT = 960
MARGIN = 40          # kept free around a window that is not maximised
FRAME_SLACK = 16     # window frames and shadows may overhang the available area a little


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    def contains(self, other: Rect, slack: int = 0) -> bool:
        return (other.x >= self.x - slack and other.y >= self.y - slack
                and other.right <= self.right + slack and other.bottom <= self.bottom + slack)

    def to_list(self) -> list[int]:
        return [self.x, self.y, self.width, self.height]

    @classmethod
    def from_value(cls, value: object) -> Rect | None:
        """A Rect from a saved [x, y, w, h] (QSettings may hand back strings); None if malformed."""
        if not isinstance(value, (list, tuple)) or len(value) != 4:
            return None
        try:
            x, y, w, h = (int(v) for v in value)
        except (TypeError, ValueError):
            return None
        return cls(x, y, w, h) if w > 0 and h > 0 else None


@dataclass(frozen=True)
class Placement:
    rect: Rect
    maximised: bool


def first_placement(available: Rect) -> Placement:
    """The window's first geometry on a screen whose available area is `available`."""
    if available.width < MAXIMISE_BELOW_WIDTH:
        return Placement(available, True)
    width = min(PREFERRED_WIDTH, available.width - 2 * MARGIN)
    height = min(PREFERRED_HEIGHT, available.height - 2 * MARGIN)
    x = available.x + (available.width - width) // 2
    y = available.y + (available.height - height) // 2
    return Placement(Rect(x, y, width, height), False)


def fits_a_screen(saved: Rect, screens: Iterable[Rect]) -> bool:
    """True if some screen's available area holds the whole saved frame (give or take its shadow)."""
    return any(screen.contains(saved, FRAME_SLACK) for screen in screens)
