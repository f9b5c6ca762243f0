"""Render the app icon's PNG sizes from its SVG (run after editing the SVG; the PNGs are committed).

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py

Writes resources/icons/hicolor/<N>x<N>/apps/<app id>.png, the freedesktop icon-theme layout, so the
folder can be copied into ~/.local/share/icons as it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

APP_ID = "io.github.domaindrafter.DomainDrafter"
SIZES = (16, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SVG = ICONS / f"{APP_ID}.svg"


def png_path(size: int) -> Path:
    return ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def render(svg: Path, size: int) -> QImage:
    """The SVG drawn into a transparent size x size image (antialiased)."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - fonts and painting need it
    for size in SIZES:
        target = png_path(size)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not render(SVG, size).save(str(target), "PNG"):
            raise SystemExit(f"cannot write {target}")
        print(f"{target.relative_to(ICONS.parents[1])}: {size}x{size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
