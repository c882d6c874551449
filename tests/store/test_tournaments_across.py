"""Tournaments across a host's processes (issue 34 §2): real servers on 127.0.0.1 sharing
one PostgreSQL, each with its table log. A tournament is run by one process, the one that
holds it: every process lists it, and its requests elsewhere are answered with where it is
run, which players follow (our client by itself) to register and play there; a process
started later does not run it too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from gother_tui.core.client import ClientCore
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import WebSocketTransport
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.view import Variants
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.store.holds import PostgresHolds, unheld
from server.store.kinds import open_store
from server.store.postgres_database import PostgresDatabase
from server.store.tournaments import TournamentRecord
from tests.core.test_client_core import Face, answer_to
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until as until_true
from tests.kits.poll import until_blocking
from tests.kits.tournamentkit import LEAVE, NIGHT, SHORT, Player, until
from tests.store.test_postgres import psql
from tests.tournament.test_tournament_night import oracle_place_points

pytestmark = pytest.mark.usefixtures("postgres")

Start = Callable[..., Awaitable[str]]  # a process's name (and its grace): its URL


@pytest.fixture
async def host(pg_url: str, tmp_path: Path) -> AsyncIterator[Start]:
    started: list[GotherServer] = []

    async def start(name: str, grace: float = 60.0) -> str:
        config = ServerConfig(
            host="127.0.0.1",
            port=0,
            db=pg_url,
            table_log=str(tmp_path / f"{name}.db"),
            bot_delay=0.0,
            grace=grace,
            **NIGHT,
        )
        server = GotherServer(config)
        await server.start()
        started.append(server)
        return f"ws://127.0.0.1:{server.port}"

    try:
        yield start
    finally:
        for server in started:
            await server.close()


async def listed_at(url: str, tournament: str) -> None:
    """Until `list` at `url` shows `tournament`."""
    looker = await Client.connect(url, "Looker")
    seen: list[str] = []

    async def ask() -> None:
        await asyncio.sleep(0.2)
        reply = await looker.request("list")
        seen[:] = [row["id"] for row in reply.get("tournaments", ())]

    await ask()
    await until_true(f"{tournament} listed at {url}", lambda: tournament in seen, pause=ask)
    await looker.close()


async def test_a_tournament_is_run_at_one_process_and_played_from_every_one(host, tmp_path):
    one, two = await host("one"), await host("two")
    organiser = await Client.connect(one, "Host")
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=3, variants=SHORT)
    )
    assert created["t"] == "tournament", created
    tournament = created["id"]
    await listed_at(two, tournament)

    players = []
    for name, at in (("Ann", one), ("Bea", one), ("Cid", two), ("Dee", two)):
        client = await Client.connect(at, name)
        reply = await client.ask(rq.TournamentJoin(tournament=tournament))
        if at == two:  # run at one: said so, and followed there
            assert reply["t"] == "error" and reply["code"] == "elsewhere", reply
            assert reply["url"] == one and one in reply["message"]
            await client.close()
            client = await Client.connect(reply["url"], name)
            reply = await client.ask(rq.TournamentJoin(tournament=tournament))
        assert reply["t"] == "tournament" and name in reply["players"], reply
        player = Player(client)
        player.tournament = tournament
        players.append(player)

    # our client follows a tournament asked of a process that does not run it
    face = Face()
    core = ClientCore(
        ClientOptions(url=two, name="Eve"),
        face,
        SeatStore(tmp_path / "eve.json"),
        WebSocketTransport,
    )
    running = asyncio.create_task(core.run())
    try:
        await until_true("Eve in two's lobby", lambda: core.online)
        followed = await asyncio.wait_for(
            answer_to(core, rq.TournamentWatch(tournament=tournament)), 30
        )
        assert isinstance(followed, sm.Tournament) and followed.id == tournament, followed
        assert core.flow.at == one
    finally:
        await core.close()
        running.cancel()

    three = await host("three")  # started later: the tournament is one's, not its own too
    late = await Client.connect(three, "Late")
    await listed_at(three, tournament)
    reply = await late.ask(rq.TournamentWatch(tournament=tournament))
    assert reply["t"] == "error" and reply["code"] == "elsewhere" and reply["url"] == one, reply
    await late.close()

    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1)
    final = await until(organiser, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    frames = [m for m in organiser.received if m["t"] == "tournament"]
    night = [[f for f in frames if f["round"] == r][-1]["tables"] for r in (1, 2)]
    for round_ in night:  # every round seated, everyone once
        assert sorted(p for t in round_ for p in t["players"]) == ["Ann", "Bea", "Cid", "Dee"]
    for player in players:
        await player.heard_games_end(2)
    finals = {table: view for p in players for table, view in p.finals.items()}
    points = dict.fromkeys(["Ann", "Bea", "Cid", "Dee"], 0.0)
    for round_ in night:
        for t in round_:
            for seat, name in enumerate(t["players"]):
                points[name] += oracle_place_points(finals[t["table"]])[seat]
    rows = final["standings"]
    assert {r["name"]: r["points"] for r in rows} == points
    assert {r["name"]: r["games"] for r in rows} == dict.fromkeys(points, 2)
    for player in players:
        player.task.cancel()
    await close_all(organiser, *(p.client for p in players))


async def test_a_tournament_s_request_at_a_process_that_runs_it_nowhere_is_no_such(host):
    one = await host("one")
    client = await Client.connect(one, "Ann")
    reply: dict[str, Any] = await client.ask(rq.TournamentWatch(tournament="nosuch"))
    assert reply["t"] == "error" and reply["code"] == "no_such_tournament" and "url" not in reply
    await client.close()


def test_a_tournament_is_unheld_once_its_runner_s_session_ends(pg_url, tmp_path):
    """`unheld` names a stored tournament once no session holds its lock, and never one a
    live session holds; two ids whose hashes are the same are two locks (a lock's key is
    the tournament's own number, not its id's hash)."""
    store = open_store(pg_url, str(tmp_path / "one.db"))
    twins = psql(
        pg_url,
        "SELECT min(id), max(id) FROM (SELECT 'T' || n AS id FROM generate_series(1, 300000) n)"
        " ids GROUP BY hashtext(id) HAVING count(*) > 1 LIMIT 1",
    )
    assert len(twins) == 1  # a pair of ids sharing a 32-bit hash, in 300,000 (~10 expected)
    ids = sorted([*(f"T{k:05d}" for k in range(38)), *map(str, twins[0])])
    for tid in ids:
        store.tournaments.save_tournament(
            TournamentRecord(tid, "Night", 2, 3, Variants(), "normal", False, "Host")
        )
    runner, looker = PostgresDatabase(pg_url), PostgresDatabase(pg_url)
    try:
        held = [tid for tid in ids if tid != twins[0][1]][::2]
        assert twins[0][0] in held
        assert all(PostgresHolds(runner).take(tid) for tid in held)
        assert unheld(looker) == [tid for tid in ids if tid not in held]
        assert not PostgresHolds(looker).take(held[0])  # held: the lock says so too
        assert PostgresHolds(looker).take(twins[0][1])  # its twin's hash, a lock of its own
        assert twins[0][1] not in unheld(runner)
        runner.close()  # its process died: its session's locks go with it
        until_blocking(
            "the runner's locks let go", lambda: unheld(looker) == sorted(set(ids) - {twins[0][1]})
        )
    finally:
        looker.close()
        store.close()


async def test_a_tournament_whose_runner_stopped_waits_for_it_and_is_run_once(pg_url, tmp_path):
    """A runner stopped cleanly keeps its round's tables for its return: another process,
    finding the tournament run nowhere, passes it over (its round is not its to go on: it
    is not read again each renewal) and never runs it; the runner started again runs it on,
    and the other sends its players there."""

    def night(name: str) -> GotherServer:
        log = str(tmp_path / f"{name}.db")
        return GotherServer(
            ServerConfig(host="127.0.0.1", port=0, db=pg_url, table_log=log, **NIGHT)
        )

    one, two = night("one"), night("two")
    await one.start()
    await two.start()
    again = None
    try:
        url = f"ws://127.0.0.1:{one.port}"
        organiser = await Client.connect(url, "Host")
        created = await organiser.ask(
            rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=3, variants=SHORT)
        )
        tournament = created["id"]
        for name in ("Ann", "Bea", "Cid", "Dee"):  # they sit and wait: round 1 is under way
            client = await Client.connect(url, name)
            assert (await client.ask(rq.TournamentJoin(tournament=tournament)))["t"] == "tournament"
        started = await organiser.ask(rq.TournamentStart(tournament=tournament))
        assert (started["phase"], started["round"]) == ("playing", 1), started
        await one.close()  # its connections are closed with it

        await until_true("two passes it over", lambda: tournament in two.director.passed)
        assert tournament not in two.director.tournaments
        again = night("one")
        await again.start()
        assert again.director.tournaments[tournament].phase == "playing"
        assert {s.table for s in again.director.tournaments[tournament].played[-1]} == {
            t["table"] for t in started["tables"]
        }
        looker = await Client.connect(f"ws://127.0.0.1:{two.port}", "Looker")
        reply: dict[str, Any] = {}

        async def ask() -> None:
            await asyncio.sleep(0.2)
            reply.update(await looker.ask(rq.TournamentWatch(tournament=tournament)))

        await ask()
        await until_true("two sends its players on", lambda: "url" in reply, pause=ask)
        assert reply["url"] == f"ws://127.0.0.1:{again.port}", reply
        assert tournament not in two.director.tournaments
        # run again: two looks at it anew if it is ever free again
        await until_true("two forgets it passed it over", lambda: not two.director.passed)
        await looker.close()
    finally:
        for server in (two, again):
            if server is not None:
                await server.close()
