"""Under an action grammar, never write the same literal twice in one section, nor a literal and its negation.

A small model under the grammar falls into loops: `(in ?pkg ?airplane)` ten times over, until the
section's literal limit. A repeated literal adds nothing to an action (a conjunction is a set),
so the guard takes away, before each token is sampled, the tokens that can only lead to a
literal already written in the section being written. It knows every literal the section may
hold (ActionGrammar.literal_sets), so it bans a repeat as early as it is certain: after
`(in ?pkg ?airplane) (in`, the token `(in` is banned when `(in ?pkg ?airplane)` is the only `in`
literal the signature allows, not only the closing parenthesis (which the grammar would force).

Greedy (`mask`): it bans the repeating tokens the model likes more than its likeliest token that
the grammar allows and that does not repeat, so that token is taken. Sampling (`mask_refused`, on
logits the grammar has already masked): it bans every repeating token above the sampler's top-k
tokens that do not repeat, so no repeat can be drawn. `forbidden` literals (a search child told to take
them out of its parent's answer) are refused like repeats from the start of their section. Neither bans the last way on, so decoding
cannot dead-end (when every way on repeats, the repeat is written). Outside the precondition's
and the effect's conjunctions it does nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

_SECTIONS = (":precondition (and", ":effect (and")


def _complement(literal: str) -> str:
    """`(not A)` for `A`, `A` for `(not A)`."""
    return literal[5:-1] if literal.startswith("(not ") else f"(not {literal})"


def _prefixes(literals: Iterable[str]) -> frozenset[str]:
    return frozenset(lit[:i] for lit in literals for i in range(1, len(lit) + 1))


class LiteralGuard:
    """Bans the tokens that would repeat a literal of the section being written (see the module's docstring).

    `literals` is (precondition literals, effect literals), spelled as the grammar writes them.
    Feed it every piece of text the sequence writes (`feed`); call `mask` on the logits before sampling.
    """

    TOP = 64        # the likeliest tokens, looked at first
    CHUNK = 4096    # then the rest of the vocabulary, this many at a time

    def __init__(self, literals: tuple[Iterable[str], Iterable[str]],
                 forbidden: tuple[Iterable[str], Iterable[str]] | None = None):
        self._literals = tuple(frozenset(section) for section in literals)
        # literals the section may not hold at all (a search child told to take them out), as if written already
        self._forbidden = tuple(frozenset(section) for section in forbidden) if forbidden else (frozenset(),) * 2
        self._all_prefixes = tuple(_prefixes(section) for section in self._literals)
        self._live: dict[tuple[int, frozenset[str]], frozenset[str]] = {}
        self.text = ""
        self.banned = 0          # tokens banned so far (for tests and the log)

    def feed(self, piece: str) -> None:
        self.text += piece

    def state(self) -> tuple[int, set[str], str] | None:
        """(section index, the literals it may no longer hold, the literal being written), or None outside a
        conjunction. A literal may not be written again, and neither may its negation: `A` with `(not A)`
        is never applicable in a precondition and is just `A` in an effect (deletes come before adds)."""
        at, section = max((self.text.rfind(marker), i) for i, marker in enumerate(_SECTIONS))
        if at < 0:
            return None
        body = self.text[at + len(_SECTIONS[section]):]
        written: set[str] = set()
        depth, start = 0, 0
        for i, ch in enumerate(body):
            if ch == "(":
                if depth == 0:
                    start = i
                depth += 1
            elif ch == ")":
                if depth == 0:
                    return None   # the conjunction is closed
                depth -= 1
                if depth == 0:
                    written.add(body[start:i + 1])
        refused = written | {_complement(lit) for lit in written} | self._forbidden[section]
        return section, refused, body[start:] if depth else ""

    def _live_prefixes(self, section: int, written: set[str]) -> frozenset[str]:
        key = (section, frozenset(written))
        if key not in self._live:
            self._live[key] = _prefixes(self._literals[section] - written)
        return self._live[key]

    def repeats(self, piece: str, state: tuple[int, set[str], str]) -> bool:
        """True if writing `piece` now can only end in a literal already written in this section."""
        section, written, partial = state
        text = partial + piece
        if not partial:
            i = len(text) - len(text.lstrip(" \n\t"))
            if i == len(text):    # a space, which the grammar writes only before another literal
                return not self._live_prefixes(section, written)
            if text[i] != "(":
                return False      # the conjunction's closing parenthesis
            text = text[i:]
        depth = 0
        for i, ch in enumerate(text):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                return text[:i + 1] in written
        return text in self._all_prefixes[section] and text not in self._live_prefixes(section, written)

    @staticmethod
    def _allowed(ids: np.ndarray, logits: np.ndarray, allowed: Callable[[np.ndarray], np.ndarray]) -> list[int]:
        ids = ids[np.isfinite(logits[ids])].astype(np.int32)
        return [int(t) for t in ids[allowed(ids)]] if len(ids) else []

    def mask(self, logits: np.ndarray, piece_of: Callable[[int], str],
             allowed: Callable[[np.ndarray], np.ndarray]) -> int:
        """For greedy decoding: set to -inf, in place, the logits of the repeating tokens among the TOP likeliest,
        and of those the model likes more than its likeliest token that the grammar allows and that does not
        repeat; how many were banned. Nothing when the likeliest token is allowed and new.

        `allowed(ids)` says which of at most CHUNK token ids the grammar allows now, without changing its
        state. The TOP likeliest tokens are looked at first, the rest of the vocabulary in CHUNKs only
        when all of those repeat or are refused; when no token is left, nothing is banned."""
        state = self.state()
        if state is None:
            return 0
        best = np.array([int(np.argmax(logits))], dtype=np.int32)
        if allowed(best)[0] and not self.repeats(piece_of(int(best[0])), state):
            return 0              # greedy takes the likeliest token, which is allowed and new
        n = min(self.TOP, len(logits))
        top = np.argpartition(logits, len(logits) - n)[len(logits) - n:]
        top = top[np.argsort(-logits[top], kind="stable")]
        bad: list[int] = []
        found = False
        for tok in self._allowed(top, logits, allowed):        # the TOP likeliest: all (sampling may draw any)
            if self.repeats(piece_of(tok), state):
                bad.append(tok)
            else:
                found = True
        if not found and len(logits) > n:                       # further down, up to the first way on
            rest = np.argsort(-logits, kind="stable")[n:]
            for i in range(0, len(rest), self.CHUNK):
                for tok in self._allowed(rest[i:i + self.CHUNK], logits, allowed):
                    if not self.repeats(piece_of(tok), state):
                        found = True
                        break
                    bad.append(tok)
                if found:
                    break
        if not found or not bad:
            return 0              # nothing repeats, or every way on repeats: let the repeat be written
        logits[bad] = -np.inf
        self.banned += len(bad)
        return len(bad)

    def mask_refused(self, logits: np.ndarray, piece_of: Callable[[int], str], keep: int) -> int:
        """For sampling: `logits` already hold -inf where the grammar refuses a token. Ban the repeating
        tokens, likeliest first, until `keep` tokens that do not repeat are left above them (the sampler's
        top-k), so that no repeat can be drawn; nothing when every allowed token repeats."""
        state = self.state()
        if state is None:
            return 0
        ids = np.flatnonzero(np.isfinite(logits))
        bad: list[int] = []
        good = 0
        for tok in ids[np.argsort(-logits[ids], kind="stable")]:
            if self.repeats(piece_of(int(tok)), state):
                bad.append(int(tok))
            else:
                good += 1
                if good >= keep:
                    break
        if not good or not bad:
            return 0
        logits[bad] = -np.inf
        self.banned += len(bad)
        return len(bad)
