"""Show a run's progress: a tqdm bar with ETA and live class counts on a terminal, plain lines when piped."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from domain_drafter.bench.runner import Progress

SHORT = {"Syntax error": "syn", "Semantic error": "sem", "Different domain": "diff", "Equivalent": "eq",
         "error": "err"}


def class_counts_text(counts: dict) -> str:
    return " ".join(f"{SHORT.get(k, k)}={counts.get(k, 0)}" for k in SHORT if counts.get(k, 0) or k != "error")


def rate_text(per_min: float | None) -> str:
    """' (3.2 answers/min)', or '' before the first answer of the session."""
    return "" if per_min is None else f" ({per_min:.1f} answers/min)"


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class ProgressPrinter:
    """Callable for `run_experiment(on_progress=...)`. Plain mode prints at most one line per `every_s`."""

    def __init__(self, stream: TextIO | None = None, *, plain: bool | None = None, every_s: float = 5.0):
        self.stream = stream or sys.stderr
        self.plain = plain if plain is not None else not self.stream.isatty()
        self.every_s = every_s
        self._bar = None
        self._last = 0.0

    def __call__(self, p: Progress) -> None:
        if self.plain:
            now = time.monotonic()
            final = p.evaluated == p.total or p.message in ("finished", "stopped", "starting")
            if final or now - self._last >= self.every_s or p.message.startswith("loading"):
                self._last = now
                self.stream.write(f"[bench] {p.evaluated}/{p.total} judged, {p.generated} generated"
                                  f"{rate_text(p.answers_per_min)}, {class_counts_text(p.counts)}, "
                                  f"eta {format_eta(p.eta_s)}"
                                  + (f" - {p.message}" if p.message else "") + "\n")
                self.stream.flush()
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=p.total, initial=p.evaluated, unit="task", file=self.stream, dynamic_ncols=True)
        if p.evaluated > self._bar.n:
            self._bar.update(p.evaluated - self._bar.n)
        self._bar.set_postfix_str(f"gen {p.generated}{rate_text(p.answers_per_min)} {class_counts_text(p.counts)}",
                                  refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
