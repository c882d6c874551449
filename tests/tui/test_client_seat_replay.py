"""A seat's own replay on the full-screen client: only what that seat saw (its hand, the
public piles) until v or the end reveals every hand; [ ] and { } jump a turn or a round;
`gother replay URL --seat N --turn T` and the reference a player pastes to a friend."""

from __future__ import annotations

import asyncio
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gother_tui import cli
from gother_tui.core import logs
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import GameRecord, RecordError, Reference, parse_record, parse_reference
from gother_tui.tui.app import GotherApp
from gother_tui.tui.replay_app import ReplayApp
from gother_tui.tui.screens.game_over import GameOverScreen
from protocol import requests as rq
from protocol.view import Variants
from server.tables.export import game_record
from tests.kits import poll
from tests.tui.clientkit import (
    lobby_tables,
    notices,
    reply,
    shown,
    until,
    widget_text,
)
from tests.tui.test_client_game_over import VIEWS, seat_from
from tests.tui.test_client_screens import listing

SEAT = 1  # the second seat: the replay of a seat that is not the dealer


@pytest.fixture
async def finished(live_server) -> str:
    """A 3-bot game with a round cap of 3, played to the end: its table id."""
    request = rq.Create(name="Kept Crypt", seats=3, bots=3, variants=Variants(round_cap=3))
    table = live_server.lobby.create(request)
    table.start_if_full()
    # the bots play on this loop, between two looks
    await poll.until("the bots to finish", lambda: table.game is not None and table.game.over)
    return str(table.id)


@pytest.fixture
def seat_record(live_server, finished) -> GameRecord:
    return parse_record(game_record(live_server.store.tables, finished, seat=SEAT).to_wire())


async def test_a_seats_replay_shows_only_its_own_hand_until_v(seat_record):
    app = ReplayApp(seat_record, ClientOptions(url="file:x"))
    assert seat_record.seen is not None
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.current_mode == "replay", "the replay")
        await pilot.pause()
        assert app.view is seat_record.seen[0] and app.view.seat == SEAT
        hands = widget_text(pilot, "#hands")
        own = app.catalogue.name(seat_record.seen[0].hand[0])  # type: ignore[index]
        assert own in hands and hands.count("cards, hidden") == 2, hands
        assert "as seat 2 saw it" in widget_text(pilot, "#replay-seat")
        await pilot.press("right", "right", "v")
        await pilot.pause()
        assert app.revealed and app.position == 2 and app.view is seat_record.views[2]
        hands = widget_text(pilot, "#hands")
        assert "hidden" not in hands and "every hand shown" in widget_text(pilot, "#replay-seat")
        for p in seat_record.views[2].players:  # a line a player, cut at the width
            assert p.hand and app.catalogue.name(p.hand[0]) in hands
        await pilot.press("v", "end")
        await pilot.pause()
        assert not app.revealed and app.view is seat_record.seen[-1]
        assert app.view.reveal is not None and "hidden" not in widget_text(pilot, "#hands")
        await pilot.press("d", "enter", "1")  # the seat's views offer moves: none is made
        assert app.view is seat_record.seen[-1] and app.workers._workers == set()


async def test_brackets_jump_a_turn_and_braces_a_round(seat_record):
    app = ReplayApp(seat_record, ClientOptions(url="file:x"))
    turns, rounds = seat_record.turn_starts(), seat_record.round_starts()
    assert len(rounds) >= 2 and turns[0] == rounds[0] == 0
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.current_mode == "replay", "the replay")
        await pilot.press("right_square_bracket")
        assert app.position == turns[1]
        views = seat_record.views
        assert (views[turns[1]].round, views[turns[1]].turn) != (views[0].round, views[0].turn)
        await pilot.press("right")  # inside turn 2: [ goes back to its start
        await pilot.press("left_square_bracket")
        assert app.position == turns[1]
        await pilot.press("right_curly_bracket")
        assert app.position == rounds[1] and views[rounds[1]].round == 2
        await pilot.pause()
        assert "(round 2, turn" in widget_text(pilot, "#replay-pos")
        await pilot.press("left_curly_bracket")
        assert app.position == 0
        await pilot.press("left_curly_bracket")  # already at the deal: stays
        assert app.position == 0


def test_a_turn_past_the_last_is_one_sentence(seat_record):
    last = len(seat_record.turn_starts())
    assert seat_record.turn_position(last) == seat_record.turn_starts()[-1]
    with pytest.raises(RecordError, match=f"turns 1-{last}, not {last + 1}"):
        seat_record.turn_position(last + 1)


async def test_the_command_line_fetches_a_seats_replay_at_a_turn(
    live_server, finished, monkeypatch
):
    runs: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, **kw: runs.append(self))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    url = f"ws://127.0.0.1:{live_server.port}"
    args = ["replay", url, "--table", finished, "--seat", "2", "--turn", "4"]
    assert await asyncio.to_thread(cli.main, args) == 0
    pasted = str(Reference(url, finished, 1, SEAT, 4))
    assert pasted == f"{url}/{finished}/1#seat2-turn4"
    assert await asyncio.to_thread(cli.main, ["replay", pasted]) == 0
    for app in runs:
        assert app.record.seat == SEAT and app.seat == SEAT and not app.revealed
        assert app.start == app.record.turn_starts()[3]
        assert (
            app.record.seen
            == parse_record(
                game_record(live_server.store.tables, finished, seat=SEAT).to_wire()
            ).seen
        )


def test_a_seat_of_a_file_is_the_seat_it_was_exported_for(
    live_server, finished, tmp_path, monkeypatch, capsys
):
    """README: `gother replay FILE --seat N` shows the game as that seat saw it, when the
    file was written by `gother export --seat N` (the client never runs the engine, so a
    file of every hand cannot become one seat's view): else one sentence says how."""
    runs: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, **kw: runs.append(self))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    seat_file, every_hand = tmp_path / "seat2.gother", tmp_path / "all.gother"
    db = live_server.config.db
    assert cli.main(["export", "--db", db, finished, str(seat_file), "--seat", "2"]) == 0
    assert cli.main(["export", "--db", db, finished, str(every_hand)]) == 0
    assert cli.main(["replay", str(seat_file), "--seat", "2", "--turn", "3"]) == 0
    (app,) = runs
    assert app.seat == SEAT and not app.revealed and app.start == app.record.turn_starts()[2]
    capsys.readouterr()
    assert cli.main(["replay", str(every_hand), "--seat", "2"]) == 2
    assert "gother export --seat 2" in capsys.readouterr().err
    assert cli.main(["replay", str(seat_file), "--seat", "3"]) == 2
    assert "what seat 2 saw, not seat 3" in capsys.readouterr().err
    assert len(runs) == 1
    with pytest.raises(SystemExit):
        cli.main(["replay", str(seat_file), "--table", "t1"])
    assert "go with a ws:// URL" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["replay", "ws://host:8765/t1/x#seat2"])
    assert "not a replay reference" in capsys.readouterr().err


@given(
    st.sampled_from(["ws://127.0.0.1:8765", "wss://gother.example:443", "ws://[::1]:9"]),
    st.text(min_size=1, max_size=32).filter(lambda t: t.strip() == t),
    st.none() | st.integers(1, 1_000_000),
    st.none() | st.integers(0, 5),
    st.none() | st.integers(1, 99_999),
)
def test_a_reference_reads_back_as_itself(url, table, game, seat, turn):
    place = Reference(url, table, game, seat, turn)
    assert parse_reference(str(place)) == place


async def test_the_game_over_panel_asks_the_seats_record_on_its_own_connection(make_app, fake):
    """Issue 29 §1: no connection of its own (which knew no pinned certificate, no password
    typed): the record's parts are asked where the client already is."""
    final = VIEWS[-1]
    fake.handlers["join"] = seat_from(VIEWS)
    fake.handlers["record"] = lambda m: [
        reply(m, "error", code="no_such_table", message="there is no such game")
    ]
    app = make_app(table="t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await shown(pilot, GameOverScreen, "Goth Points by round", "Replay")
        await pilot.press("y")
        await until(pilot, lambda: fake.conn.requests("record"), "the record asked")
        await until(pilot, lambda: any("no such game" in n for n in notices(pilot)), "why not")
        assert app.is_running and isinstance(app.screen, GameOverScreen)  # still at the panel
    (asked,) = fake.conn.requests("record")
    assert len(fake.connections) == 1
    assert (asked["table"], asked["game"], asked["seat"], asked.get("part", 0)) == (
        final["table"]["id"],
        final["table"]["game"],
        0,
        0,
    )


async def test_a_replay_asked_at_the_panel_runs_then_the_client_comes_back(
    live_server, seat_record, monkeypatch
):
    url = f"ws://127.0.0.1:{live_server.port}"
    clients: list[GotherApp] = []
    replays: list[ReplayApp] = []

    def run_client(self: GotherApp, **kw: object) -> None:
        clients.append(self)
        self._return_value = seat_record if len(clients) == 1 else None  # as App.exit sets it

    monkeypatch.setattr(GotherApp, "run", run_client)
    monkeypatch.setattr(ReplayApp, "run", lambda self, **kw: replays.append(self))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    assert await asyncio.to_thread(cli.main, ["join", url, "--name", "Raven"]) == 0
    assert len(clients) == 2  # back at the table after the replay
    (shown_replay,) = replays
    assert shown_replay.record is seat_record and shown_replay.options.url == url


@pytest.mark.parametrize(("name", "seat"), [("Raven", 1), ("Crow", None)])
async def test_y_in_the_lobby_replays_a_finished_table_as_your_seat_if_you_played(
    make_app, fake, name, seat
):
    over = listing(id="ef56", phase="over", started=True, players=["Morticia", "Raven", "Vlad"])
    fake.tables = [listing(), over]
    app = make_app(name=name)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(lobby_tables(app)) == 2, "the table list")
        await pilot.press("y")  # the first table's game is not over
        await until(pilot, lambda: "is over" in widget_text(pilot, "#lobby-status"), "why not")
        assert app.return_value is None
        await pilot.press("down", "y")
        await until(pilot, lambda: fake.conn.requests("record"), "the record asked")
    asked = fake.conn.last("record")
    assert (asked["table"], asked.get("game"), asked.get("seat")) == ("ef56", None, seat)


async def test_the_replay_shows_where_it_is_as_a_reference_to_paste(seat_record, finished):
    url = "ws://127.0.0.1:8765"
    start = seat_record.turn_position(4)
    app = ReplayApp(seat_record, ClientOptions(url=url), start)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: app.position == start, "turn 4")
        await pilot.pause()
        assert f"share: {url}/{finished}/1#seat2-turn4" in widget_text(pilot, "#replay-seat")
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.reference() == Reference(url, finished, 1, SEAT, 5)
        assert f"share: {app.reference()}" in widget_text(pilot, "#replay-seat")
    assert ReplayApp(seat_record, ClientOptions(url="file:game.gother")).reference() is None


async def test_y_in_gother_play_shows_the_replay_then_seats_you_again(
    seat_record, monkeypatch, tmp_path
):
    """Issue 29 §2: `gother play` runs the replay its game-over panel asked for (it used
    to end the program) and then the client again, at the same private server, with the
    same seats kept in memory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    clients: list[tuple[GotherApp, bool]] = []
    replays: list[ReplayApp] = []

    def run_client(self: GotherApp, **kw: object) -> None:
        port = int(self.options.url.rsplit(":", 1)[1])
        with socket.socket() as probe:  # the private server still listens
            clients.append((self, probe.connect_ex(("127.0.0.1", port)) == 0))
        self._return_value = seat_record if len(clients) == 1 else None  # as App.exit sets it

    monkeypatch.setattr(GotherApp, "run", run_client)
    monkeypatch.setattr(ReplayApp, "run", lambda self, **kw: replays.append(self))
    args = ["play", "--players", "3", "--name", "Raven"]
    assert await asyncio.to_thread(cli.main, args) == 0
    (first, first_up), (again, again_up) = clients
    assert first_up and again_up
    assert [r.record for r in replays] == [seat_record]
    assert again.options.url == first.options.url and again.options.private
    assert again.flow.store is first.flow.store  # the seat's token: resumed, not lost
