"""A tournament goes on when the process running it dies (issue 34 §2, §3), the real thing:
`gother serve` processes of one host sharing a log folder and one PostgreSQL. The
tournament is run at one, its round 1 seated there and waiting on its players, and that
one is killed -9. A live process takes the round's tables over and, the tournament's lock
let go with the dead process's session, runs the tournament too: its players resume their
seats there and play round 1 out, round 2 is seated there, every player plays each round
once, and the standings are the stored results' own. With `--processes`, the process
started again and the taker never both run it."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from protocol import requests as rq
from server.edge.elsewhere import RENEW
from server.store.directory import LEASE
from server.store.holds import KIND
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until as until_true
from tests.kits.prockit import LISTENING, ServerProcess, host_of
from tests.kits.tournamentkit import LEAVE, SHORT, Player, until
from tests.store.test_postgres import psql
from tests.store.test_serve_processes import pid_listening_at
from tests.tournament.test_tournament_night import oracle_place_points

pytestmark = [pytest.mark.usefixtures("postgres"), pytest.mark.slow]

NAMES = ["Ann", "Bea", "Cid", "Dee"]
# A player who is there and does not move is waited for; one gone is covered only after
# 30 s (they come back well before: their games' results are theirs).
PACE = ("--bot-delay", "0.05", "--grace", "30", "--idle", "600")
NIGHTS = ("--tournament-password", LEAVE, "--tournament-entries-per-address", "100")
STARTED = re.compile(r"process (\d) started \(pid (\d+)\)")
# the sessions holding a tournament's lock (server/store/holds.py)
LOCKS = (
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
    f" AND classid = {KIND} AND objsubid = 2"
)


@pytest.fixture
async def host(pg_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two processes of one host: each its own log, in one folder they share."""
    async with host_of(2, pg_url, tmp_path, *PACE, *NIGHTS) as processes:
        yield processes


@dataclass
class RoundOne:
    """A 2-round tournament run at one process, its round 1 seated and waiting on its
    players (connected, never moving)."""

    tournament: str
    tables: dict[str, list[str]]  # table id: its players' names
    seats: list[dict[str, Any]]  # each player's `joined`, in NAMES' order
    clients: list[Client]


async def round_one(url: str, elsewhere: str) -> RoundOne:
    """Round 1 seated at `url`, once its tables are listed at `elsewhere` too (which then
    knows the process at `url` was alive while it ran)."""
    organiser = await Client.connect(url, "Host")
    created = await organiser.ask(
        rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=3, variants=SHORT)
    )
    tournament = created["id"]
    clients = [organiser]
    for name in NAMES:
        client = await Client.connect(url, name)
        reply = await client.ask(rq.TournamentJoin(tournament=tournament))
        assert reply["t"] == "tournament", reply
        clients.append(client)
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1), started
    tables = {t["table"]: sorted(t["players"]) for t in started["tables"]}
    assert sorted(p for ps in tables.values() for p in ps) == NAMES
    seats = [await client.next(lambda m: m["t"] == "joined") for client in clients[1:]]

    looker = await Client.connect(elsewhere, "Looker")
    listed: set[str] = set()

    async def list_again() -> None:
        await asyncio.sleep(0.2)  # a request a while: no flood
        listed.update(row["id"] for row in (await looker.request("list"))["tables"])

    await until_true("round 1 listed elsewhere", lambda: set(tables) <= listed, pause=list_again)
    reply = await looker.ask(rq.TournamentWatch(tournament=tournament))
    assert reply["t"] == "error" and reply["code"] == "elsewhere" and reply["url"] == url, reply
    now = await organiser.ask(rq.TournamentWatch(tournament=tournament))
    assert now["round"] == 1 and not any(t["over"] for t in now["tables"]), now  # mid-round
    await looker.close()
    return RoundOne(tournament, tables, seats, clients)


async def asked(client: Client, request: rq.Request, done: Any) -> dict[str, Any]:
    """`request`'s reply, asked again (a while apart) until `done(reply)`."""
    reply: dict[str, Any] = await client.ask(request)

    async def again() -> None:
        await asyncio.sleep(0.2)
        reply.clear()
        reply.update(await client.ask(request))

    await until_true(f"{request} answered", lambda: done(reply), pause=again)
    return reply


async def run_at(urls: list[str], tournament: str) -> tuple[str, Client]:
    """The process of `urls` that runs `tournament`, with a watcher there."""
    watch = rq.TournamentWatch(tournament=tournament)
    home = await Client.connect(urls[0], "Looker")
    sent = await asked(home, watch, lambda r: r["t"] == "tournament" or r.get("url") in urls)
    url = urls[0] if sent["t"] == "tournament" else sent["url"]
    await home.close()
    watcher = await Client.connect(url, "Watcher")
    assert (await watcher.ask(watch))["t"] == "tournament"
    return url, watcher


async def back(live: list[str], name: str, seat: dict[str, Any]) -> Player:
    """A player come back to their seat by its token, at the host's address (the first of
    the `live` processes), sent on to the one that holds it now (once it is taken over:
    until then, to the dead one), and playing there."""
    resume = rq.Resume(token=seat["token"], table=seat["table"])
    client = await Client.connect(live[0], name)
    reply = await asked(client, resume, lambda r: r["t"] == "joined" or r.get("url") in live)
    if reply["t"] != "joined":
        await client.close()
        client = await Client.connect(reply["url"], name)
        reply = await asked(client, resume, lambda r: r["t"] == "joined")
    player = Player(client)
    player.table = seat["table"]  # its `joined` was the reply: the state follows it
    return player


def holder(pg_url: str, table: str) -> str:
    """The log holding `table`, as PostgreSQL names it: its file's stem."""
    rows = psql(pg_url, f"SELECT log FROM tables WHERE id = '{table}'")
    assert rows and rows[0][0], rows
    return Path(str(rows[0][0])).stem


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


async def played_out(
    pg_url: str, first: RoundOne, watcher: Client, players: list[Player]
) -> list[str]:
    """The tournament over: each player played round 1 at their seat and round 2 at a new
    table (each round once, no table seated twice), and the standings are the stored
    results'. Returns round 2's tables."""
    final = await until(watcher, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    for player, seat in zip(players, first.seats, strict=True):
        await player.heard_games_end(2)
        joined = [table for kind, table in player.heard if kind == "joined"]
        assert len(joined) == 1 and joined[0] not in first.tables, player.heard  # round 2's
        assert seat["table"] in player.finals  # round 1's, played out
        player.task.cancel()
    second = {t["table"]: sorted(t["players"]) for t in final["tables"]}
    assert final["round"] == 2 and not set(second) & set(first.tables)
    assert sorted(p for ps in second.values() for p in ps) == NAMES
    stored = points_stored(pg_url, [*first.tables, *second])
    rows = final["standings"]
    assert {r["name"]: r["games"] for r in rows} == dict.fromkeys(NAMES, 2)
    assert {r["player"]: r["points"] for r in rows} == {
        r["player"]: stored[r["player"]] for r in rows
    }
    return list(second)


async def test_a_tournament_goes_on_at_a_live_process_when_its_runner_is_killed(host, pg_url):
    runner, survivor = host
    first = await round_one(runner.url, survivor.url)
    await runner.kill()
    url, watcher = await run_at([survivor.url], first.tournament)
    assert url == survivor.url
    players = [await back([survivor.url], n, s) for n, s in zip(NAMES, first.seats, strict=True)]
    second = await played_out(pg_url, first, watcher, players)
    for table in [*first.tables, *second]:  # round 1 taken over, round 2 seated there
        assert holder(pg_url, table) == "log-1"
    await close_all(watcher, *first.clients, *(p.client for p in players))


async def test_with_processes_the_taker_and_the_process_started_again_run_it_once(pg_url, tmp_path):
    """`--processes 2`: the runner killed -9 is started again within a second or two while
    the other may take its tables and its tournament: whichever gets them runs it on, the
    other sends its players there, and its rounds are seated once."""
    log = tmp_path / "log.db"
    host = await ServerProcess.start(
        "--processes", "2", "--db", pg_url, "--table-log", str(log), *PACE, *NIGHTS
    )
    try:
        urls = sorted({(await host.log_line(LISTENING, nth=n)).group(1) for n in (1, 2)})
        home, runner = urls
        first = await round_one(runner, home)
        pids = {m.group(2) for line in host.lines if (m := STARTED.search(line))}
        killed = await asyncio.create_subprocess_exec(
            "kill", "-9", await pid_listening_at(runner, pids)
        )
        assert await killed.wait() == 0
        again = (await host.log_line(LISTENING, nth=3)).group(1)  # started again
        live = [home, again]
        url, watcher = await run_at(live, first.tournament)
        other = next(u for u in live if u != url)  # does not run it: sends its players on
        looker = await Client.connect(other, "Looker")
        watch = rq.TournamentWatch(tournament=first.tournament)
        await asked(looker, watch, lambda r: r["t"] == "error" and r.get("url") == url)
        players = [await back(live, n, s) for n, s in zip(NAMES, first.seats, strict=True)]
        second = await played_out(pg_url, first, watcher, players)
        rows = psql(pg_url, f"SELECT id FROM processes WHERE url = '{url}'")
        running = Path(str(rows[0][0])).stem  # its log, as the host names the process
        held = {table: holder(pg_url, table) for table in [*first.tables, *second]}
        assert set(held.values()) == {running}, held  # held where the tournament is run
        await close_all(looker, watcher, *first.clients, *(p.client for p in players))
    finally:
        if host.proc.returncode is None:
            assert await host.terminate() == 0
        await host.stop()


async def test_a_runner_whose_holds_connection_is_lost_runs_it_again_alone(host, pg_url):
    """The runner's session holding the tournament's lock ends mid-round (the process lives,
    its connection is made again): it lets go, takes the lock again on its new session (its
    round's tables are here: the other passes it over), and runs it on, alone: its players
    stay followed where they are, round 2 is seated once, the standings the stored results'."""
    runner, other = host
    first = await round_one(runner.url, other.url)
    [(session,)] = psql(pg_url, LOCKS)
    psql(pg_url, f"SELECT pg_terminate_backend({session})")

    def taken_again() -> bool:
        return bool((held := psql(pg_url, LOCKS)) and held != [(session,)])

    await until_true("the tournament's lock taken again", taken_again)
    url, watcher = await run_at([other.url, runner.url], first.tournament)
    assert url == runner.url
    players = [Player(client) for client in first.clients[1:]]
    for player, seat in zip(players, first.seats, strict=True):
        player.table = seat["table"]  # its `joined` was heard: the state follows it
    second = await played_out(pg_url, first, watcher, players)
    # seated once: no table of a second round 2 made anywhere, one lock, held by one session
    made = psql(pg_url, "SELECT id FROM tables WHERE name LIKE 'Night r2 %'")
    assert sorted(str(row[0]) for row in made) == sorted(second)
    assert len(psql(pg_url, LOCKS)) == 1
    looker = await Client.connect(other.url, "Looker")
    reply = await looker.ask(rq.TournamentWatch(tournament=first.tournament))
    assert reply["t"] == "error" and reply["url"] == runner.url, reply
    await close_all(looker, watcher, *first.clients)


async def test_a_tournament_let_go_before_its_start_is_run_by_one_process(host, pg_url):
    """Registering (no round yet: any process may run it), the runner's holds session ends:
    the runner lets go at its next renewal, and whichever process takes the lock first runs
    it, the other sending its requests there: after both have looked again, one answers
    it. Its players register again there (with their entries' secrets) and play both
    rounds, each seated once, the standings the stored results'."""
    runner, other = host
    urls = [runner.url, other.url]
    organiser = await Client.connect(runner.url, "Host")
    night = rq.TournamentCreate(password=LEAVE, name="Night", rounds=2, seats=3, variants=SHORT)
    tournament = (await organiser.ask(night))["id"]
    await organiser.close()
    secrets = {}
    for name in NAMES:
        client = await Client.connect(runner.url, name)
        secrets[name] = (await client.ask(rq.TournamentJoin(tournament=tournament)))["secret"]
        await client.close()
    [(session,)] = psql(pg_url, LOCKS)
    [(ended,)] = psql(pg_url, f"SELECT now() FROM (SELECT pg_terminate_backend({session})) AS t")
    # each process renewed twice since: a renewal that began after it ended has looked
    later = ended + timedelta(seconds=LEASE + 2 * RENEW + 1)
    await until_true(
        "both processes renewed since",
        lambda: (
            psql(pg_url, f"SELECT count(*) FROM processes WHERE lease_until > '{later}'") == [(2,)]
        ),
        pause=lambda: asyncio.sleep(0.2),
    )
    watch = rq.TournamentWatch(tournament=tournament)
    answers = []
    for url in urls:
        looker = await Client.connect(url, "Looker")
        answers.append(await looker.ask(watch))
        await looker.close()
    running = [url for url, reply in zip(urls, answers, strict=True) if reply["t"] == "tournament"]
    assert len(running) == 1, answers  # run by one process, not two
    url = running[0]
    sent = next(reply for reply in answers if reply["t"] == "error")
    assert (sent["code"], sent["url"]) == ("elsewhere", url), sent
    assert len(psql(pg_url, LOCKS)) == 1 and psql(pg_url, LOCKS) != [(session,)]

    watcher = await Client.connect(url, "Watcher")
    assert (await watcher.ask(watch))["t"] == "tournament"
    players = []
    for name in NAMES:
        client = await Client.connect(url, name)
        back = await client.ask(rq.TournamentJoin(tournament=tournament, secret=secrets[name]))
        assert back["t"] == "tournament" and back["phase"] == "registering", back
        players.append(Player(client))
    organiser = await Client.connect(url, "Host")
    started = await organiser.ask(rq.TournamentStart(tournament=tournament))
    assert (started["phase"], started["round"]) == ("playing", 1), started
    first = [t["table"] for t in started["tables"]]
    final = await until(watcher, lambda m: m["t"] == "tournament" and m["phase"] == "over")
    second = [t["table"] for t in final["tables"]]
    for player in players:
        await player.heard_games_end(2)
        player.task.cancel()
    for round_no, tables in ((1, first), (2, second)):  # each seated once, at one process
        made = psql(pg_url, f"SELECT id FROM tables WHERE name LIKE 'Night r{round_no} %'")
        assert sorted(str(row[0]) for row in made) == sorted(tables)
    stored = points_stored(pg_url, [*first, *second])
    rows = final["standings"]
    assert {r["name"]: r["games"] for r in rows} == dict.fromkeys(NAMES, 2)
    assert {r["player"]: r["points"] for r in rows} == {
        r["player"]: stored[r["player"]] for r in rows
    }
    await close_all(watcher, organiser, *(p.client for p in players))
