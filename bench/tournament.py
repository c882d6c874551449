"""Pairing time of a tournament round (server/tournament/pairing.py). Figures, never asserted.

    .venv/bin/python bench/tournament.py [--players 100] [--rounds 7] [--seats 4] [--seed 1]

A field of `--players` is seated round after round in tables of `--seats`; between rounds
the standings are shuffled by a seeded RNG (results of random strength), so each round
pairs a new order against every table-mate met so far. Printed per round: the time to seat
it and how many repeated table-mates it has (0 wherever the search found none).

`--server` then seats a first round of `--players` on a real server (on 127.0.0.1, a
connection each, tables of `--seats`) while another table's player keeps asking, and
prints that player's round trips before, while and after the round is seated: the stall
every other table feels when a round is seated on the game's loop.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from ratings import Probe, a_move, milliseconds, newest_view
from websockets.asyncio.client import ClientConnection, connect

from protocol import MAX_FRAME, PROTOCOL_VERSION
from server.app import GotherServer, ServerConfig
from server.tournament.pairing import met_pairs, seat_round

LEAVE = "bench-leave"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server", action="store_true", help="also seat round 1 on a server")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ranked = list(range(args.players))
    past: list[tuple[int, ...]] = []
    print(f"{args.players} players, tables of {args.seats}, {args.rounds} rounds")
    for round_no in range(1, args.rounds + 1):
        met = met_pairs(past)
        began = time.perf_counter()
        seating = seat_round(ranked, args.seats, met)
        took = time.perf_counter() - began
        print(
            f"round {round_no}: {len(seating.tables)} tables seated in {took * 1000:.1f} ms,"
            f" {seating.repeats} repeated table-mates"
        )
        past += seating.tables
        # a new order: neighbours in the standings move a few places
        moved = {p: i + rng.gauss(0, 10) for i, p in enumerate(ranked)}
        ranked.sort(key=moved.__getitem__)
    if args.server:
        asyncio.run(other_table_while_seating(args.players, args.seats))


def serve(db: str, pipe: Connection) -> None:
    """The server, in a process of its own (the bench's hundred clients would otherwise
    share its loop): sends its port, then runs until the pipe says stop."""

    async def run() -> None:
        config = ServerConfig(
            host="127.0.0.1",
            port=0,
            db=db,
            bot_delay=0.0,
            announce=False,
            tournament_password=LEAVE,
            max_tables=1000,
        )
        server = GotherServer(config)
        await server.start()
        pipe.send(server.port)
        await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
        await server.close()

    asyncio.run(run())


async def other_table_while_seating(players: int, seats: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ours, theirs = multiprocessing.get_context("spawn").Pipe()
        process = multiprocessing.get_context("spawn").Process(
            target=serve, args=(str(Path(folder) / "games.db"), theirs)
        )
        process.start()
        url = f"ws://127.0.0.1:{ours.recv()}"
        field: list[ClientConnection] = []
        try:
            host = Probe(await connect(url, max_size=MAX_FRAME, compression=None))
            await host.ask("hello", v=PROTOCOL_VERSION, name="Host")
            made, _ = await host.ask(
                "tournament_create", name="Bench", rounds=1, seats=seats, password=LEAVE
            )
            for n in range(players):
                ws = await connect(url, max_size=MAX_FRAME, compression=None)
                player = Probe(ws)
                await player.ask("hello", v=PROTOCOL_VERSION, name=f"Player {n}")
                await player.ask("tournament_join", tournament=made["id"])
                field.append(ws)
            times: list[tuple[float, float]] = []  # (when it was asked, round trip)
            stop = asyncio.Event()
            other = asyncio.create_task(keep_asking(url, times, stop))
            while len(times) < 100:  # a baseline first
                await asyncio.sleep(0.01)  # a bench, not a test: only pacing the look
            began = time.perf_counter()
            started, took = await host.ask("tournament_start", tournament=made["id"])
            ended = time.perf_counter()
            seen = len(times)
            while len(times) < seen + 100:
                await asyncio.sleep(0.01)
            stop.set()
            await other
        finally:
            for ws in field:
                await ws.close()
            ours.send("stop")
            process.join()
    assert started["t"] == "tournament", started
    before = [t for at, t in times if at + t < began]
    during = [t for at, t in times if at < ended and at + t > began]
    after = [t for at, t in times if at > ended]
    print(
        f"server: round 1 of {players} players at {len(started['tables'])} tables seated and "
        f"answered in {took * 1e3:.0f} ms"
    )
    print(f"  another table before: {milliseconds(before)}")
    print(f"  while it was seated:  {milliseconds(during)}")
    print(f"  after:                {milliseconds(after)}")


async def keep_asking(url: str, times: list[tuple[float, float]], stop: asyncio.Event) -> None:
    """A player at a table of their own with two bots, moving or listing without a pause."""
    async with connect(url, max_size=MAX_FRAME, compression=None) as ws:
        probe = Probe(ws)
        await probe.ask("hello", v=PROTOCOL_VERSION, name="Other")
        table = (await probe.ask("create", name="Other", seats=3, bots=2))[0]["table"]
        await probe.ask("join", table=table, seat=0)
        view = None
        while not stop.is_set():
            at = time.perf_counter()
            if view is None or view["legal"] is None:
                reply, took = await probe.ask("list")
            else:
                reply, took = await probe.ask("move", move=a_move(view["legal"]))
            times.append((at, took))
            view = reply["view"] if reply["t"] == "state" else await newest_view(ws, view)
            if view is not None and view["phase"] == "over":
                await probe.ask("rematch")
                view = None


if __name__ == "__main__":
    main()
