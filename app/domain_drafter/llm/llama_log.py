"""Capture what llama.cpp says while it loads a model or parses a grammar, so errors can quote it.

llama.cpp explains most failures only in its log (or on file descriptor 2, for the grammar
parser); llama-cpp-python hides that log unless verbose=True. The backend wraps a load in
`CaptureLog` and a grammar parse in `CaptureStderr`, and puts what they caught into its
ModelError.
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Any

# --- capturing llama.cpp's log while a model loads -------------------------------------------
# llama.cpp explains a failed load only in its log, which llama-cpp-python hides unless
# verbose=True. While loading we point llama.cpp's log at our own callback, keep the warnings and
# errors, and put them in the ModelError. The callback object lives at module level forever:
# llama.cpp keeps a raw pointer to it, and a freed ctypes callback would crash the process.

load_lock = threading.Lock()  # llama.cpp has one global log callback: one load or grammar parse at a time
_captured: list[tuple[int, str]] | None = None
_log_callback: Any = None


def _install_log_capture(llama_cpp: Any) -> None:
    global _log_callback
    if _log_callback is not None:
        return

    _log_callback = llama_cpp.llama_log_callback(_on_log)


# llama.cpp's note after a decode that a Stop aborted (the batch's rollback): not a problem, not printed
_QUIET = (b"removing memory module entries",)


def _on_log(level: int, text: bytes, user: Any) -> None:
    """While a load is captured, keep the line; otherwise llama-cpp-python's own logger prints it, unless quiet."""
    if _captured is not None:
        _captured.append((level, text.decode("utf-8", errors="replace")))
    elif not any(quiet in text for quiet in _QUIET):
        from llama_cpp import _logger

        _logger.llama_log_callback(level, text, user)


class CaptureLog:
    """While entered, llama.cpp's log lines go to `lines` (unless verbose: then to the terminal as usual)."""

    def __init__(self, llama_cpp: Any, verbose: bool):
        self.llama_cpp = llama_cpp
        self.verbose = verbose
        self.lines: list[tuple[int, str]] = []

    def __enter__(self) -> CaptureLog:
        global _captured
        if not self.verbose:  # verbose: let llama-cpp-python print everything as usual
            _install_log_capture(self.llama_cpp)
            _captured = self.lines
            self.llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))
        return self

    def __exit__(self, *exc: object) -> None:
        global _captured
        if not self.verbose:
            _captured = None   # the callback stays: it passes the lines on to llama-cpp-python's logger

    def problems(self) -> str:
        """The warning and error lines, with their continuations.

        Levels follow today's ggml enum (DEBUG=1, INFO=2, WARN=3, ERROR=4, CONT=5).
        llama-cpp-python's _logger still documents the older numbering (ERROR=3, DEBUG=4), so it
        files llama.cpp's errors as debug output and hides them unless verbose=True.
        """
        out: list[str] = []
        keep = False
        for level, text in self.lines:
            if level in (3, 4):
                keep = True
            elif level != 5:
                keep = False
            if keep:
                out.append(text)
        return "".join(out).strip()


class CaptureStderr:
    """Collect what C code writes to file descriptor 2 (llama.cpp's grammar parser does)."""

    def __enter__(self) -> CaptureStderr:
        import sys
        import tempfile

        self.text = ""
        try:
            sys.stderr.flush()
        except Exception:
            pass
        self._tmp = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._tmp.fileno(), 2)
        return self

    def __exit__(self, *exc: object) -> None:
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._tmp.seek(0)
        self.text = self._tmp.read().decode("utf-8", errors="replace").strip()
        self._tmp.close()
