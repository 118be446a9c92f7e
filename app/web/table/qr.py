"""QR code images drawn on the server, as inline SVG (segno: pure Python, no image files)."""

from __future__ import annotations

import io

import segno
from markupsafe import Markup


def qr_svg(text: str, *, title: str) -> Markup:
    """An SVG QR code of `text` (dark modules on a white quiet zone, scales with its box)."""
    out = io.BytesIO()
    segno.make(text, error="m", micro=False).save(
        out, kind="svg", xmldecl=False, svgns=True, scale=4, border=4, nl=False,
        title=title, dark="#000", light="#fff", svgclass="qr", lineclass=None, omitsize=True,
    )
    return Markup(out.getvalue().decode("utf-8"))
