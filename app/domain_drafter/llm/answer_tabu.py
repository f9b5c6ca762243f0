"""Free decoding that spends no model call on an answer judged before: the effect is not closed into one.

A search's call that writes an answer it has judged already is wasted; measured on Qwen2.5-Coder 1.5B,
about half the calls on the actions it could not solve did. Under the grammar the literal guard refuses
such an answer (llm/literal_guard.py, `judged`). Without the grammar this does the same, more loosely:
before each token is sampled it bans, among the sampler's likeliest tokens, those that would close the
effect's conjunction where the answer would equal one judged before (the same parameters up to their
names, and the same literals in each section, in any order and spacing). So the model writes another literal instead, or
ends the action another way. It never bans every likeliest token, and it does nothing outside the
effect's conjunction, so decoding can always go on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import numpy as np

from domain_drafter.llm.literal_guard import effect_closed, written_literals

AnswerKey = tuple[str, frozenset[str], frozenset[str]]


_VARIABLE = re.compile(r"\?[^\s()?]+")


def answer_key(text: str) -> AnswerKey | None:
    """(the parameters, the precondition's literals, the effect's literals) of an action whose effect's
    conjunction is closed, whitespace folded and each parameter named by its place in the list (so an answer
    equal to another up to the names of its parameters has its key); None before the effect is closed."""
    flat = " ".join(text.split())
    if not effect_closed(flat):
        return None
    at, end = flat.find(":parameters"), flat.find(":precondition")
    params = flat[at:end] if 0 <= at < end else ""
    place: dict[str, str] = {}
    for name in _VARIABLE.findall(params):
        place.setdefault(name, f"?{len(place) + 1}")

    def renamed(s: str) -> str:
        return _VARIABLE.sub(lambda m: place.get(m.group(0), m.group(0)), s)

    pre, eff = written_literals(flat)
    return (renamed(params.replace("( ", "(").replace(" )", ")").strip()),
            frozenset(map(renamed, pre)), frozenset(map(renamed, eff)))


class AnswerTabu:
    """Bans the tokens that would close the effect into an answer judged before (see the module's docstring).
    Feed it every piece of text the sequence writes (`feed`); call `ban` on the logits before sampling."""

    def __init__(self, judged: Iterable[str]):
        self._keys = frozenset(key for key in map(answer_key, judged) if key is not None)
        self.text = ""
        self.banned = 0          # tokens banned so far (for tests and the log)
        self._closed = False     # the effect's conjunction is closed: nothing is banned from then on

    def feed(self, piece: str) -> None:
        self.text += piece
        if not self._closed and ")" in piece and ":effect" in self.text:
            self._closed = effect_closed(self.text)

    def refuses(self, piece: str, before: str = "") -> bool:
        """True if `piece`, written after the text so far and `before`, closes the effect into an answer judged
        before: a guessed token the tabu may ban (llm/speculate.py cuts the guess there)."""
        text = self.text + before
        return bool(self._keys) and not self._closed and ")" in piece and ":effect" in text \
            and answer_key(text + piece) in self._keys

    def ban(self, logits: np.ndarray, piece_of: Callable[[int], str], top: int) -> int:
        """Set to -inf, in place, the logits of the `top` likeliest tokens that close the effect into an answer
        judged before (none when all of them would); how many."""
        if not self._keys or self._closed or ":effect" not in self.text:
            return 0
        n = min(top, len(logits))
        ids = np.argpartition(logits, len(logits) - n)[len(logits) - n:]
        bad = []
        for tok in ids:
            piece = piece_of(int(tok))
            if ")" in piece and np.isfinite(logits[tok]) and answer_key(self.text + piece) in self._keys:
                bad.append(int(tok))
        if not bad or len(bad) == n:
            return 0
        logits[bad] = -np.inf
        self.banned += len(bad)
        return len(bad)
