"""Every player's line on the players' panel: the marks and warnings in words, in the
theme's colours, and a banked cure as the panel shows it."""

from __future__ import annotations

from msgspec.structs import replace
from rich.style import Style

from gother_tui.core.catalogue import Catalogue
from gother_tui.core.glyphs import ASCII, UNICODE
from gother_tui.tui.palette import Palette
from gother_tui.tui.theme import GOTHER
from gother_tui.tui.widgets.players import player_line
from tests.tui.viewkit import DECK, ID, distribute_game, table_view

CAT = Catalogue(DECK.catalogue())


def test_a_player_line_keeps_every_mark_and_warning_in_words():
    view = table_view(distribute_game(), names=("Raven", "A" * 24, "Vlad"), away=[2])
    raven, morticia, vlad = view.players
    players = (raven, replace(morticia, clock=151.5), replace(vlad, bot=False))
    view = replace(view, players=players)
    lines = [player_line(p, view, CAT, UNICODE, 80).plain for p in view.players]
    assert lines[0].startswith("▶ 1 Raven (you)")
    assert "☠ 4 ⚠" in lines[0] and "$ -3 DEBT" in lines[0]
    assert "6: Fog Machine Cough ☥+2 ☠+1" in lines[0]
    assert "⚙ 2:31" in lines[1] and "AAAA…" in lines[1]  # the name gives way, not the marks
    assert "Vlad (away)" in lines[2]
    ascii_line = player_line(view.players[0], view, CAT, ASCII, 80).plain
    assert ascii_line.startswith("> 1 Raven (you)") and "S 4 !" in ascii_line


def test_a_bots_trait_shows_beside_its_name_and_the_name_gives_way():
    view = table_view(distribute_game(), names=("Raven", "Nosferatu", "Wednesday"))
    raven, nosferatu, wednesday = view.players
    players = (raven, replace(nosferatu, trait="vengeful"), replace(wednesday, trait="steady"))
    view = replace(view, players=players)
    lines = [player_line(p, view, CAT, UNICODE, 80).plain for p in view.players]
    assert "Nosfera… ⚙ vengeful " in lines[1]  # 19 columns: the name is cut, not the marks
    assert "Wednesday ⚙ steady " in lines[2]
    assert "Raven (you) " in lines[0] and "vengeful" not in lines[0] and "steady" not in lines[0]
    ascii_line = player_line(view.players[2], view, CAT, ASCII, 80).plain
    assert "Wed... [bot] steady " in ascii_line  # in ASCII the mark is wider: still shown


def test_a_player_lines_warnings_take_the_themes_colours():
    """Near swoon in the theme's $warning, debt in its $error (the gother theme: the
    terminal's own yellow and red), bold, beside their words."""
    palette = Palette.of_theme(GOTHER.to_color_system().generate())
    view = table_view(distribute_game())
    line = player_line(view.players[0], view, CAT, UNICODE, 80, palette)
    styled = {line.plain[span.start : span.end].strip(): span.style for span in line.spans}
    near, debt = styled["☠ 4 ⚠"], styled["$ -3 DEBT"]
    assert isinstance(near, Style) and isinstance(debt, Style)
    assert (near.bold, near.color.number, debt.bold, debt.color.number) == (True, 3, True, 1)
    plain = player_line(view.players[0], view, CAT, UNICODE, 80)
    assert all(
        span.style in ("", "bold", "italic", "dim") or not span.style.color for span in plain.spans
    )


async def test_a_banked_cure_shows_on_the_players_panel(make_app, fake):
    """R6: Morticia's pile sums to Sickness -3 (A Long Nap, Early Night): it shows as 0 with
    the cure banked, on the panel and in the Fate piles viewer."""
    from gother_tui.tui.screens.viewer import TextViewer
    from tests.tui.clientkit import at_table, shown, widget_text
    from tests.tui.viewkit import join_with, position, wire_view

    game = position(
        hands=[[22, 0, 4, 11, 10], [3, 9, 12, 13, 1], [14, 16, 17, 18, 19]],
        fates=[[2], [ID["A Long Nap"], ID["Early Night"]], []],
        phase="distribute",
    )
    fake.handlers["join"] = join_with(wire_view(game))
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        players = widget_text(pilot, "#players")
        assert "☠ 0 (-3 banked)" in players
        await pilot.press("f")
        await shown(pilot, TextViewer, "Every Fate pile", "☠0 (-3 banked)")
