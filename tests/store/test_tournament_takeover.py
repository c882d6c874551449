"""A tournament goes on when the process running it dies (issue 34 §2, §3), the real thing:
two `gother serve` processes of one host sharing a log folder and one PostgreSQL. The
tournament is run at the first, its round 1 seated there and waiting on its players; the
first is killed -9. The second takes the round's tables over and, the tournament's lock let
go with the dead process's session, runs the tournament too: round 1 is played out by the
bots covering the players (gone with their process), round 2 is seated there, every player
plays each round once, and the standings are the stored results' own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from protocol import requests as rq
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until as until_true
from tests.kits.prockit import ServerProcess
from tests.kits.tournamentkit import LEAVE, SHORT, Player, until
from tests.store.test_postgres import psql
from tests.tournament.test_tournament_night import oracle_place_points

pytestmark = [pytest.mark.usefixtures("postgres"), pytest.mark.slow]

NAMES = ["Ann", "Bea", "Cid", "Dee"]


@pytest.fixture
async def host(pg_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two processes of one host: each its own log, in one folder they share. A player who
    is there and does not move is waited for; one gone is covered only after 30 s (they
    come back well before: their game's result is theirs)."""
    processes = [
        await ServerProcess.start(
            *("--db", pg_url, "--table-log", str(tmp_path / f"log-{k}.db")),
            *("--bot-delay", "0.05", "--grace", "30", "--idle", "600"),
            *("--tournament-password", LEAVE, "--tournament-entries-per-address", "100"),
        )
        for k in range(2)
    ]
    try:
        yield processes
    finally:
        for process in processes:
            await process.stop()


def points_stored(pg_url: str, tables: list[str]) -> dict[str, float]:
    """Each player's place points over `tables`, worked out here from the stored results."""
    points: dict[str, float] = {}
    for table in tables:
        rows = psql(pg_url, f"SELECT outcome FROM games WHERE table_id = '{table}' AND game_no = 1")
        assert rows and rows[0][0], f"table {table} has no result"
        outcome = json.loads(str(rows[0][0]))
        view = {
            "players": [{"scores": {"goth": seat[1]}} for seat in outcome["seats"]],
            "winner": outcome["winners"],
        }
        for seat, got in zip(outcome["seats"], oracle_place_points(view), strict=True):
            points[seat[0]] = points.get(seat[0], 0.0) + got
    return points


async def runs_it(url: str, tournament: str) -> Client:
    """A watcher at `url`, once the process there runs `tournament`."""
    watcher = await Client.connect(url, "Watcher")
    reply: dict[str, Any] = {}

    async def ask() -> None:
        await asyncio.sleep(0.2)  # a request a while: no flood
        reply.update(await watcher.ask(rq.TournamentWatch(tournament=tournament)))

    reply.update(await watcher.ask(rq.TournamentWatch(tournament=tournament)))
    await until_true(f"{tournament} run at {url}", lambda: reply["t"] == "tournament", pause=ask)
    return watcher


async def test_a_tournament_goes_on_at_a_live_process_when_its_runner_is_killed(host, pg_url):
    runner, survivor = host
    organiser = await Client.connect(runner.url, "Host")
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=3, variants=SHORT)
    )
    tournament = created["id"]
    clients = []
    for name in NAMES:  # they sit at their tables and wait: round 1 is under way
        client = await Client.connect(runner.url, name)
        reply = await client.ask(rq.TournamentJoin(tournament=tournament))
        assert reply["t"] == "tournament", reply
        clients.append(client)
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1), started
    first = {t["table"]: sorted(t["players"]) for t in started["tables"]}
    seats = [await client.next(lambda m: m["t"] == "joined") for client in clients]
    assert sorted(p for ps in first.values() for p in ps) == NAMES

    looker = await runs_it(runner.url, tournament)  # listed at the survivor: run elsewhere
    at_survivor = await Client.connect(survivor.url, "Looker")
    listed: set[str] = set()

    async def list_again() -> None:
        await asyncio.sleep(0.2)
        listed.update(row["id"] for row in (await at_survivor.request("list"))["tables"])

    await until_true(
        "the runner's tables listed at the survivor", lambda: set(first) <= listed, pause=list_again
    )
    reply = await at_survivor.ask(rq.TournamentWatch(tournament=tournament))
    assert reply["t"] == "error" and reply["code"] == "elsewhere", reply
    now = await looker.ask(rq.TournamentWatch(tournament=tournament))
    assert now["round"] == 1 and not any(t["over"] for t in now["tables"]), now  # mid-round

    await runner.kill()
    watcher = await runs_it(survivor.url, tournament)
    players = []
    for name, seat in zip(NAMES, seats, strict=True):  # back at their seats, and they play
        player = Player(await Client.connect(survivor.url, name))
        players.append(player)
        await player.client.tell(rq.Resume(token=seat["token"], table=seat["table"]))
    final = await until(watcher, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    for player, seat in zip(players, seats, strict=True):
        await player.heard_games_end(2)
        assert player.heard[0] == ("joined", seat["table"])  # their round 1 seat, taken over
        player.task.cancel()

    frames = [m for m in watcher.received if m["t"] == "tournament"]
    second = {t["table"]: sorted(t["players"]) for t in final["tables"]}
    assert final["round"] == 2 and not set(second) & set(first)
    assert frames[0]["round"] == 1  # taken up mid-round 1, then round 2
    for round_ in (first, second):  # every player plays each round once
        assert sorted(p for ps in round_.values() for p in ps) == NAMES
    for table in [*first, *second]:  # round 1 taken over, round 2 seated at the survivor
        log = psql(pg_url, f"SELECT log FROM tables WHERE id = '{table}'")
        assert log and Path(str(log[0][0])).stem == "log-1", log
    stored = points_stored(pg_url, [*first, *second])
    rows = final["standings"]
    assert {r["name"]: r["games"] for r in rows} == dict.fromkeys(NAMES, 2)
    assert {r["player"]: r["points"] for r in rows} == {
        r["player"]: stored[r["player"]] for r in rows
    }
    await close_all(organiser, looker, watcher, at_survivor, *clients, *(p.client for p in players))
