"""A tournament's table taken over still calls its players (issue 34 §2, §3), the real
thing: three `gother serve` processes of one host sharing a log folder and one PostgreSQL.
The runner places its round's table at the process holding the fewest tables; a player
connected at another process, between games, is called to it there. That process is killed
-9 and a live one takes the table over: the player, connected again at the live process
that did not take it, is called to it at the taker, as before the kill (the table taken
over knows the tournament's round it seats), even when it is killed before the runner
stored the round (the taker reads the table's placement). So too when that process, which
does not run the tournament, stops and starts again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import requests as rq
from tests.edge.test_identity import proven
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until as until_true
from tests.kits.prockit import ServerProcess, host_of
from tests.kits.tournamentkit import LEAVE, SHORT, until
from tests.store.test_lobby_across import Lobby
from tests.store.test_postgres import psql
from tests.store.test_tournament_takeover import NIGHTS, holder

pytestmark = [pytest.mark.usefixtures("postgres"), pytest.mark.slow]

# the players never come to their table: no bot covers them while the test runs
PACE = ("--bot-delay", "0.05", "--grace", "600", "--idle", "600")
CALLED = 60.0  # seconds for a call: a takeover (RENEW), a publish and a read, on busy cores


@pytest.fixture
async def host(pg_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Three processes of one host: each its own log (log-0, -1, -2), in one folder."""
    async with host_of(3, pg_url, tmp_path, *PACE, *NIGHTS) as processes:
        yield processes


def a_call(message: dict[str, Any]) -> bool:
    """An unsolicited `error elsewhere`: a call to a table."""
    return message["t"] == "error" and message.get("rid") is None


@dataclass
class Placed:
    """A one-round tournament run at the first process, its table made at the second, its
    player Ann called to it from the third as she waits there."""

    table: str
    ann: Ed25519PrivateKey
    clients: list[Client]  # every connection of the test's, to close


async def placed_round(host: list[ServerProcess], pg_url: str) -> Placed:
    runner, placed, other = host
    # the runner and `other` hold a table each: the round's table goes to the third
    organiser = await Client.connect(runner.url, "Host")
    assert (await organiser.ask(rq.Create(name="Waiting", seats=3, bots=0)))["t"] == "created"
    keeper = await Client.connect(other.url, "Keeper")
    kept = await keeper.ask(rq.Create(name="Kept", seats=3, bots=0))
    await Lobby(organiser).until("other's table listed", lambda rows: kept["table"] in rows)
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=1, seats=3, variants=SHORT)
    )
    tournament = created["id"]
    keys = {name: Ed25519PrivateKey.generate() for name in ("Ann", "Bea")}
    clients = [organiser, keeper]
    for name, key in keys.items():
        client, _ = await proven(runner.url, name, key)
        assert (await client.ask(rq.TournamentJoin(tournament=tournament)))["t"] == "tournament"
        clients.append(client)
    ann, _ = await proven(other.url, "Ann", keys["Ann"])  # between games there
    clients.append(ann)
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))  # round stored
    [table] = [t["table"] for t in started["tables"]]
    assert holder(pg_url, table) == "log-1"  # made at `placed`
    call = await until(ann, a_call, CALLED)
    assert (call["code"], call["url"], call["table"]) == ("elsewhere", placed.url, table), call
    return Placed(table, keys["Ann"], clients)


async def called_again(placed: Placed, at: str, to: str) -> None:
    """Ann, connected anew at `at` (not at her table yet), is called to it at `to`, and
    resumes her seat there."""
    ann, _ = await proven(at, "Ann", placed.ann)
    placed.clients.append(ann)
    call = await until(ann, a_call, CALLED)
    assert (call["code"], call["url"], call["table"]) == ("elsewhere", to, placed.table), call
    resumed = await ann.ask(rq.Resume(table=placed.table))
    assert resumed["t"] == "error" and resumed["url"] == to, resumed
    there, _ = await proven(to, "Ann", placed.ann)
    placed.clients.append(there)
    joined = await there.ask(rq.Resume(table=placed.table))
    assert joined["t"] == "joined" and joined["table"] == placed.table, joined


async def taken_over(host: list[ServerProcess], pg_url: str, placed: Placed) -> None:
    """The table's process killed -9: once a live one took the table, Ann is called to it
    there from the other."""
    runner, dying, other = host
    await dying.kill()
    await until_true(
        "the table taken over",
        lambda: holder(pg_url, placed.table) != "log-1",
        pause=lambda: asyncio.sleep(0.2),
    )
    taker, elsewhere = (
        (runner, other) if holder(pg_url, placed.table) == "log-0" else (other, runner)
    )
    await called_again(placed, elsewhere.url, taker.url)


async def test_a_table_taken_over_calls_its_players_to_it_as_before(host, pg_url):
    placed = await placed_round(host, pg_url)
    await taken_over(host, pg_url, placed)
    await close_all(*placed.clients)


async def test_a_table_taken_over_before_its_round_was_stored_knows_it_by_its_placement(
    host, pg_url
):
    """Killed as its round opened: the table made and answered, the round not stored yet
    (its runner stores it once every table of it is made, waiting up to 10 s for one). The
    round's stored tables are taken away here, as they stand in that window."""
    placed = await placed_round(host, pg_url)
    psql(pg_url, f"DELETE FROM tournament_tables WHERE table_id = '{placed.table}'")
    await taken_over(host, pg_url, placed)
    await close_all(*placed.clients)


async def test_a_table_whose_process_starts_again_calls_its_players_to_it_as_before(
    host, pg_url, tmp_path
):
    """Its process, which does not run the tournament, stopped and started again: the
    table comes back from its log there, and Ann is called to it at its new address."""
    _, stopping, other = host
    placed = await placed_round(host, pg_url)
    assert await stopping.terminate() == 0
    again = await ServerProcess.start(
        *("--db", pg_url, "--table-log", str(tmp_path / "log-1.db")), *PACE, *NIGHTS
    )
    host.append(again)  # stopped with the others
    assert holder(pg_url, placed.table) == "log-1"
    await called_again(placed, other.url, again.url)
    await close_all(*placed.clients)
