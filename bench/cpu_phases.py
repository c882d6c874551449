"""Where a load's server CPU goes, phase by phase (issue 34 §5), as figures, never asserted.

    .venv/bin/python bench/cpu_phases.py [--tables 50] [--moves 40] [--think 0.5] [--before DIR]

The load of bench/server_load.py and bench/bgio/compare.py (TABLES tables of four clients
playing until `--moves`), its server's CPU (user + system, from /proc) read between the
phases: the tables created, the clients connected and said hello, seated (the last seat
deals), the moves, the connections closed. Each phase is printed in µs a move of the whole
load, as compare.py divides it: a table's first 40 moves are some 36 moves, nine a client,
so what a connection costs to come and go weighs on "a move" as much as a move does.
`--before DIR` runs a server from the source tree DIR first, then this one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from typing import Any

from server_load import CREATES_AT_ONCE, HOST, cpu_seconds, request, start_server
from websockets.asyncio.client import ClientConnection, connect

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from server.bots.registry import make_bot
from server.game import Card, Deck, View

IDLE = 2.0  # seconds for the server to settle (its search workers start) before the count


async def play(
    ws: ClientConnection, cards: list[dict[str, Any]], name: str, moves: int, think: float
) -> int:
    """One seat's moves until its game is over or past `moves`; returns how many it made."""
    deck = Deck.of("served", tuple(Card(**c) for c in cards))
    bot = make_bot("heuristic", deck, random.Random(name))
    made = 0
    async for frame in ws:
        message = decode(frame)  # type: ignore[arg-type]
        if message["t"] != "state":
            continue
        view = message["view"]
        if view["phase"] == "over" or message["seq"] > moves:
            return made
        if view["legal"] is not None:
            await asyncio.sleep(max(0.005, think * random.uniform(0.5, 1.5)))
            move = bot.choose(View.from_wire(view))
            await ws.send(encode({"t": "move", "move": move.to_wire()}))
            made += 1
    return made


async def phases(
    tables: int, moves: int, think: float, tree: str | None
) -> tuple[int, list[tuple[str, float, float]]]:
    """(moves made, [(phase, server CPU seconds, wall seconds)])."""
    with (
        tempfile.NamedTemporaryFile("w+", prefix="gother-serve-", suffix=".log") as log,
        tempfile.TemporaryDirectory(prefix="gother-db-") as folder,
    ):
        proc, port = await start_server(log, os.path.join(folder, "games.db"), tree)
        url = f"ws://{HOST}:{port}"
        marks: list[tuple[str, float, float]] = []

        def mark(phase: str) -> None:
            marks.append((phase, cpu_seconds(proc.pid), time.perf_counter()))

        try:
            await asyncio.sleep(IDLE)
            mark("start")
            ids = []
            create = {"t": "create", "name": "T", "seats": 4, "bots": 0}
            for first in range(0, tables, CREATES_AT_ONCE):  # as server_load.py: no waiting
                async with connect(url, max_size=MAX_FRAME) as host:
                    await request(host, {"t": "hello", "v": PROTOCOL_VERSION, "name": "host"})
                    for _ in range(first, min(tables, first + CREATES_AT_ONCE)):
                        ids.append((await request(host, create))["table"])
            mark("create tables")
            seats = []
            for table in ids:
                for seat in range(4):
                    ws = await connect(url, max_size=MAX_FRAME, compression=None)
                    name = f"{table}-{seat}"
                    await request(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": name})
                    seats.append((ws, table, name))
            mark("connect, hello")
            joined = [(await request(ws, {"t": "join", "table": t}))["cards"] for ws, t, _ in seats]
            mark("join, deal")
            made = await asyncio.gather(
                *(
                    play(ws, cards, name, moves, think)
                    for (ws, _, name), cards in zip(seats, joined, strict=True)
                )
            )
            mark("moves")
            await asyncio.gather(*(ws.close() for ws, _, _ in seats))
            await asyncio.sleep(1.0)  # the server's side of the closes
            mark("close")
        finally:
            proc.terminate()
            proc.wait(10)
    return sum(made), marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--moves", type=int, default=40, help="moves per table")
    parser.add_argument("--think", type=float, default=0.5, help="seconds per bot decision")
    parser.add_argument("--before", metavar="DIR", help="also a server from this source tree")
    args = parser.parse_args()
    runs = [("before", args.before)] if args.before else []
    for label, tree in [*runs, ("now", None)]:
        made, marks = asyncio.run(phases(args.tables, args.moves, args.think, tree))
        print(f"{label}: {args.tables} tables x 4 clients, {made} moves")
        for (phase, cpu, wall), (_, cpu_before, wall_before) in zip(marks[1:], marks, strict=False):
            spent = cpu - cpu_before
            print(
                f"  {phase:<16} {spent:6.2f} s CPU {spent / made * 1e6:6.0f} µs a move"
                f"  ({wall - wall_before:5.1f} s)"
            )
        total = marks[-1][1] - marks[0][1]
        print(f"  {'all':<16} {total:6.2f} s CPU {total / made * 1e6:6.0f} µs a move", flush=True)


if __name__ == "__main__":
    os.nice(10)  # a benchmark on a shared machine: others' tests come first
    main()
