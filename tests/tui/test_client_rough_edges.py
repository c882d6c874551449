"""Issue 9's bugs, one Pilot test each (each failed before its fix): the chat line gave no
keys back, Ctrl+Q did nothing over the game-over panel, the rematch toast went stale, the
turn mark stayed on the winner's row, the footer offered seat keys the table lacks, and
`gother play` ended the game on Ctrl+Q without asking, the players header wrapped when a
pile banked a cure."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from gother_tui.tui.screens.confirm import ConfirmScreen
from gother_tui.tui.screens.game_over import GameOverScreen
from tests.tui.clientkit import URL, at_table, notices, shown, until, widget_text
from tests.tui.viewkit import (
    ID,
    TABLE,
    distribute_game,
    join_with,
    lobby_view,
    position,
    state,
    wire_view,
)


def over_view(**players: Any) -> dict[str, Any]:
    """distribute_game's position, over, Morticia (seat 1) the winner."""
    wire = wire_view(distribute_game())
    wire.update(phase="over", winner=[1], to_act=None, legal=None, turn=1)
    wire["players"] = [{**p, **players.get(str(p["seat"]), {})} for p in wire["players"]]
    return wire


async def test_sending_a_chat_line_gives_the_keys_back_to_the_table(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        chat = app.screen.query_one("#chat-input", Input)
        await pilot.press("c", "h", "i", "enter")
        await until(pilot, lambda: fake.conn.requests("chat"), "the chat line")
        assert fake.conn.last("chat")["text"] == "hi"
        assert not chat.has_focus
        await pilot.press("1")  # a move key again: the highlighted card to seat 1
        await until(pilot, lambda: app.screen.plan.assigned, "the card given")
        assert chat.value == ""
        await pilot.press("c", "x", "escape", "2")  # Esc leaves the chat line too
        await until(pilot, lambda: len(app.screen.plan.assigned) == 2, "the second card")
        assert chat.value == "x" and len(fake.conn.requests("chat")) == 1


async def test_ctrl_q_quits_from_the_game_over_panel(make_app, fake):
    fake.handlers["join"] = join_with(over_view())
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, GameOverScreen, "WINNER")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_the_rematch_line_follows_the_view_and_never_goes_stale(make_app, fake):
    asked = over_view(**{"0": {"rematch": True}, "1": {"bot": False}})
    fake.handlers["join"] = join_with(over_view(**{"1": {"bot": False}}))
    fake.handlers["rematch"] = lambda m: [state(2, asked, rid=m["rid"])]
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, GameOverScreen, "r: ask for a rematch")
        await pilot.press("r")
        await shown(pilot, GameOverScreen, "You asked for a rematch: waiting for Morticia.")
        fake.conn.feed(state(3, wire_view(distribute_game())))  # everyone asked: a new deal
        await until(pilot, lambda: not isinstance(app.screen, GameOverScreen), "the new deal")
        assert "waiting" not in widget_text(pilot, "#prompt")
        assert not any("waiting for every player" in n for n in notices(pilot))


async def test_no_turn_mark_on_any_row_once_the_game_is_over(make_app, fake):
    fake.handlers["join"] = join_with(over_view())
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, GameOverScreen, "WINNER")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, GameOverScreen), "the table")
        assert "▶" not in widget_text(pilot, "#players")


async def test_the_footer_offers_the_seat_keys_this_table_has(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))  # three seats
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        footer = widget_text(pilot, "#keys")
        assert "1-3 Give" in footer and "1-5" not in footer


async def test_ctrl_q_in_gother_play_asks_before_it_ends_the_game(make_app, fake):
    fake.handlers["join"] = join_with(wire_view(distribute_game()))
    app = make_app(table=TABLE, private=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("ctrl+q")
        await shown(pilot, ConfirmScreen, "This ends the game")
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "no")
        assert app.is_running
        await pilot.press("ctrl+q")
        await shown(pilot, ConfirmScreen, "This ends the game")
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_the_players_header_stays_one_line_when_a_pile_banks_a_cure(make_app, fake):
    # Seen in tmux at 80x24: "(-3 banked)" widened the Sick column and the header's last
    # words wrapped onto a line of their own, pushing every player down.
    game = position(
        hands=[[ID["Pet Raven"]], [ID["Velvet Cape"]], [ID["Black Lipstick"]]],
        fates=[[], [ID["A Long Nap"], ID["Chamomile Tea"]], []],
    )
    fake.handlers["join"] = join_with(wire_view(game))
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await until(pilot, lambda: "banked" in widget_text(pilot, "#players"), "the banked cure")
        panel = app.screen.query_one("#players")
        rows = [strip.text for strip in panel.render_lines(panel.region.reset_offset)]
        assert rows[0].lstrip().startswith("# Player") and rows[1].startswith("▶ 1 Raven")
        assert panel.size.height == 1 + len(game.hands)


async def test_a_player_waiting_in_the_lobby_sees_the_line_to_share(make_app, fake):
    fake.handlers["join"] = join_with(lobby_view())
    app = make_app(table=TABLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.view is not None and app.view.phase == "lobby", "lobby")
        line = f"Others join with: gother join {URL} --table {TABLE}"
        await until(pilot, lambda: line in widget_text(pilot, "#preview"), "the share line")
