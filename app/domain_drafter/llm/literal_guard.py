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
them out of its parent's answer) are refused like repeats from the start of their section. `judged` answers
(the texts of the search's answers judged before): the effect's conjunction may not be closed where the
answer's sections would hold the same literals as one of them (the signature is the grammar's), so a call that would
repeat one writes another literal instead of being wasted; and an effect literal after which every effect that can
still follow is judged (a dead end: measured on depot `drive`, ten calls in a row wrote the one answer that the two
literals `(not (at ?truck ?from)) (not (at ?truck ?to))` leave) is refused like a repeat, as early as that is certain;
so are closing the precondition where every effect that can follow it is judged with it, and a precondition
literal after which every precondition that can follow closes so.
With `static_negations` (a domain without :negative-preconditions), an effect literal on a predicate the precondition
negates is refused like a repeat: a negated predicate must stay static. `exclusive` pairs of precondition literals
(two that no reachable state makes true together, from the domain's proven invariants: planning/invariants.py
exclusive_preconditions) are refused like repeats once the other is written; and with them the effect may not hold
a literal that does nothing where the precondition holds: one of the precondition's own literals, or the delete of
an atom exclusive with one of them. Such a literal only keeps its complement out (Qwen wrote `(not (handempty))`
into blocksworld `stack`, which then could never add `(handempty)`, and `(clear ?y)` under a `(clear ?y)`
precondition where `(not (clear ?y))` was needed). The dead-end test counts these refusals too. None of these bans the last way on, so decoding
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


def _conjunction(body: str) -> tuple[set[str], str | None]:
    """The literals a conjunction's body holds so far, and the literal being written ("" between literals);
    None for the second when the conjunction is closed."""
    written: set[str] = set()
    depth, start = 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            if depth == 0:
                return written, None   # the conjunction is closed
            depth -= 1
            if depth == 0:
                written.add(body[start:i + 1])
    return written, body[start:] if depth else ""


def written_literals(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The literals an action's precondition and effect conjunctions hold, each spelled with single spaces
    (for `judged`: the search's answers, as the guard compares them)."""
    text = " ".join(text.split())
    out = []
    for marker in _SECTIONS:
        at = text.find(marker)
        written = _conjunction(text[at + len(marker):])[0] if at >= 0 else set()
        out.append(frozenset(map(spelled_literal, written)))
    return out[0], out[1]


def spelled_literal(literal: str) -> str:
    """A literal with single spaces between its words and none inside its parentheses."""
    return " ".join(literal.replace("(", " ( ").replace(")", " ) ").split()).replace("( ", "(").replace(" )", ")")


def _predicate(literal: str) -> str:
    """The predicate a literal, written as the grammar writes it, is about."""
    atom = literal[5:-1] if literal.startswith("(not ") else literal
    return atom[1:].split(" ", 1)[0].rstrip(")")


def negated_predicates(precondition: Iterable[str]) -> frozenset[str]:
    """The predicates a precondition's literals negate."""
    return frozenset(_predicate(lit) for lit in precondition if lit.startswith("(not "))


def changes_what_it_negates(text: str) -> bool:
    """True if an action's effect changes a predicate its precondition negates: without :negative-preconditions
    a negated predicate must be static, and the answer is judged with itself in place, so it is a BPError."""
    pre, eff = written_literals(text)
    return bool(negated_predicates(pre) & {_predicate(lit) for lit in eff})


def effect_closed(text: str) -> bool:
    """True once the effect's conjunction of an action's text is closed."""
    text = " ".join(text.split())
    at = text.find(_SECTIONS[1])
    return at >= 0 and _conjunction(text[at + len(_SECTIONS[1]):])[1] is None


def _effects(written: frozenset[str], free: set[str], limit: int) -> list[frozenset[str]]:
    """Up to `limit` effects that can follow `written`: it, then it with one or more of the `free` literals,
    never a literal with its negation; smallest first."""
    out = [written]
    frontier = [(written, sorted(free))]
    while frontier and len(out) < limit:
        grown = []
        for held, rest in frontier:
            for i, lit in enumerate(rest):
                if _complement(lit) in held:
                    continue
                bigger = held | {lit}
                out.append(bigger)
                if len(out) >= limit:
                    return out
                grown.append((bigger, rest[i + 1:]))
        frontier = grown
    return out


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
                 forbidden: tuple[Iterable[str], Iterable[str]] | None = None,
                 judged: Iterable[str] | None = None, *, static_negations: bool = False,
                 exclusive: Iterable[tuple[str, str]] | None = None):
        self._literals = tuple(frozenset(section) for section in literals)
        # the effect may not change a predicate the precondition negates (no :negative-preconditions in the domain)
        self._static_negations = static_negations
        self._kept_static: dict[frozenset[str], frozenset[str]] = {}
        # literals the section may not hold at all (a search child told to take them out), as if written already
        self._forbidden = tuple(frozenset(section) for section in forbidden) if forbidden else (frozenset(),) * 2
        # precondition literals that never hold together: once one is written, the other is refused
        self._exclusive: dict[str, set[str]] = {}
        self._no_ops: dict[frozenset[str], frozenset[str]] = {}
        for a, b in exclusive or ():
            self._exclusive.setdefault(a, set()).add(b)
            self._exclusive.setdefault(b, set()).add(a)
        # answers the effect may not be closed into (the texts of answers judged before), as their sections' literals
        self._judged = frozenset(map(written_literals, judged)) if judged else frozenset()
        self._all_prefixes = tuple(_prefixes(section) for section in self._literals)
        self._live: dict[tuple[int, frozenset[str]], frozenset[str]] = {}
        self._dead: dict[tuple[frozenset[str], frozenset[str]], frozenset[str]] = {}
        self._dead_now: tuple[str, frozenset[str]] | None = None   # (the text, its dead ends): one parse per token
        self._closed_dead: dict[frozenset[str], bool] = {}          # precondition -> only judged effects follow it
        self._pre_dead: dict[frozenset[str], frozenset[str]] = {}   # precondition so far -> its dead-end literals
        self._pre_now: tuple[str, frozenset[str]] | None = None        # (the text, its precondition's literals)
        self.text = ""
        self.banned = 0          # tokens banned so far (for tests and the log)
        self.stuck = False       # the last mask found no token that neither repeats nor closes a judged answer

    def feed(self, piece: str) -> None:
        self.text += piece

    def refuses(self, piece: str, before: str = "") -> bool:
        """True if writing `piece` after the text so far and `before` can only repeat a literal (or close a judged
        answer): a guessed token the guard may ban (llm/speculate.py cuts the guess there)."""
        text = self.text
        self.text = text + before
        try:
            state = self.state()
            return state is not None and self.repeats(piece, state)
        finally:
            self.text = text

    def state(self) -> tuple[int, set[str], str] | None:
        """(section index, the literals it may no longer hold, the literal being written), or None outside a
        conjunction. A literal may not be written again, and neither may its negation: `A` with `(not A)`
        is never applicable in a precondition and is just `A` in an effect (deletes come before adds)."""
        at, section = max((self.text.rfind(marker), i) for i, marker in enumerate(_SECTIONS))
        if at < 0:
            return None
        written, partial = _conjunction(self.text[at + len(_SECTIONS[section]):])
        if partial is None:
            return None
        refused = written | {_complement(lit) for lit in written} | self._forbidden[section]
        if section == 0 and self._exclusive:
            refused |= {other for lit in written for other in self._exclusive.get(lit, ())}
        if section == 1 and self._exclusive:
            refused |= self._no_ops_by(written_literals(self.text)[0])
        if section == 1 and self._static_negations:
            refused |= self._kept_static_by(written_literals(self.text)[0])
        return section, refused, partial

    def _no_ops_by(self, precondition: frozenset[str]) -> frozenset[str]:
        """The effect literals that do nothing where `precondition` holds: its own literals (adding an atom it
        holds true, deleting one it holds false) and the deletes of atoms exclusive with one of its literals. Each
        also keeps its complement, which may be what the effect needs, from being written."""
        if precondition not in self._no_ops:
            self._no_ops[precondition] = precondition | frozenset(
                f"(not {other})" for lit in precondition for other in self._exclusive.get(lit, ()))
        return self._no_ops[precondition]

    def _kept_static_by(self, precondition: frozenset[str]) -> frozenset[str]:
        """The effect literals on a predicate `precondition` negates: refused like repeats, for a negated predicate
        must stay static."""
        if precondition not in self._kept_static:
            negated = negated_predicates(precondition)
            self._kept_static[precondition] = frozenset(
                lit for lit in self._literals[1] if _predicate(lit) in negated) if negated else frozenset()
        return self._kept_static[precondition]

    def closes_judged(self, piece: str) -> bool:
        """True if `piece`, which closes the effect's conjunction, makes an answer judged before."""
        return bool(self._judged) and written_literals(self.text + piece) in self._judged

    def _live_prefixes(self, section: int, written: set[str]) -> frozenset[str]:
        dead = self._dead_ends(section) if self._judged else frozenset()
        key = (section, frozenset(written | dead))
        if key not in self._live:
            self._live[key] = _prefixes(self._literals[section] - written - dead)
        return self._live[key]

    def _dead_ends(self, section: int) -> frozenset[str]:
        """The literals of `section` that, written next, leave only answers judged before to be written."""
        return self._effect_dead_ends() if section == 1 else self._precondition_dead_ends()

    def _precondition_dead_ends(self) -> frozenset[str]:
        """The precondition literals after which every precondition that can follow (it, with any of the other
        literals neither written nor negated) closes into one that leaves only judged effects: gripper `move`'s
        `(not (at-robby ?to))` after `(at-robby ?from) (free right) (free left)`, once its four effects were judged."""
        pre = self._precondition_now()
        if pre not in self._pre_dead:
            dead: set[str] = set()
            if any(p >= pre for p, _ in self._judged):
                forbidden = {spelled_literal(lit) for lit in self._forbidden[0]}
                spelled = {spelled_literal(lit): lit for lit in self._literals[0]
                           if spelled_literal(lit) not in forbidden}
                free = {lit for lit in spelled if lit not in pre and _complement(lit) not in pre}
                for lit in free:
                    grown = _effects(pre | {lit}, free - {lit, _complement(lit)}, len(self._judged) + 1)
                    if all(self.closes_into_judged(p) for p in grown):
                        dead.add(spelled[lit])
            self._pre_dead[pre] = frozenset(dead)
        return self._pre_dead[pre]

    def _precondition_now(self) -> frozenset[str]:
        """The precondition's literals written so far (asked once per candidate token: parsed once per text)."""
        if self._pre_now is None or self._pre_now[0] is not self.text:
            self._pre_now = (self.text, written_literals(self.text)[0])
        return self._pre_now[1]

    def _effect_dead_ends(self) -> frozenset[str]:
        """The effect literals that, written next, leave only answers judged before to close the effect into:
        every effect that can still follow (the literals written, that one, and any of the others that are
        neither written nor negated) is one judged with this precondition. Refused like repeats, so the call
        turns away from a judged answer while it still can, not only at the effect's last parenthesis."""
        if self._dead_now is not None and self._dead_now[0] is self.text:
            return self._dead_now[1]       # asked once per candidate token: the text is parsed once per token
        pre, eff = written_literals(self.text)
        key = (pre, eff)
        if key not in self._dead:
            near = {e for p, e in self._judged if p == pre and e >= eff}
            dead: set[str] = set()
            if near:
                spelled = self._effect_choices(pre)
                free = {lit for lit in spelled if lit not in eff and _complement(lit) not in eff}
                for lit in free:
                    if all(e in near for e in _effects(eff | {lit}, free - {lit, _complement(lit)}, len(near) + 1)):
                        dead.add(spelled[lit])
            self._dead[key] = frozenset(dead)
        self._dead_now = (self.text, self._dead[key])
        return self._dead[key]

    def _effect_choices(self, pre: frozenset[str]) -> dict[str, str]:
        """The effect literals an answer with precondition `pre` may hold, spelled -> as the grammar writes them:
        all but the forbidden ones, those on a predicate `pre` negates (`static_negations`) and those that do
        nothing where `pre` holds (with `exclusive`)."""
        refused = set(self._forbidden[1])
        refused |= self._kept_static_by(pre) if self._static_negations else set()
        refused |= self._no_ops_by(pre) if self._exclusive else set()
        refused_spelled = {spelled_literal(lit) for lit in refused}
        return {spelled_literal(lit): lit for lit in self._literals[1] if spelled_literal(lit) not in refused_spelled}

    def closes_into_judged(self, pre: frozenset[str] | None = None) -> bool:
        """True if the precondition `pre` (None: the one written so far), closed, leaves only effects judged with
        it before: Qwen wrote gripper `move` with `(not (at-robby ?to))` in its precondition, after which (no
        :negative-preconditions, so at-robby must stay static) only effects on `free` were left, and once those four
        were judged it wrote the first again, 8 of its 16 calls."""
        pre = self._precondition_now() if pre is None else pre
        if pre not in self._closed_dead:
            near = {e for p, e in self._judged if p == pre}
            self._closed_dead[pre] = bool(near) and all(
                e in near for e in _effects(frozenset(), set(self._effect_choices(pre)), len(near) + 1))
        return self._closed_dead[pre]

    def repeats(self, piece: str, state: tuple[int, set[str], str]) -> bool:
        """True if writing `piece` now can only end in a literal already written in this section."""
        section, written, partial = state
        text = partial + piece
        if not partial:
            i = len(text) - len(text.lstrip(" \n\t"))
            if i == len(text):    # a space, which the grammar writes only before another literal
                return not self._live_prefixes(section, written)
            if text[i] != "(":    # the conjunction's closing parenthesis
                if text[i] != ")" or not self._judged:
                    return False
                return self.closes_judged(piece) if section == 1 else self.closes_into_judged()
            text = text[i:]
        depth = 0
        for i, ch in enumerate(text):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:        # the literal is written, and the piece may close the conjunction too
                if text[:i + 1] in written or (self._judged and text[:i + 1] in self._dead_ends(section)):
                    return True
                if not self._judged or not text[i + 1:].lstrip(" \n\t").startswith(")"):
                    return False
                if section == 1:
                    return self.closes_judged(piece)
                return self.closes_into_judged(self._precondition_now() | {spelled_literal(text[:i + 1])})
        return text in self._all_prefixes[section] and text not in self._live_prefixes(section, written)

    @staticmethod
    def _allowed(ids: np.ndarray, logits: np.ndarray, allowed: Callable[[np.ndarray], np.ndarray]) -> list[int]:
        ids = ids[np.isfinite(logits[ids])].astype(np.int32)
        return [int(t) for t in ids[allowed(ids)]] if len(ids) else []

    def _softly(self, ban: Callable[[], int | None]) -> int:
        """Run `ban` (None: it found no way on); with no way on, again without `judged`: an answer judged before
        is better than a literal written twice, which is all that is left when nothing new can follow."""
        banned = ban()
        self.stuck = banned is None
        if self.stuck and self._judged:
            judged, self._judged = self._judged, frozenset()
            try:
                banned = ban()
            finally:
                self._judged = judged
        return banned or 0

    def mask(self, logits: np.ndarray, piece_of: Callable[[int], str],
             allowed: Callable[[np.ndarray], np.ndarray]) -> int:
        """Greedy decoding's bans (`_mask`), how many."""
        return self._softly(lambda: self._mask(logits, piece_of, allowed))

    def mask_refused(self, logits: np.ndarray, piece_of: Callable[[int], str], keep: int) -> int:
        """Sampling's bans (`_mask_refused`), how many."""
        return self._softly(lambda: self._mask_refused(logits, piece_of, keep))

    def _mask(self, logits: np.ndarray, piece_of: Callable[[int], str],
              allowed: Callable[[np.ndarray], np.ndarray]) -> int | None:
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
        if not found:
            return None           # every way on repeats: let the repeat be written
        if not bad:
            return 0              # nothing repeats
        logits[bad] = -np.inf
        self.banned += len(bad)
        return len(bad)

    def _mask_refused(self, logits: np.ndarray, piece_of: Callable[[int], str], keep: int) -> int | None:
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
        if not good:
            return None
        if not bad:
            return 0
        logits[bad] = -np.inf
        self.banned += len(bad)
        return len(bad)
