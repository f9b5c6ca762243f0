"""The two colour schemes (light and dark) as plain data, and the WCAG contrast they are held to.

No Qt here: theme.py turns a Scheme into a QPalette and the widgets read their colours from
the current Scheme. Every pair of text and background colours of a scheme keeps a contrast
ratio of at least 4.5:1 (WCAG 2 level AA for body text); tests/gui/test_gui_look.py checks it.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain_drafter.core.classes import ResultClass

MIN_CONTRAST = 4.5


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of "#rrggbb"."""
    colour = colour.lstrip("#")
    channels = [int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two "#rrggbb" colours (1.0 to 21.0)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@dataclass(frozen=True)
class BadgeStyle:
    background: str
    foreground: str


@dataclass(frozen=True)
class Scheme:
    name: str
    dark: bool
    window: str            # panels
    base: str              # editors, lists, tables
    alternate_base: str
    text: str
    muted_text: str        # placeholders, secondary labels
    button: str
    highlight: str         # selection
    highlighted_text: str
    link: str
    badges: dict[ResultClass, BadgeStyle]
    neutral_badge: BadgeStyle
    class_text: dict[ResultClass, str]   # a class named in running text on `base` or `window`
    error_text: str        # findings
    error_underline: str
    missing_line: str      # diff: a reference line the generated action lacks (background)
    extra_line: str        # diff: a generated line the reference lacks (background)
    failing_row: str       # the failing step of a counterexample plan (background)
    current_line: str
    line_number: str       # line-number gutter text
    gutter: str            # line-number gutter background
    tokens: dict[str, tuple[str, bool, bool]]   # token kind -> (colour, bold, italic)

    def text_pairs(self) -> list[tuple[str, str, str]]:
        """(what, foreground, background) for every text colour this scheme draws on a background."""
        pairs = [("text on base", self.text, self.base), ("text on window", self.text, self.window),
                 ("muted text on base", self.muted_text, self.base),
                 ("muted text on window", self.muted_text, self.window),
                 ("selected text", self.highlighted_text, self.highlight),
                 ("link", self.link, self.window), ("link on base", self.link, self.base),
                 ("finding", self.error_text, self.base),
                 ("missing line", self.text, self.missing_line), ("extra line", self.text, self.extra_line),
                 ("failing step", self.text, self.failing_row), ("current line", self.text, self.current_line),
                 ("line number", self.line_number, self.gutter),
                 ("neutral badge", self.neutral_badge.foreground, self.neutral_badge.background)]
        for cls, style in self.badges.items():
            pairs.append((f"{cls.value} badge", style.foreground, style.background))
        for cls, colour in self.class_text.items():
            pairs += [(f"{cls.value} text on base", colour, self.base),
                      (f"{cls.value} text on window", colour, self.window)]
        for kind, (colour, _bold, _italic) in self.tokens.items():
            pairs += [(f"{kind} token", colour, self.base), (f"{kind} token on current line", colour, self.current_line)]
        return pairs


LIGHT = Scheme(
    name="light", dark=False,
    window="#f3f3f4", base="#ffffff", alternate_base="#f6f7f9", text="#1b1b1f", muted_text="#5f6368",
    button="#eaebee", highlight="#2f6fd6", highlighted_text="#ffffff", link="#1a56c2",
    badges={
        ResultClass.SYNTAX_ERROR: BadgeStyle("#c62828", "#ffffff"),
        ResultClass.SEMANTIC_ERROR: BadgeStyle("#f57c00", "#14110f"),
        ResultClass.DIFFERENT_DOMAIN: BadgeStyle("#f9c825", "#202020"),
        ResultClass.EQUIVALENT: BadgeStyle("#2e7d32", "#ffffff"),
    },
    neutral_badge=BadgeStyle("#616161", "#ffffff"),
    class_text={
        ResultClass.SYNTAX_ERROR: "#b71c1c",
        ResultClass.SEMANTIC_ERROR: "#a84300",
        ResultClass.DIFFERENT_DOMAIN: "#7a5a00",
        ResultClass.EQUIVALENT: "#1b5e20",
    },
    error_text="#b71c1c", error_underline="#d32f2f",
    missing_line="#ffd6d6", extra_line="#ffe8a3", failing_row="#ffcdd2", current_line="#f1f5fb",
    line_number="#5f646b", gutter="#f3f3f4",
    tokens={
        "keyword": ("#0033b3", True, False), "pseudo": ("#0033b3", False, False), "type": ("#00696b", False, False),
        "builtin": ("#871094", True, False), "function": ("#00627a", False, False),
        "variable": ("#a0461e", False, False), "comment": ("#686868", False, True),
        "number": ("#1750eb", False, False), "operator": ("#555555", False, False),
    },
)

DARK = Scheme(
    name="dark", dark=True,
    window="#1e1f23", base="#2a2c31", alternate_base="#303238", text="#e6e6e9", muted_text="#a9adb4",
    button="#3a3c43", highlight="#3d6fc4", highlighted_text="#ffffff", link="#8ab4f8",
    badges={
        ResultClass.SYNTAX_ERROR: BadgeStyle("#ef5350", "#000000"),
        ResultClass.SEMANTIC_ERROR: BadgeStyle("#ffa040", "#000000"),
        ResultClass.DIFFERENT_DOMAIN: BadgeStyle("#fdd835", "#000000"),
        ResultClass.EQUIVALENT: BadgeStyle("#66bb6a", "#000000"),
    },
    neutral_badge=BadgeStyle("#8a8d93", "#000000"),
    class_text={
        ResultClass.SYNTAX_ERROR: "#ff8a80",
        ResultClass.SEMANTIC_ERROR: "#ffb74d",
        ResultClass.DIFFERENT_DOMAIN: "#ffe082",
        ResultClass.EQUIVALENT: "#a5d6a7",
    },
    error_text="#ff8a80", error_underline="#ff6e6e",
    missing_line="#5a2a2e", extra_line="#4d4214", failing_row="#5e2a30", current_line="#32343a",
    line_number="#989da5", gutter="#25272b",
    tokens={
        "keyword": ("#82aaff", True, False), "pseudo": ("#82aaff", False, False), "type": ("#5ed3c9", False, False),
        "builtin": ("#d49cf5", True, False), "function": ("#7fd4e8", False, False),
        "variable": ("#f0a070", False, False), "comment": ("#a3a9b2", False, True),
        "number": ("#9cb6ff", False, False), "operator": ("#b8bcc4", False, False),
    },
)

SCHEMES = {LIGHT.name: LIGHT, DARK.name: DARK}
_current = LIGHT


def current_scheme() -> Scheme:
    return _current


def set_current_scheme(scheme: Scheme) -> None:
    global _current
    _current = scheme
