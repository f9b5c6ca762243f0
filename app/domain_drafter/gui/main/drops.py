"""What a drop onto the window means: a domain folder or a domain.pddl (no Qt widgets here)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData


def domain_path(path: Path) -> Path | None:
    """`path` if it is a folder holding domain.pddl or a .pddl file, else None."""
    if path.is_dir():
        return path if (path / "domain.pddl").is_file() else None
    if path.is_file() and path.suffix.lower() == ".pddl":
        return path
    return None


def dropped_domain(mime: QMimeData) -> Path | None:
    """The one local domain folder or domain file in a drop, or None."""
    if not mime.hasUrls():
        return None
    paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    if len(paths) != 1:
        return None
    return domain_path(paths[0])
