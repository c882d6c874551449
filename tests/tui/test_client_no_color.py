"""Issue 29 §6: NO_COLOR and --ascii fully legible. Under NO_COLOR every cell is drawn in
the terminal's own colours (Textual's grey made the theme's dark text and dark background
both black on a 256-colour terminal), and what colour alone marked (the lobby's cursor
row) is marked by reverse; every key bar fits 80 columns, on two lines if it must (an
--ascii one was cut at "? Hel"). The cells are read as the app draws them."""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from textual.pilot import Pilot

from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.widgets.footer import KeyBar
from tests.tui.clientkit import at_table, lobby_tables, shown, until
from tests.tui.test_client_screens import listing
from tests.tui.viewkit import distribute_game, join_with, joined, played_views, state, wire_view

VIEWS = played_views()


def cells(pilot: Pilot) -> list[list[Segment]]:
    """The screen as drawn, row by row (every filter applied)."""
    return [list(strip) for strip in pilot.app.screen._compositor.render_strips()]


def coloured(pilot: Pilot) -> list[tuple[int, str]]:
    """Every run of text drawn in a colour of its own or on one (not the terminal's)."""
    found = []
    for y, row in enumerate(cells(pilot)):
        for segment in row:
            style = segment.style
            if style is None or not segment.text.strip():
                continue
            if any(c is not None and not c.is_default for c in (style.color, style.bgcolor)):
                found.append((y, segment.text))
    return found


def key_bar_lines(pilot: Pilot) -> list[str]:
    bar = pilot.app.screen.query_one(KeyBar)
    rows = pilot.app.screen._compositor.render_strips()[bar.region.y : bar.region.bottom]
    return [strip.crop(bar.region.x, bar.region.right).text.rstrip() for strip in rows]


@pytest.fixture
def no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_no_color_draws_the_table_and_the_game_over_panel_in_the_terminals_colours(
    no_color, make_app, fake, ascii
):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table="t1", ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("1")
        await pilot.pause()
        assert coloured(pilot) == []
        assert "Raven (you)" in "".join(s.text for row in cells(pilot) for s in row)


async def test_no_color_draws_the_game_over_panel_in_the_terminals_colours(
    no_color, make_app, fake
):
    fake.handlers["join"] = lambda m: (
        [joined(m.get("rid"))] + [state(i + 1, v) for i, v in enumerate(VIEWS)]
    )
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, GameOverScreen, "Goth Points by round")
        await pilot.pause()
        assert coloured(pilot) == []


async def test_no_color_marks_the_lobbys_cursor_row_by_reverse(no_color, make_app, fake):
    fake.tables = [listing(), listing(id="ef56", name="Other Crypt")]
    lobby = make_app()
    async with lobby.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(lobby)) == 2, "the table list")
        await pilot.pause()
        assert isinstance(lobby.screen, LobbyScreen) and coloured(pilot) == []
        reversed_rows = {
            y
            for y, row in enumerate(cells(pilot))
            for s in row
            if s.style is not None and s.style.reverse and s.text.strip()
        }
        text = ["".join(s.text for s in cells(pilot)[y]) for y in reversed_rows]
        assert any("The Crypt" in line for line in text), text  # the cursor row
        assert not any("Other Crypt" in line for line in text), text


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
async def test_every_key_bar_fits_80_columns_and_ends_with_help(make_app, fake, ascii):
    seen: list[list[str]] = []

    async def look(pilot: Pilot) -> None:
        await pilot.pause()
        lines = key_bar_lines(pilot)
        seen.append(lines)
        assert all(len(line) <= 80 for line in lines), lines
        assert lines[-1].endswith("? Help"), lines

    fake.tables = [listing()]
    app: Any = make_app(ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(app)) == 1, "the table list")
        await look(pilot)
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table="t1", ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await look(pilot)
    if ascii:  # "Enter" for the arrow: the table's keys take two lines, nothing cut
        assert len(seen[1]) == 2
