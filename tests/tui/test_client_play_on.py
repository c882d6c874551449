"""Play on from here in the full-screen client: p in a seat's replay from a server ends it
with the place (this turn, this seat), shown in the footer and the help; the command line
then starts the client, which asks the server for that game and sits down in it."""

from __future__ import annotations

import asyncio

from gother_tui import cli
from gother_tui.core import logs
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import GameRecord, Reference
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from gother_tui.tui.app import GotherApp
from gother_tui.tui.replay_app import ReplayApp
from gother_tui.tui.screens.lobby import LobbyScreen
from gother_tui.tui.screens.table import TableScreen
from tests.tui.clientkit import notices, reply, until, widget_text
from tests.tui.test_client_seat_replay import SEAT, finished, seat_record

__all__ = ["finished", "seat_record"]  # the fixtures, shared
URL = "ws://127.0.0.1:8765"


async def test_p_in_a_seats_replay_ends_it_with_the_place_to_play_on_from(
    seat_record: GameRecord, finished: str
):
    start = seat_record.turn_position(4)
    app = ReplayApp(seat_record, ClientOptions(url=URL), start)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.position == start, "turn 4")
        await pilot.pause()
        assert "Play on" in widget_text(pilot, "KeyBar")
        assert any(getattr(b, "id", None) == "replay.play_on" for b in app.HELP_SECTIONS[0][1])
        await pilot.press("right", "p")  # inside turn 4: played on from its start
        await until(pilot, lambda: app.return_value is not None, "the replay to end")
    assert app.return_value == Reference(URL, finished, 1, SEAT, 4)


async def test_p_does_nothing_in_a_record_file_or_at_the_end(seat_record: GameRecord):
    for url, keys in (("file:game.gother", ("p",)), (URL, ("end", "p"))):
        app = ReplayApp(seat_record, ClientOptions(url=url))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda app=app: app.current_mode == "replay", "the replay")
            await pilot.press(*keys)
            await pilot.pause()
            assert app.return_value is None and app.is_running
            await pilot.press("q")


async def test_the_client_asks_for_the_played_on_game_and_sits_down_in_it(
    live_server, seat_record: GameRecord, finished: str, tmp_path
):
    url = f"ws://127.0.0.1:{live_server.port}"
    seen = seat_record.seen
    assert seen is not None
    turn = next(  # one of the seat's own turns: the game then waits for the player
        t for t in range(2, 99) if seen[seat_record.turn_position(t)].turn == SEAT
    )
    then = seen[seat_record.turn_position(turn)]
    place = Reference(url, finished, 1, SEAT, turn)
    options = ClientOptions(url=url, name="Raven", play_on=place)
    app = GotherApp(options, transport=WebSocketTransport, seat_store=SeatStore(tmp_path / "s"))
    async with app.run_test(size=(80, 24)) as pilot:

        def playing() -> bool:
            view = app.view
            return view is not None and view.table.id != finished and view.phase != "lobby"

        await until(pilot, playing, "the played-on game")
        assert isinstance(app.screen, TableScreen)
        view = app.view
        assert view is not None and view.seat == SEAT
        assert (view.hand, view.discard, view.deck_count, view.round, view.turn) == (
            then.hand,
            then.discard,
            then.deck_count,
            then.round,
            then.turn,
        )
        assert [p.fate for p in view.players] == [p.fate for p in then.players]
        assert view.legal == then.legal  # the same decision, now the player's to make


async def test_the_command_line_plays_on_where_the_replay_ended(
    live_server, finished: str, monkeypatch
):
    url = f"ws://127.0.0.1:{live_server.port}"
    place = Reference(url, finished, 1, SEAT, 4)
    clients: list[GotherApp] = []

    def replay_ends(self: ReplayApp, **kw: object) -> None:
        self._return_value = place  # as App.exit sets it: p was pressed

    monkeypatch.setattr(ReplayApp, "run", replay_ends)
    monkeypatch.setattr(GotherApp, "run", lambda self, **kw: clients.append(self))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    args = ["replay", url, "--table", finished, "--seat", str(SEAT + 1)]
    assert await asyncio.to_thread(cli.main, args) == 0
    (client,) = clients
    assert client.options.play_on == place and client.options.url == url


async def test_a_play_on_the_server_refuses_is_said_in_the_lobby(make_app, fake):
    fake.handlers["play_on"] = lambda m: [
        reply(m, "error", code="no_such_turn", message="the game has turns 1-30, not 31")
    ]
    app = make_app(play_on=Reference("ws://fake", "ab12", 1, 1, 31))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: fake.connections and fake.conn.requests("play_on"), "asked")
        (asked,) = fake.conn.requests("play_on")
        assert {k: asked[k] for k in ("table", "game", "seat", "turn")} == {
            "table": "ab12",
            "game": 1,
            "seat": 1,
            "turn": 31,
        }
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(pilot, lambda: any("turns 1-30" in n for n in notices(pilot)), "why")
