"""What every text-generation backend takes and returns, independent of how the model runs.

A backend is loaded once and then asked for many generations. `DecodingOptions` defaults are the
paper's decoding settings: greedy decoding, at most 300 new tokens, and generation stops at the
next "Input:" or "Allowed Predicates:" (the start of the next few-shot example).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from domain_drafter.core.tasks import TaskState

PAPER_STOP: tuple[str, ...] = ("Input:", "Allowed Predicates:")

StopReason = Literal["stop", "length", "cancelled", "eos", "loop"]   # loop: DecodingOptions.stop_loops

# How the prompt reaches the model: "completion" is the paper's plain text continued as is; "chat"
# sends it as one user message in the model's own chat template (from its GGUF metadata).
PromptFormat = Literal["completion", "chat"]
PROMPT_FORMATS: tuple[str, ...] = ("completion", "chat")


class Conversation(str):
    """A prompt with earlier turns (a corrective round): the user's prompt, the model's answer, the user's feedback...

    Its value as a `str` is the completion-format text (the turns as one continued text, exactly what
    the paper's format sends), so every backend can read it as a plain prompt. A chat-format backend
    sends `turns` as the conversation's messages instead, each in its own role.
    """

    turns: tuple[tuple[str, str], ...]

    def __new__(cls, turns: tuple[tuple[str, str], ...] | list[tuple[str, str]], text: str) -> Conversation:
        roles = [r for r, _ in turns]
        if not turns or roles[0] != "user" or roles[-1] != "user" or any(
                r != ("user" if i % 2 == 0 else "assistant") for i, r in enumerate(roles)):
            raise ValueError("a conversation alternates user and assistant turns, from a user turn to a user turn")
        obj = super().__new__(cls, text)
        obj.turns = tuple((str(r), str(c)) for r, c in turns)
        return obj

    def __reduce__(self):
        return (Conversation, (self.turns, str(self)))


def messages_of(prompt: str) -> list[tuple[str, str]]:
    """The chat messages of a prompt: its turns (a Conversation), else the prompt as the one user message."""
    return list(prompt.turns) if isinstance(prompt, Conversation) else [("user", str(prompt))]


# Sampling (temperature > 0), in this order: the TOP_K likeliest tokens, the temperature, then the smallest set of them
# holding TOP_P of the heated probability (llm/sampling_chain.py: llama.cpp's chain in process, the same asked of a server).
TOP_K = 40
TOP_P = 0.95
SAMPLER_ORDER = ("top_k", "temperature", "top_p")   # llama-server's names for that chain


@dataclass(frozen=True)
class DecodingOptions:
    """How to decode. temperature 0.0 means greedy (argmax at every step, top_k=1)."""

    max_tokens: int = 300
    temperature: float = 0.0
    stop: tuple[str, ...] = PAPER_STOP
    seed: int = 0
    grammar: str | None = None  # GBNF text constraining the output, or None
    # With an action grammar: the literals its precondition and its effect may hold (ActionGrammar.literal_sets).
    # The local backend then never writes a literal twice in one section (llm/literal_guard.py); a server ignores it.
    literals: tuple[tuple[str, ...], tuple[str, ...]] | None = field(default=None, compare=False, repr=False)
    # With literals: those the precondition and the effect may not hold at all (a guided search child told to take
    # them out of its parent's answer); refused like repeats. None: none.
    forbidden: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    # With literals, and no :negative-preconditions in the domain: the effect may not change a predicate the precondition
    # negates (a negated predicate must stay static, with the answer in place; ActionGrammar.static_negations).
    static_negations: bool = False
    # With literals: pairs of precondition literals that never hold together in a reachable state (from the domain's
    # proven invariants, planning/invariants.exclusive_preconditions): once one is written the other is refused.
    exclusive: tuple[tuple[str, str], ...] | None = field(default=None, repr=False)
    # Answers judged before (their texts): the effect is not closed into one of them, so a guided search's call
    # writes a new answer (llm/literal_guard.py under the grammar, llm/answer_tabu.py without). None: none.
    judged: tuple[str, ...] | None = field(default=None, repr=False)
    # End the answer when its last stretch of text, with a '(' in it, has come three times in a row (LoopWatch):
    # a small model's answer that repeats literals until the token limit. Off in the paper's protocol; a search
    # turns it on with its quick fixes, which close such an answer (core/answer_repair.py).
    stop_loops: bool = False
    # Speculative decoding from the prompt on a local model (llm/speculate.py): guessed tokens checked in one batch.
    # Greedy answers are the same either way; sampled ones keep their distribution but differ. A server ignores it.
    speculate: bool = False   # prompt-lookup speculation (llm/speculate.py): opt-in, see cli/options --speculate

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if isinstance(self.stop, str):  # a bare string would be read as a tuple of characters
            object.__setattr__(self, "stop", (self.stop,))
        else:
            object.__setattr__(self, "stop", tuple(self.stop))
        if any(not s for s in self.stop):
            raise ValueError("stop sequences must be non-empty strings")


class CallbackError(Exception):
    """Carries an exception raised by an on_token callback out of a decoding loop (either backend's),
    so it reaches the caller as itself, not as a model failure."""

    def __init__(self, original: BaseException):
        super().__init__(repr(original))
        self.original = original


@dataclass(frozen=True)
class GenerationStats:
    """Measurements of one generation.

    time_to_first_token_s: from the call until the first new token was sampled (prompt
    evaluation included). tokens_per_s: decoding speed after the first token
    ((generated_tokens - 1) / (wall_time_s - time_to_first_token_s)); 0.0 with fewer than two
    tokens. generated_tokens counts sampled tokens, including one that completed a stop sequence.
    """

    prompt_tokens: int
    generated_tokens: int
    time_to_first_token_s: float
    tokens_per_s: float
    wall_time_s: float
    stop_reason: StopReason


@dataclass(frozen=True)
class Generation:
    """The generated text (stop sequence excluded) and how it went."""

    text: str
    stats: GenerationStats


@runtime_checkable
class GenerationBackend(Protocol):
    """A loaded model that turns prompts into text. Use as a context manager or call close()."""

    @property
    def name(self) -> str: ...

    def generate(
        self,
        prompt: str,
        options: DecodingOptions,
        *,
        on_token: Callable[[str], None] | None = None,
        task: TaskState | None = None,
    ) -> Generation:
        """Continue `prompt`. `on_token` receives the text pieces as they are final (their
        concatenation equals the returned text). If `task` is cancelled, generation stops within
        one token and returns the partial text with stop_reason "cancelled"."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> GenerationBackend: ...

    def __exit__(self, *exc: object) -> None: ...


# Why a guided search needs the model in this process (every front end that refuses one on a served model says it).
GUIDED_NEEDS_LOGITS = ("its refusals (no answer judged before, no literal the feedback removed) act on the model's "
                       "logits, which a server keeps to itself")


def steers_tokens(backend: object) -> bool:
    """True if `backend` applies the options that act on each token's logits, `judged` and `forbidden` (a guided
    search's refusals): a model in this process does, a server does not (it takes a grammar, never our logits)."""
    return bool(getattr(backend, "steers_tokens", False))


def make_stats(
    *,
    prompt_tokens: int,
    generated_tokens: int,
    t_start: float,
    t_first: float | None,
    t_end: float,
    stop_reason: StopReason,
) -> GenerationStats:
    """Build GenerationStats from perf_counter() timestamps (t_first None: no token came)."""
    wall = max(0.0, t_end - t_start)
    ttft = (t_first - t_start) if t_first is not None else wall
    decode_time = t_end - t_first if t_first is not None else 0.0
    tps = (generated_tokens - 1) / decode_time if generated_tokens > 1 and decode_time > 0 else 0.0
    return GenerationStats(
        prompt_tokens=prompt_tokens,
        generated_tokens=generated_tokens,
        time_to_first_token_s=ttft,
        tokens_per_s=tps,
        wall_time_s=wall,
        stop_reason=stop_reason,
    )


class LoopWatch:
    """Tells when streamed text ends in the same stretch three times in a row: `COPIES` copies of a period
    of `SHORTEST` to `LONGEST` characters holding a '('. Only the answer's end is looked at, once per piece."""

    COPIES = 3
    SHORTEST = 12
    LONGEST = 160

    def __init__(self) -> None:
        self._text = ""

    def feed(self, piece: str) -> bool:
        """Take the next piece of the answer; True when the answer now ends in a loop."""
        self._text = (self._text + piece)[-self.COPIES * self.LONGEST:]
        t, n = self._text, len(self._text)
        for period in range(self.SHORTEST, min(self.LONGEST, n // self.COPIES) + 1):
            last = t[n - period:]
            if "(" in last and all(t[n - (k + 1) * period:n - k * period] == last for k in range(1, self.COPIES)):
                return True
        return False


class StopScanner:
    """Applies stop sequences to streamed text and releases only text that is final.

    feed(piece) returns the text that can be shown now: everything except a tail that might be
    the beginning of a stop sequence. Once a stop sequence is found, `stopped` is True and the
    text before it (and nothing after) has been released. finish() releases the held-back tail.
    The concatenation of everything released equals `text`.
    """

    def __init__(self, stops: tuple[str, ...]):
        self._stops = tuple(s for s in stops if s)
        self._longest = max((len(s) for s in self._stops), default=0)
        self._buf = ""  # all text received
        self._released = 0  # len of the prefix of _buf already released
        self.stopped = False

    @property
    def text(self) -> str:
        return self._buf[: self._released]

    def feed(self, piece: str) -> str:
        if self.stopped or not piece:
            return ""
        search_from = max(0, len(self._buf) - self._longest + 1)
        self._buf += piece
        cut = -1
        for s in self._stops:
            i = self._buf.find(s, search_from)
            if i != -1 and (cut == -1 or i < cut):
                cut = i
        if cut != -1:
            self.stopped = True
            self._buf = self._buf[:cut]
            return self._release(cut)
        return self._release(len(self._buf) - self._held_tail())

    def finish(self) -> str:
        return self._release(len(self._buf))

    def _held_tail(self) -> int:
        """Length of the longest suffix of the buffer that is a proper prefix of a stop."""
        buf = self._buf
        for n in range(min(self._longest - 1, len(buf)), 0, -1):
            tail = buf[-n:]
            if any(s.startswith(tail) for s in self._stops):
                return n
        return 0

    def _release(self, upto: int) -> str:
        upto = max(upto, self._released)
        out = self._buf[self._released : upto]
        self._released = upto
        return out
