"""The client's core on its own, without a face's screen or lines: what it sends (typed
requests, each with a fresh rid), what it tells its face as the server answers (every
message matched once), and who hears the answer to each request. A scripted transport
stands for the server; every wait is for something the core does, with a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gother_tui.core.client import ClientCore, Reply
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from protocol import PROTOCOL_VERSION, Request
from protocol import requests as rq
from protocol import server_messages as sm
from tests.tui.viewkit import CATALOGUE, TABLE, TOKEN, distribute_game, wire_view

URL = "ws://core.invalid:8765"
TIMEOUT = 10.0
Frame = dict[str, Any]


class Server:
    """One connection's transport: every request sent, as the server decodes it, and the
    frames the test feeds back."""

    def __init__(self) -> None:
        self.sent: asyncio.Queue[Frame] = asyncio.Queue()
        self.close_code: int | None = None
        self.close_reason = ""
        self._inbox: asyncio.Queue[Frame | None] = asyncio.Queue()
        self.urls: list[str] = []  # where each connection was made

    def transport(self, url: str) -> Server:
        self.urls.append(url)
        return self

    async def connect(self) -> None:
        pass

    async def send(self, request: Request) -> None:
        self.sent.put_nowait(request.to_wire())

    async def messages(self) -> AsyncIterator[Frame]:
        while (frame := await self._inbox.get()) is not None:
            yield frame

    async def close(self) -> None:
        pass

    def feed(self, *frames: Frame) -> None:
        for frame in frames:
            self._inbox.put_nowait(frame)

    def drop(self) -> None:
        self._inbox.put_nowait(None)

    async def next_sent(self) -> Frame:
        return await asyncio.wait_for(self.sent.get(), TIMEOUT)


class Face:
    """A face that keeps every call the core makes of it, in order."""

    def __init__(self) -> None:
        self.calls: asyncio.Queue[tuple[str, tuple[Any, ...]]] = asyncio.Queue()

    def __getattr__(self, name: str) -> Any:
        return lambda *args: self.calls.put_nowait((name, args))

    async def told(self, name: str) -> tuple[Any, ...]:
        """The arguments of the next call of `name` (the calls before it are passed over)."""

        async def find() -> tuple[Any, ...]:
            while True:
                called, args = await self.calls.get()
                if called == name:
                    return args

        return await asyncio.wait_for(find(), TIMEOUT)


@pytest.fixture
async def core(tmp_path: Path) -> AsyncIterator[tuple[ClientCore, Face, Server]]:
    face, server = Face(), Server()
    options = ClientOptions(url=URL, name="Raven", anonymous=True, table=TABLE)
    client = ClientCore(options, face, SeatStore(tmp_path / "seats.json"), server.transport)
    running = asyncio.create_task(client.run())
    yield client, face, server
    await client.close()
    running.cancel()


async def seated(core: ClientCore, face: Face, server: Server) -> None:
    """Welcome, then the join of --table, its `joined` and a first state."""
    hello = await server.next_sent()
    assert hello == {"t": "hello", "rid": 1, "v": PROTOCOL_VERSION, "name": "Raven"}
    server.feed({"t": "welcome", "rid": 1, "v": PROTOCOL_VERSION, "server": "fake"})
    assert await server.next_sent() == {"t": "join", "rid": 2, "table": TABLE}
    server.feed(
        {"t": "joined", "rid": 2, "table": TABLE, "seat": 0, "token": TOKEN, "cards": CATALOGUE},
        {"t": "state", "seq": 1, "view": wire_view(distribute_game())},
    )
    assert await face.told("go") == ("table", None)
    before, _added = await face.told("shown")
    assert before is None and core.view is not None and core.view.seat == 0


def answer_to(core: ClientCore, request: Request) -> asyncio.Future[Reply | None]:
    """Ask `request`; the future holds its answer once it comes."""
    told: asyncio.Future[Reply | None] = asyncio.get_running_loop().create_future()
    assert core.request(request, lambda asked, reply: told.set_result(reply)) is not None
    return told


async def test_the_core_says_hello_follows_the_flow_and_answers_each_request_once(core):
    client, face, server = core
    await seated(client, face, server)
    hinted = answer_to(client, rq.Hint())
    asked = await server.next_sent()
    assert asked == {"t": "hint", "rid": 3}
    move = {"kind": "draw", "source": "deck"}
    server.feed({"t": "hint", "rid": 3, "move": move}, {"t": "hint", "rid": 3, "move": move})
    reply = await asyncio.wait_for(hinted, TIMEOUT)
    assert isinstance(reply, sm.Hint) and reply.move.kind == "draw"
    said = answer_to(client, rq.Chat(text="hi"))  # the second hint, answered once, is dropped
    assert await server.next_sent() == {"t": "chat", "rid": 4, "text": "hi"}
    server.feed({"t": "chat", "rid": 4, "from": "Raven", "text": "hi", "table": TABLE})
    (line,) = await face.told("chat_changed")
    assert line == await asyncio.wait_for(said, TIMEOUT) and client.chat == (line,)


async def test_a_stale_state_is_not_shown_and_a_refusal_nobody_asked_for_is_a_notice(core):
    client, face, server = core
    await seated(client, face, server)
    shown = client.view
    stale = wire_view(distribute_game(), away=[2])
    server.feed(
        {"t": "state", "seq": 1, "view": stale},
        {"t": "error", "code": "rate_limited", "message": "slow down"},
    )
    (notice,) = await face.told("notice")
    assert (notice.text, notice.title, notice.severity) == ("slow down", "Rate limited", "error")
    assert client.view is shown  # the state of the same seq before it changed nothing


async def test_a_refused_join_goes_to_the_flow_and_the_lobby_says_why(tmp_path):
    face, server = Face(), Server()
    options = ClientOptions(url=URL, name="Raven", anonymous=True, table=TABLE)
    client = ClientCore(options, face, SeatStore(tmp_path / "seats.json"), server.transport)
    running = asyncio.create_task(client.run())
    try:
        await server.next_sent()
        server.feed({"t": "welcome", "rid": 1, "v": PROTOCOL_VERSION, "server": "fake"})
        await server.next_sent()
        server.feed({"t": "error", "rid": 2, "code": "no_such_table", "message": "no table"})
        (notice,) = await face.told("notice")
        assert notice.text == "no table"
        where, (asked, error) = await face.told("go")
        assert where == "lobby" and asked == rq.Join(rid=2, table=TABLE)
        assert error.code == "no_such_table"
    finally:
        await client.close()
        running.cancel()


async def test_what_was_asked_before_a_loss_is_answered_with_none(core):
    client, face, server = core
    await seated(client, face, server)
    asked = answer_to(client, rq.Start())
    await server.next_sent()
    server.drop()  # the connection is lost before the answer
    reason, retry_in = await face.told("lost")
    assert reason == "connection lost" and retry_in is not None  # it tries again
    assert await asyncio.wait_for(asked, TIMEOUT) is None
    assert not client.online


async def test_a_loss_at_another_process_of_the_host_says_the_game_is_being_found(core):
    """The process a table was followed to dies (a takeover may be under way): the player is
    told the host is asked where the game is now, not "is the server running?", and the next
    connection is to the host's address."""
    _, face, server = core
    await server.next_sent()
    server.feed({"t": "welcome", "rid": 1, "v": PROTOCOL_VERSION, "server": "fake"})
    assert await server.next_sent() == {"t": "join", "rid": 2, "table": TABLE}
    there = "ws://core.invalid:8766"
    server.feed({"t": "error", "rid": 2, "code": "elsewhere", "message": "there", "url": there})
    server.drop()  # the connection left for the table's process
    assert (await server.next_sent())["t"] == "hello"
    server.feed({"t": "welcome", "rid": 3, "v": PROTOCOL_VERSION, "server": "fake"})
    assert await server.next_sent() == {"t": "join", "rid": 4, "table": TABLE}
    server.drop()  # that process is gone
    reason, retry_in = await face.told("lost")
    assert reason == (
        f"the host's process at {there} stopped answering; asking the host where your game is now"
    )
    assert retry_in is not None
    assert (await server.next_sent())["t"] == "hello"  # tried again, at the host's address
    assert server.urls == [URL, there, URL]


async def test_an_anonymous_players_entry_secret_is_given_back_when_it_registers_again(core):
    """A tournament entry of a player with no proven identity is theirs by the secret its
    registration answered with: registering there again (a new connection) sends it."""
    client, face, server = core
    await seated(client, face, server)
    night = {
        "t": "tournament", "id": "nite01", "name": "Night", "rounds": 1, "seats": 3,
        "duplicate": False, "variants": wire_view(distribute_game())["table"]["variants"],
        "phase": "registering", "round": 0, "players": ["Raven"], "tables": [], "standings": [],
    }  # fmt: skip
    registered = answer_to(client, rq.TournamentJoin(tournament="nite01"))
    assert await server.next_sent() == {"t": "tournament_join", "rid": 3, "tournament": "nite01"}
    server.feed({**night, "rid": 3, "secret": "s" * 32})
    assert isinstance(await asyncio.wait_for(registered, TIMEOUT), sm.Tournament)
    answer_to(client, rq.TournamentJoin(tournament="nite01"))
    again = await server.next_sent()
    assert again == {"t": "tournament_join", "rid": 4, "tournament": "nite01", "secret": "s" * 32}
    answer_to(client, rq.TournamentJoin(tournament="other1"))  # another's: none
    assert await server.next_sent() == {"t": "tournament_join", "rid": 5, "tournament": "other1"}
