"""The web door's font has every glyph the client draws: the glyph table, and every
character on the screens the client shows (table, help, viewers, game over, lobby, the
name screen), as rendered by the real app. A glyph missing from the font would be drawn
from a fallback font of another width, overlapping the next cell."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from textual.pilot import Pilot

from gother_tui.core.glyphs import UNICODE
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens.game_over import GameOverScreen
from server.doors.web.door import STATIC
from tests.doors.web import ankh_font
from tests.tui.clientkit import URL, FakeServer, at_table, screen_text, until
from tests.tui.viewkit import TABLE, distribute_game, draw_game, join_with, wire_view

FONTS = [STATIC / "fonts" / name for name in ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf")]


def covered(font: Path) -> set[str]:
    return {chr(code) for code in TTFont(font).getBestCmap()}


def drawn(text: str) -> set[str]:
    return {c for c in text if not c.isascii() and not c.isspace()}


async def screens(store: Path, wire: dict, keys: tuple[str, ...]) -> set[str]:
    """Every non-ASCII character on the screens met at a table showing `wire` while
    `keys` are pressed one by one (`store`: a seat file of this run's own)."""
    fake = FakeServer()
    fake.handlers["join"] = join_with(wire)
    app = GotherApp(
        ClientOptions(url=URL, name="Raven", table=TABLE),
        transport=fake.transport,
        seat_store=SeatStore(store),
    )
    seen: set[str] = set()
    pilot: Pilot
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        if wire["phase"] == "over":
            await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "game over")
        seen |= drawn(screen_text(pilot))
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            seen |= drawn(screen_text(pilot))
    return seen


@pytest.mark.slow
async def test_every_glyph_the_client_draws_is_in_the_bundled_font(tmp_path):
    over = wire_view(distribute_game())
    over.update(phase="over", winner=[1], to_act=None, legal=None)
    views = {
        "distribute": (wire_view(distribute_game()), ("1", "down", "2", "3", "h", "f", "escape")),
        "draw": (wire_view(draw_game()), ("x", "escape", "l", "escape", "question_mark")),
        "over": (over, ()),
    }
    seen = {c for value in dataclasses.asdict(UNICODE).values() if isinstance(value, str)
            for c in drawn(value)}  # fmt: skip
    for name, (wire, keys) in views.items():
        seen |= await screens(tmp_path / f"{name}.json", wire, keys)
    assert {"☥", "☠", "⚙", "▶", "▏", "·", "╭"} <= seen  # the screens were really drawn
    for font in FONTS:
        missing = sorted(seen - covered(font))
        assert not missing, f"{font.name} lacks {missing}"


def test_the_goth_mark_comes_from_the_ankh_font_whose_loop_stays_open():
    """DejaVu's ☥ reads as † at a browser terminal's sizes: gother.css takes U+2625 from
    GotherAnkh.ttf, on DejaVu Sans Mono's cell, its loop's hole wide open."""
    ankh = STATIC / "fonts" / "GotherAnkh.ttf"
    assert ankh.read_bytes() == ankh_font.build()  # made by tests/doors/web/ankh_font.py
    font = TTFont(ankh)
    glyph = font.getBestCmap()[ord("☥")]
    dejavu = TTFont(FONTS[0])
    assert font["hmtx"][glyph][0] == dejavu["hmtx"][dejavu.getBestCmap()[ord("☥")]][0]
    assert (font["hhea"].ascent, font["hhea"].descent) == (
        dejavu["hhea"].ascent,
        dejavu["hhea"].descent,
    )
    coordinates, ends, _ = font["glyf"][glyph].getCoordinates(font["glyf"])
    starts = [0, *(end + 1 for end in ends[:-1])]
    contours = [coordinates[a : b + 1] for a, b in zip(starts, ends, strict=True)]
    above_the_arms = [c for c in contours if min(y for _, y in c) > ankh_font.ARMS_TOP]
    hole = min(max(x for x, _ in c) - min(x for x, _ in c) for c in above_the_arms)
    assert hole >= 280  # about 2 px at 16 px, where DejaVu's closes
    css = (STATIC / "gother.css").read_text(encoding="utf-8")
    faces = re.findall(r"@font-face \{(.*?)\}", css, re.DOTALL)
    # one family; the ankh's faces last (looked at first), one for each weight DejaVu has
    assert all('"Gother Mono"' in face for face in faces)
    for face, weight in zip(faces[-2:], ("normal", "bold"), strict=True):
        assert "GotherAnkh.ttf" in face and "unicode-range: U+2625;" in face
        assert f"font-weight: {weight};" in face
