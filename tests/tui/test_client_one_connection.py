"""Issue 29 §1: on a `--tls` + password server, what a client has once established (the
certificate it trusts, the password the player typed, its identity) serves every later
request: the review, the replay and the play-on of the full-screen client and the plain
mode, and `gother standings` / `gother replay`, which trust a certificate as `gother join`
does (--fingerprint, or the pin in known_servers). A real server with a self-signed
certificate on 127.0.0.1; the finished game is one its bots played."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import pytest

from gother_tui import cli
from gother_tui.core import logs
from gother_tui.core.options import ClientOptions
from gother_tui.core.record import GameRecord, Reference
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from gother_tui.core.trust import KnownServers, Trust, server_of
from gother_tui.tui.app import GotherApp
from gother_tui.tui.replay_app import ReplayApp
from gother_tui.tui.screens.game_over import GameOverScreen
from gother_tui.tui.screens.password import PasswordScreen
from gother_tui.tui.screens.review import ReviewScreen
from gother_tui.tui.screens.table import TableScreen
from protocol import requests as rq
from protocol.view import Variants
from server.edge.app import GotherServer, ServerConfig
from server.edge.tls import certificate_fingerprint, self_signed
from tests.plain.plainkit import InProcess
from tests.tui.clientkit import TIMEOUT, shown, until, widget_text
from tests.tui.test_client_password import type_password

SECRET = "crypt-7"
SEAT = 1


@dataclass(frozen=True)
class Club:
    """The host's server: its address, certificate fingerprint, and a finished game."""

    server: GotherServer
    url: str
    pin: str
    finished: str


@pytest.fixture
async def club(tmp_path) -> AsyncIterator[Club]:
    cert, key = self_signed(tmp_path / "tls", "127.0.0.1")
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        db=str(tmp_path / "games.db"),
        bot_delay=0.0,
        certfile=str(cert),
        keyfile=str(key),
        password=SECRET,
    )
    server = GotherServer(config)
    await server.start()
    request = rq.Create(name="Kept Crypt", seats=3, bots=3, variants=Variants(round_cap=2))
    table = server.lobby.create(request)
    table.start_if_full()
    deadline = time.monotonic() + TIMEOUT
    while not (table.game is not None and table.game.over):
        assert time.monotonic() < deadline, "the bots did not finish"
        await asyncio.sleep(0.01)  # a poll: the bots play on this loop
    url = f"wss://127.0.0.1:{server.port}"
    yield Club(server, url, certificate_fingerprint(str(cert)), str(table.id))
    await server.close()


async def test_the_password_typed_once_serves_the_review_the_replay_and_the_play_on(
    club: Club, tmp_path: Path
):
    connect = partial(WebSocketTransport, trust=Trust(pin=club.pin))
    store = SeatStore(tmp_path / "seats.json")
    options = ClientOptions(
        url=club.url, name="Raven", watch=True, table=club.finished, first_retry=0.05
    )
    club.server.searches.spawn_all()  # before the app takes stdout: a spawn needs it
    app = GotherApp(options, transport=connect, seat_store=store)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_password(pilot, "This server needs a password.", SECRET)
        await shown(pilot, GameOverScreen, "WINNER", "Review")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        # a review is a search over every decision: on a loaded machine, tens of seconds
        words = lambda: " in game 1: " in widget_text(pilot, "#review")  # noqa: E731
        await until(pilot, words, "its words", wait=120)
        await pilot.press("escape")
        await shown(pilot, GameOverScreen, "Replay")
        await pilot.press("y")
        await until(pilot, lambda: app.return_value is not None, "the record, and the end")
    record = app.return_value
    assert isinstance(record, GameRecord) and record.table.id == club.finished
    assert app.options.server_password == SECRET  # kept for the next run

    # the next run (after the replay) plays on from it: nothing is asked again
    seen = record.views
    turn = record.turn_of(len(seen) // 2)
    place = Reference(club.url, club.finished, record.game, SEAT, turn)
    again = replace(app.options, watch=False, table=None, play_on=place)
    app = GotherApp(again, transport=connect, seat_store=store)
    async with app.run_test(size=(100, 40)) as pilot:

        def playing() -> bool:
            view = app.view
            return view is not None and view.table.id != club.finished and view.phase != "lobby"

        await until(pilot, lambda: playing() or isinstance(app.screen, PasswordScreen), "a game")
        assert not isinstance(app.screen, PasswordScreen)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        assert app.view is not None and app.view.seat == SEAT


async def test_standings_and_a_seats_replay_from_the_command_line_trust_as_join_does(
    club: Club, tmp_path: Path, monkeypatch, capsys
):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("GOTHER_PASSWORD", SECRET)
    monkeypatch.setattr(logs, "log_client_to_file", lambda: None)
    replays: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self, **kw: replays.append(self))
    pasted = str(Reference(club.url, club.finished, 1, SEAT, 3))

    # not trusted yet: one sentence naming the fingerprint, no traceback
    assert await asyncio.to_thread(cli.main, ["standings", club.url]) == 2
    err = capsys.readouterr().err
    assert club.pin in err and "CERTIFICATE_VERIFY_FAILED" not in err

    # --fingerprint, as join takes it
    assert (
        await asyncio.to_thread(cli.main, ["standings", club.url, "--fingerprint", club.pin]) == 0
    )
    assert "Rating" in capsys.readouterr().out

    # the pin `gother join` keeps (said yes to once) serves every later command
    KnownServers().pin(server_of(club.url), club.pin)
    assert await asyncio.to_thread(cli.main, ["standings", club.url]) == 0
    assert "Rating" in capsys.readouterr().out
    assert await asyncio.to_thread(cli.main, ["replay", pasted]) == 0
    (shown_replay,) = replays
    assert shown_replay.record.table.id == club.finished and shown_replay.seat == SEAT
    assert shown_replay.start == shown_replay.record.turn_starts()[2]


async def test_the_plain_mode_replays_and_plays_on_over_its_tls_connection(club: Club, tmp_path):
    async with InProcess(club.url, tmp_path, Trust(pin=club.pin), password=SECRET) as raven:
        await raven.transcript.until(r"^  1: Kept")  # the lobby, past the password
        raven.type(f"replay {club.finished} seat {SEAT + 1} turn 2")
        await raven.transcript.until(r"as seat 2 saw it: turn 2 of ")
        raven.type("play on")
        await raven.transcript.until(r"^Playing on from turn 2 of Kept")
        assert not raven.errors()
        assert len(raven.transports) == 1  # all of it on the one connection
