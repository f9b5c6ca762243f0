"""Refuse a Qt binding that corrupts Python's reference count of None, before it can lose work.

PySide6 6.12.0 on Python 3.11 drops one reference to None on every Qt call that returns nothing
(`setWindowTitle`, `setFormat`, ...). None is not immortal before Python 3.12, so after a few
hundred thousand such calls (minutes of typing with syntax highlighting on) the interpreter
aborts with "Fatal Python error: none_dealloc". The start-up guard measures the drift over a
short burst of void calls and refuses to start instead, naming the fix.
"""

from __future__ import annotations

import sys

GOOD_VERSION = "6.11.3"       # the newest PySide6-Essentials measured stable on Python 3.11
BURST = 500                   # void Qt calls per measurement: well under a millisecond
IMMORTAL_NONE = (3, 12)       # from this Python on, None's reference count never changes


def none_refcount_drift(calls: int = BURST) -> int:
    """How much `sys.getrefcount(None)` moves across `calls` void Qt calls (about 0 on a sound binding)."""
    from PySide6.QtCore import QObject

    probe = QObject()
    probe.setObjectName("warm-up")   # first call: any one-time caching happens outside the count
    before = sys.getrefcount(None)
    for _ in range(calls):
        probe.setObjectName("refcount-probe")
    drift = sys.getrefcount(None) - before
    if drift < 0:
        # Give back what the probe itself took, for good (a list would hand them back at exit),
        # so measuring never brings the abort closer.
        import ctypes

        for _ in range(-drift):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))
    return drift


def binding_problem(calls: int = BURST) -> str | None:
    """Why this Qt binding must not run here (what, the cause, the fix), or None if it is sound."""
    if sys.version_info >= IMMORTAL_NONE:
        return None
    drift = none_refcount_drift(calls)
    if drift > -calls // 2:
        return None
    import PySide6

    python = ".".join(map(str, sys.version_info[:3]))
    return (f"PySide6 {PySide6.__version__} on Python {python} corrupts Python's reference count of None "
            f"({drift:+d} over {calls} Qt calls), so the app would abort within minutes of use "
            f"(\"Fatal Python error: none_dealloc\") and lose unsaved work. Install a sound binding: "
            f"{sys.executable} -m pip install 'PySide6-Essentials=={GOOD_VERSION}' (or use Python 3.12 or newer).")
