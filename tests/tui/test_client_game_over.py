"""The game-over panel: winners, final scores, Goth Points per round as this client saw
them (a late joiner sees fewer rounds), rematch and leave by keyboard."""

from __future__ import annotations

from typing import Any

from gother_tui.core.history import UNICODE_LEVELS
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.table import TableScreen
from tests.tui.clientkit import at_table, reply, screen_text, shown, until
from tests.tui.viewkit import joined, played_views, state

VIEWS = played_views()


def end_of_round_goth(views: list[dict[str, Any]], seat: int) -> list[int]:
    rounds: dict[int, int] = {}
    for v in views:
        rounds[v["round"]] = v["players"][seat]["scores"]["goth"]
    return [rounds[r] for r in sorted(rounds)]


def seat_from(views: list[dict[str, Any]]):
    """A `join` handler seating the client at seat 0, then the given states in order."""
    return lambda m: [joined(m.get("rid"))] + [state(i + 1, v) for i, v in enumerate(views)]


async def test_game_over_shows_winner_scores_and_goth_by_round(make_app, fake):
    final = VIEWS[-1]
    assert final["phase"] == "over" and final["round"] == 3
    fake.handlers["join"] = seat_from(VIEWS)
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        text = await shown(pilot, GameOverScreen, "Goth Points by round")
        winner = final["players"][final["winner"][0]]["name"]
        assert "Game over at the round cap" in text
        assert next(line for line in text.splitlines() if "WINNER" in line).count(winner) == 1
        assert "Goth Points by round, rounds 1-3" in text
        for p in final["players"]:
            series = end_of_round_goth(VIEWS, p["seat"])
            assert app.screen.history.series(p["seat"]) == series
            label = f"{p['seat'] + 1} {p['name']}"
            row = [line for line in text.splitlines() if label in line][-1]  # scores, chart
            assert f"☥{series[-1]}" in row
            assert sum(ch in UNICODE_LEVELS for ch in row) == 3 * 4  # 4 cells a round


async def test_a_late_joiner_charts_only_the_rounds_it_saw(make_app, fake):
    late = next(i for i, v in enumerate(VIEWS) if v["round"] == 2)
    fake.handlers["join"] = seat_from(VIEWS[late:])
    app = make_app(table="t1", ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        text = await shown(pilot, GameOverScreen, "Goth Points by round, rounds 2-3")
        assert app.screen.history.rounds == [2, 3]
        assert all(ch.isascii() for ch in text)


async def test_rematch_and_leave_keys_and_the_panel_closes_on_a_new_deal(make_app, fake):
    fake.handlers["join"] = seat_from(VIEWS)
    fake.handlers["rematch"] = lambda m: [state(len(VIEWS) + 1, VIEWS[0], rid=m["rid"])]
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game over")
        await pilot.press("r")
        await until(pilot, lambda: fake.conn.requests("rematch"), "the rematch request")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the new deal")
        assert app.view.phase != "over"
        assert app.screen.history.rounds == [1]  # a new game: a fresh chart


async def test_escape_shows_the_final_table_o_opens_the_panel_again_and_l_leaves(make_app, fake):
    fake.handlers["join"] = seat_from(VIEWS)
    fake.handlers["leave"] = lambda m: [reply(m, "left", table="t1")]
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game over")
        await pilot.press("escape")
        await at_table(pilot)
        assert isinstance(app.screen, TableScreen) and "game over" in screen_text(pilot)
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the panel again")
        await pilot.press("L")
        await until(pilot, lambda: app.current_mode == "lobby", "the lobby")
        assert fake.conn.requests("leave")
        assert app.table_id is None


async def test_game_over_shows_the_series_won_at_this_table(make_app, fake):
    final = {**VIEWS[-1], "table": {**VIEWS[-1]["table"], "game": 3, "wins": [2, 0, 1]}}
    fake.handlers["join"] = seat_from([*VIEWS[:-1], final])
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        text = await shown(pilot, GameOverScreen, "Games won")
        lines = text.replace("│", " ").splitlines()
        for p, won in zip(final["players"], (2, 0, 1), strict=True):
            row = next(ln for ln in lines if f"{p['seat'] + 1} {p['name']}" in ln)  # scores first
            assert row.split()[-1] == str(won), text


async def test_a_rejoin_after_the_game_ended_draws_no_one_bar_chart(make_app, fake):
    """Issue 29: coming back after game over, the client had seen one round: its chart
    was one bar a player, which says nothing. It says so and points to the replay."""
    final = VIEWS[-1]
    assert final["round"] > 1
    fake.handlers["join"] = seat_from(VIEWS[-1:])
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        text = await shown(pilot, GameOverScreen, "Goth Points by round: only round")
    assert f"only round {final['round']} was seen here (y: the replay)" in text
    for p in final["players"]:
        assert f"\u2625{p['scores']['goth']}" in text
