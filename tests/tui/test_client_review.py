"""The review screen against a real server: v on the game-over panel asks the review of
your seat, shows its summary, the costliest moments and every decision; [ and ] review the
other seats; Esc goes back to the panel."""

from __future__ import annotations

from gother_tui.core.options import ClientOptions
from gother_tui.tui.app import GotherApp
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.review import ReviewScreen
from protocol import requests as rq
from protocol.view import Variants
from tests.tables.test_review import THOUGHT
from tests.tui.clientkit import shown, until, widget_text

BOTS = rq.Create(name="Bot Crypt", seats=3, bots=3, variants=Variants(round_cap=1))


async def test_the_game_over_panel_opens_the_review_of_each_seat(live_server, store):
    table = live_server.lobby.create(BOTS)
    table.start_if_full()  # bots only: it plays at once
    options = ClientOptions(
        url=f"ws://127.0.0.1:{live_server.port}", name="Crow", watch=True, table=table.id
    )
    app = GotherApp(options, seat_store=store)
    live_server.searches.spawn_all()  # before the app takes stdout: a spawn needs it
    async with app.run_test(size=(100, 40)) as pilot:
        await shown(pilot, GameOverScreen, "WINNER", "Review")
        names = [p.name for p in app.view.players]
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")

        async def reviewed(seat: int) -> str:
            summary = f"{names[seat]} in game 1: "
            await until(pilot, lambda: summary in widget_text(pilot, "#review"), summary, THOUGHT)
            return widget_text(pilot, "#review")

        first = await reviewed(0)  # a spectator starts with the first seat
        assert "Every decision (the chance to win it gave up):" in first
        assert "Round 1: " in first
        _, moves = live_server.store.tables.game(table.id, 1)
        decisions = first.split("Every decision (the chance to win it gave up):")[1]
        assert decisions.count("Round 1: ") == sum(seat == 0 for seat, _ in moves)  # each
        assert "Review of " + names[0] in widget_text(pilot, "#review-title")
        await pilot.press("right_square_bracket")
        await reviewed(1)
        await pilot.press("left_square_bracket", "left_square_bracket")
        await reviewed(2)  # round the table
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the panel again")
