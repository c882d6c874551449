"""The lobby across a host's processes (issue 34 §2): real `gother serve --db postgresql://…`
processes, each with its table log: `list` at any of them shows every table of every live
process, as the process holding it lists it; a process killed has its tables taken over by
another (issue 34 §3), one stopped leaves it at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gother_tui.core.client import ClientCore
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from protocol import requests as rq
from protocol import server_messages as sm
from tests.core.test_client_core import Face, answer_to
from tests.edge.test_identity import proven
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until
from tests.kits.prockit import ServerProcess

pytestmark = pytest.mark.usefixtures("postgres")

Start = Callable[[str], Awaitable[ServerProcess]]


@pytest.fixture
async def host(pg_url: str, tmp_path) -> AsyncIterator[Start]:
    started: list[ServerProcess] = []

    async def start(name: str) -> ServerProcess:
        log = str(tmp_path / f"{name}.db")
        started.append(
            await ServerProcess.start("--bot-delay", "0", "--db", pg_url, "--table-log", log)
        )
        return started[-1]

    try:
        yield start
    finally:
        for process in started:
            await process.stop()


class Lobby:
    """A client's look at the lobby, asked again as often as a test waits on it."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.rows: dict[str, dict[str, Any]] = {}

    async def ask(self) -> None:
        reply = await self.client.request("list")
        assert reply["t"] == "tables", reply
        assert reply["total"] == len(reply["tables"])
        self.rows = {row["id"]: row for row in reply["tables"]}

    async def until(self, what: str, check: Callable[[dict[str, dict[str, Any]]], bool]) -> None:
        async def again() -> None:
            await self.ask()
            await asyncio.sleep(0.3)  # within the dear requests' budget

        await self.ask()
        await until(what, lambda: check(self.rows), pause=again)


async def test_list_shows_every_table_of_every_live_process(host, pg_url):
    one, two = await host("one"), await host("two")
    ann = await Client.connect(one.url, "Ann")
    table = (await ann.request("create", name="Ann's", seats=4, bots=1, bot="easy"))["table"]
    await ann.request("join", table=table, seat=0)
    bo = await Client.connect(two.url, "Bo")
    mine = (await bo.request("create", name="Bo's", seats=3, bots=0))["table"]

    at_one = Lobby(ann)  # Ann sits: the row one lists is as it stays
    await at_one.until("two's table listed at one", lambda rows: mine in rows)
    at_two = Lobby(bo)
    # as the process holding it lists it: a renewal between `create` and `join` (under
    # load) showed two the row with Ann not yet sat, for up to a renewal more
    await at_two.until(
        "one's table listed at two as one lists it",
        lambda rows: rows.get(table) == at_one.rows[table],
    )
    assert list(at_two.rows) == [mine, table]  # its own first
    row = at_two.rows[table]
    assert (row["name"], row["seats"], row["seated"], row["bots"]) == ("Ann's", 4, 2, 1)
    assert row["players"][:3] == ["Ann", None, None] and row["players"][3] is not None

    await one.kill()  # kill -9: two, on the same machine, takes its table (issue 34 §3)
    watched: dict[str, Any] = {}

    async def watch() -> None:
        watched.update(await bo.request("watch", table=table))
        await asyncio.sleep(0.3)

    # held at two now: watched there, not sent elsewhere
    await until("one's table held at two", lambda: watched.get("t") == "watching", pause=watch)
    await at_two.ask()
    assert list(at_two.rows) == [mine, table]

    three = await host("three")
    cy = await Client.connect(three.url, "Cy")
    await Lobby(cy).until("two's table listed at three", lambda rows: mine in rows)
    await bo.close()
    await two.terminate()  # a clean stop: its tables leave at once, lease and all
    with psycopg.connect(pg_url) as db:
        alive = db.execute("SELECT url FROM processes").fetchall()
        listed = db.execute("SELECT table_id FROM lobby").fetchall()
    # one died with its lease there, lapsing: only two's rows (its own and the table it
    # took) go with two's withdrawal
    assert sorted(url for (url,) in alive) == sorted([one.url, three.url])
    assert (table,) not in listed and (mine,) not in listed
    await cy.close()
    await ann.close()


async def test_a_table_held_elsewhere_is_answered_with_where_and_our_client_follows(host, tmp_path):
    """`join`, `watch` and `resume {table}` at a process that does not hold the table are
    answered `elsewhere` with its process's URL; our client's core (every door's) connects
    there and asks again by itself, the flow's own join (--table) and a screen's watch."""
    one, two = await host("one"), await host("two")
    ann = await Client.connect(one.url, "Ann")
    table = (await ann.request("create", name="Ann's", seats=3, bots=1, bot="easy"))["table"]
    await ann.request("join", table=table, seat=0)
    asker = await Client.connect(two.url, "Asker")
    await Lobby(asker).until("one's table listed at two", lambda rows: table in rows)
    mine, _ = await proven(two.url, "Mine", Ed25519PrivateKey.generate())
    for client, t in ((asker, "join"), (asker, "watch"), (mine, "resume")):
        reply = await client.request(t, table=table)
        assert reply["t"] == "error" and reply["code"] == "elsewhere", reply
        assert reply["url"] == one.url and one.url in reply["message"]
    await mine.close()
    reply = await asker.request("join", table="nosuch")
    assert reply["t"] == "error" and reply["code"] == "no_such_table" and "url" not in reply

    face = Face()
    options = ClientOptions(url=two.url, name="Bo", table=table)
    bo = ClientCore(options, face, SeatStore(tmp_path / "bo.json"), WebSocketTransport)
    running = asyncio.create_task(bo.run())
    try:
        assert await face.told("go") == ("table", None)  # seated, at one
        assert bo.flow.table == table and bo.flow.seat is not None
        seat = bo.flow.seat
        # the table filled: its game began, with Bo
        await ann.state(lambda v: v["players"][seat]["name"] == "Bo" and v["phase"] != "lobby")

        watcher = ClientCore(
            ClientOptions(url=two.url, name="Cy"),
            Face(),
            SeatStore(tmp_path / "cy.json"),
            WebSocketTransport,
        )
        watching = asyncio.create_task(watcher.run())
        try:
            await until("Cy in two's lobby", lambda: watcher.online)
            told = answer_to(watcher, rq.Watch(table=table))
            reply = await asyncio.wait_for(told, 30)
            assert isinstance(reply, sm.Watching) and reply.table == table, reply
        finally:
            await watcher.close()
            watching.cancel()
    finally:
        await bo.close()
        running.cancel()

    # Bo comes back to two, the host's address: the seat saved there is followed to one
    face = Face()
    again = ClientCore(
        ClientOptions(url=two.url, name="Bo"),
        face,
        SeatStore(tmp_path / "bo.json"),
        WebSocketTransport,
    )
    running = asyncio.create_task(again.run())
    try:
        assert await face.told("go") == ("table", None)
        assert again.flow.table == table and again.flow.at == one.url
    finally:
        await again.close()
        running.cancel()
    await close_all(ann, asker)
