"""Takeover after `kill -9` (issue 34 §3): printed, never asserted.

    .venv/bin/python bench/takeover.py [--runs 10] [--tables 3] [--url postgresql://…]

Without --url, a PostgreSQL of its own is started on 127.0.0.1 (tests/kits/pgkit.py), with
fsync on, as a host runs it. Each run starts three `gother serve` processes of one host
(a log folder they share, one database of the run's own), and at the second `--tables`
tables of three seats, each a player and two bots (--bot-delay 0.2), played a while: every
event a player is told of is an acknowledged move's (a move is durable before it is told).
Then the second process is killed -9 mid-game, and each player does what our client does:
asks the host's address (the first process) for its seat with its table, follows
`elsewhere`, and resumes there. Per run: the takeover time (the kill to the last of its
tables playable at its new process: `joined` and its `state` there), and the acknowledged
events lost (told before the kill, missing or changed in the game's story after it). Then
the median and the largest takeover time, and every loss counted.

Then what a takeover of `--replayed` tables of `--moves` moves each costs, in this process:
the part in a thread (`take`: the dead log read, each table copied into ours, claimed in
PostgreSQL, the dead log emptied) and the part on the game's loop (`Lobby.adopt`: each
table rebuilt, its game replayed move by move).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol import requests as rq  # noqa: E402
from tests.kits.netkit import Client, close_all, first_legal_move, told  # noqa: E402
from tests.kits.pgkit import Cluster, missing  # noqa: E402
from tests.kits.prockit import ServerProcess  # noqa: E402

BOT_DELAY = "0.2"
PLAYED = 12  # events told at each table before the kill: the games are under way
POLL = 0.05  # seconds between a player's two tries at the host's address


async def play(player: Client, table: str) -> None:
    """The player's moves whenever asked, until its table has told PLAYED events."""

    def asks(view: dict[str, Any]) -> bool:
        return view["legal"] is not None or view["phase"] == "over"

    view = await player.state(asks)
    while len(told(player, table)) < PLAYED and view["phase"] != "over":
        reply = await player.ask(rq.Play(move=first_legal_move(view["legal"])))
        newest = reply.get("view")  # the reply is the newest state: it may ask us again
        view = newest if newest is not None and asks(newest) else await player.state(asks)


async def come_back(home: str, dead: str, seat: dict[str, str]) -> Client:
    """As our client does: the host's address, asked for the seat with its table, until it
    says where the table lives now; resumed there, and shown the table (playable)."""
    there = await Client.connect(home, "Back")
    try:
        while True:
            reply = await there.request("resume", **seat)
            if reply["t"] == "joined":  # the host's address took it over itself
                break
            if reply.get("code") == "elsewhere" and reply["url"] != dead:
                await close_all(there)
                there = await Client.connect(reply["url"], "Back")
                joined = await there.request("resume", **seat)
                assert joined["t"] == "joined", joined
                break
            await asyncio.sleep(POLL)
        # its first state comes after the game's whole story: then it is playable
        await there.state(lambda v: v["table"]["id"] == seat["table"])
    except BaseException:
        await close_all(there)
        raise
    return there


async def one_run(url: str, folder: Path, tables: int) -> tuple[float, int, int]:
    """(takeover seconds, events lost, events acknowledged) of one kill -9."""
    host = [
        await ServerProcess.start(
            *("--bot-delay", BOT_DELAY, "--db", url),
            *("--table-log", str(folder / f"log-{k}.db")),
        )
        for k in range(3)
    ]
    players: list[Client] = []
    try:
        victim = host[1]
        seats = []
        for n in range(tables):
            player = await Client.connect(victim.url, f"P{n}")
            players.append(player)
            made = await player.request("create", name=f"Crypt {n}", seats=3, bots=2)
            joined = await player.request("join", table=made["table"])
            seats.append({"token": joined["token"], "table": made["table"]})
        await asyncio.gather(*(play(p, s["table"]) for p, s in zip(players, seats, strict=True)))
        before = [told(p, s["table"]) for p, s in zip(players, seats, strict=True)]
        killed_at = time.monotonic()
        await victim.kill()
        back = await asyncio.gather(*(come_back(host[0].url, victim.url, s) for s in seats))
        took = time.monotonic() - killed_at
        players += back
        lost = 0
        for client, seat, acknowledged in zip(back, seats, before, strict=True):
            after = told(client, seat["table"])
            lost += sum(after.get(place) != event for place, event in acknowledged.items())
        return took, lost, sum(len(events) for events in before)
    finally:
        await close_all(*players)
        for process in host:
            await process.stop()


def loop_cost(url: str, folder: Path, tables: int, moves: int) -> tuple[float, float]:
    """Seconds of a takeover of `tables` tables of `moves` moves: (in its thread, on the
    loop)."""
    from server.store.kinds import open_store
    from server.store.postgres import PostgresStore
    from server.tables.lobby import Lobby
    from server.tables.table import Settings
    from tests.kits.tablekit import make_table, play_one, seat_players

    dead = open_store(url, str(folder / "dead.db"))
    assert isinstance(dead, PostgresStore) and dead.directory is not None
    dead.directory.publish("ws://dead:1", {}, (), fresh=True)  # its lease, as it starts
    for n in range(tables):
        table = make_table(time.monotonic, store=dead, table_id=f"r{n}")  # type: ignore[arg-type]
        seat_players(table)
        table.start_if_full()
        for _ in range(moves):
            assert table.game is not None
            if table.game.over:
                break
            play_one(table)
    dead.close()  # as a kill -9 leaves it: its lease there, its lock gone
    live = open_store(url, str(folder / "live.db"))
    assert live.directory is not None
    started = time.perf_counter()
    records = live.directory.take()
    thread = time.perf_counter() - started
    assert len(records) == tables, len(records)
    lobby = Lobby(live.tables, live.outcomes, Settings(), changed=lambda table: None)
    started = time.perf_counter()
    lobby.adopt(records)
    loop = time.perf_counter() - started
    live.close()
    return thread, loop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--tables", type=int, default=3, help="at the process killed")
    parser.add_argument("--url", help="a PostgreSQL server to use (default: our own)")
    parser.add_argument("--replayed", type=int, default=200, help="tables taken at once")
    parser.add_argument("--moves", type=int, default=60, help="of each game replayed")
    args = parser.parse_args()
    cluster = None
    if args.url is None:
        reason = missing()
        if reason is not None:
            raise SystemExit(f"no PostgreSQL to measure: {reason}")
        cluster = Cluster.started(durable=True)
    print(f"{args.runs} runs: 3 processes, {args.tables} tables at the one killed -9 mid-game")
    times, lost_all, told_all = [], 0, 0
    try:
        for n in range(args.runs):
            url = args.url if cluster is None else cluster.new_database()
            with tempfile.TemporaryDirectory() as folder:
                took, lost, acknowledged = asyncio.run(one_run(url, Path(folder), args.tables))
            times.append(took)
            lost_all += lost
            told_all += acknowledged
            print(f"run {n + 1:2}: takeover {took:5.2f} s, {lost} of {acknowledged} lost")
        print(
            "takeover (kill to playable at the new process): median"
            f" {statistics.median(times):.2f} s, max {max(times):.2f} s;"
            f" acknowledged events lost: {lost_all} of {told_all}"
        )
        url = args.url if cluster is None else cluster.new_database()
        with tempfile.TemporaryDirectory() as folder:
            thread, loop = loop_cost(url, Path(folder), args.replayed, args.moves)
        print(
            f"{args.replayed} tables of up to {args.moves} moves taken at once: {thread:.3f} s"
            f" in a thread, {loop:.3f} s on the loop ({loop / args.replayed * 1e3:.2f} ms a table)"
        )
    finally:
        if cluster is not None:
            cluster.remove()


if __name__ == "__main__":
    main()
