"""Snapshots (pytest-textual-snapshot) of the table at 80x24 (compact) and 140x44 (the card
table), in Unicode and in ASCII, of the game-over panel, and of the forms of a new table and a
new tournament: fixed positions, fixed names, a scripted server.

Update the baselines with `pytest tests/tui/test_client_snapshots.py --snapshot-update`
and look at them (tests/tui/__snapshots__/) before committing."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from gother_tui.tui.screens.create_table import CreateTableScreen
from gother_tui.tui.screens.game_over import EndedScreen, GameOverScreen
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.screens.new_tournament import NewTournamentScreen
from tests.tui.clientkit import at_table, shown
from tests.tui.viewkit import distribute_game, join_with, joined, played_views, state, wire_view


async def settled_table(pilot: Pilot) -> None:
    await at_table(pilot)
    await pilot.press("1")  # give the first card to yourself: the preview shows
    pilot.app.clear_notifications()  # toasts time out: a snapshot must not race them
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (140, 44)], ids=["80x24", "140x44"])
@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_table(snap_compare, make_app, fake, size, ascii):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table="t1", ascii=ascii)
    assert snap_compare(app, terminal_size=size, run_before=settled_table)


def test_game_over(snap_compare, make_app, fake):
    views = played_views()
    fake.handlers["join"] = lambda m: (
        [joined(m.get("rid"))] + [state(i + 1, v) for i, v in enumerate(views)]
    )
    app = make_app(table="t1")

    async def over(pilot: Pilot) -> None:
        await shown(pilot, GameOverScreen, "Goth Points by round", "Table")
        app.clear_notifications()  # the alerts' toast times out: a snapshot must not race it
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=over)


def test_ended_by_vote(snap_compare, make_app, fake):
    """The standings a game ended by vote stood at, over the lobby (issue 19)."""
    views = played_views()
    fake.handlers["join"] = lambda m: [joined(m.get("rid")), state(1, views[20])]
    app = make_app(table="t1")

    async def ended(pilot: Pilot) -> None:
        await at_table(pilot)
        fake.conn.feed({"t": "closed", "table": "t1", "reason": "the players ended the game"})
        await shown(pilot, EndedScreen, "Final standings")
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=ended)


async def lobby_form(pilot: Pilot) -> None:
    """The lobby's new-table form (n), as it opens."""
    await shown(pilot, LobbyScreen)
    await pilot.press("n")
    await shown(pilot, CreateTableScreen, "New table")
    await pilot.pause()


def test_create_form(snap_compare, make_app, fake):
    """Its house rules' fields come from protocol/house_rules.py (issue 33 §4): the form
    looks as it did when each was written out by hand."""
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=lobby_form)


def test_new_tournament_form(snap_compare, make_app, fake):
    app = make_app()

    async def opened(pilot: Pilot) -> None:
        await shown(pilot, LobbyScreen)
        app.push_screen(NewTournamentScreen())
        await shown(pilot, NewTournamentScreen, "New tournament")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=opened)
