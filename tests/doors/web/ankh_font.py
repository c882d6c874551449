"""The web door's ankh: a one-glyph font for ☥ (U+2625), made here with fontTools.

DejaVu Sans Mono's ankh has a loop whose hole closes at the sizes the browser's terminal
uses (16 px and less), so the Goth mark read as a dagger (†). This ankh keeps a wide open
loop on the same cell (DejaVu Sans Mono's advance and vertical metrics, so the grid does
not move); gother.css gives it to "Gother Mono" for U+2625 alone (`unicode-range`).
`python -m tests.doors.web.ankh_font` writes server/doors/web/static/fonts/GotherAnkh.ttf; the test
holds the file to what this builds, byte for byte.
"""

from __future__ import annotations

import math
from pathlib import Path

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen

FONT = Path(__file__).resolve().parents[3] / "server/doors/web/static/fonts/GotherAnkh.ttf"
EM, ADVANCE, ASCENT, DESCENT = 2048, 1233, 1901, -483  # DejaVu Sans Mono's
CENTRE = ADVANCE // 2
STEM = 150  # stroke width, in font units (2048 to the em)
ARMS_BOTTOM, ARMS_TOP = 820, 960
LOOP = (CENTRE, 1230, 300, 300)  # the loop's centre and outer radii
HOLE = (150, 165)  # its hole's radii: about 2.3 px wide at 16 px, open where DejaVu's closes
FIXED_TIME = 3_000_000_000  # seconds since 1904 (the font's epoch): reproducible bytes


def _box(pen: TTGlyphPen, left: int, bottom: int, right: int, top: int) -> None:
    pen.moveTo((left, bottom))  # clockwise: a filled outline in TrueType
    pen.lineTo((left, top))
    pen.lineTo((right, top))
    pen.lineTo((right, bottom))
    pen.closePath()


def _ellipse(pen: TTGlyphPen, cx: int, cy: int, rx: int, ry: int, clockwise: bool) -> None:
    """An ellipse of 16 points on and off the curve (quadratic arcs of 45 degrees)."""
    steps = [i * math.pi / 4 for i in range(8)]
    if clockwise:
        steps = [-a for a in steps]
    stretch = 1 / math.cos(math.pi / 8)  # the off-curve point of a 45-degree arc
    points = []
    for a in steps:
        points.append((round(cx + rx * math.cos(a)), round(cy + ry * math.sin(a))))
        mid = a + (-1 if clockwise else 1) * math.pi / 8
        points.append(
            (round(cx + rx * stretch * math.cos(mid)), round(cy + ry * stretch * math.sin(mid)))
        )
    pen.qCurveTo(*points, None)  # a closed contour of off-curve and on-curve points
    pen.closePath()


def ankh_glyph() -> object:
    pen = TTGlyphPen(None)
    cx, cy, rx, ry = LOOP
    _box(pen, CENTRE - STEM // 2, 0, CENTRE + STEM // 2, 900)  # the stem
    _box(pen, 156, ARMS_BOTTOM, ADVANCE - 156, ARMS_TOP)  # the arms
    _ellipse(pen, cx, cy, rx, ry, clockwise=True)  # the loop…
    _ellipse(pen, cx, cy, *HOLE, clockwise=False)  # …and its hole
    return pen.glyph()


def build() -> bytes:
    builder = FontBuilder(EM, isTTF=True)
    builder.setupGlyphOrder([".notdef", "uni2625"])
    builder.setupCharacterMap({0x2625: "uni2625"})
    builder.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "uni2625": ankh_glyph()})
    glyph_set = builder.font["glyf"]
    builder.setupHorizontalMetrics(
        {name: (ADVANCE, getattr(glyph_set[name], "xMin", 0)) for name in (".notdef", "uni2625")}
    )
    builder.setupHorizontalHeader(ascent=ASCENT, descent=DESCENT)
    builder.setupNameTable(
        {"familyName": "Gother Ankh", "styleName": "Regular", "copyright": "gother-than-thou"}
    )
    builder.setupOS2(
        sTypoAscender=ASCENT, sTypoDescender=DESCENT, usWinAscent=ASCENT, usWinDescent=-DESCENT
    )
    builder.setupPost(isFixedPitch=1)
    builder.updateHead(created=FIXED_TIME, modified=FIXED_TIME)
    path = FONT.with_suffix(".tmp")
    builder.save(str(path))
    data = path.read_bytes()
    path.unlink()
    return data


if __name__ == "__main__":
    FONT.write_bytes(build())
    print(f"wrote {FONT}")
