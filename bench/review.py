"""Review time for a whole 4-seat game (issue 22): every seat's review asked over a real
websocket, thought in the server's worker processes, cold and then kept. Printed, never
asserted.

    .venv/bin/python bench/review.py [--rounds 0] [--workers N]

A server runs in this process (its searches in worker processes of their own); four normal
bots play a game to the end (of at most `--rounds` rounds, H1; 0: no cap, a whole game);
then one connection asks the review of each seat in turn, cold, and all four again, kept.
Reported: the game's decisions, each seat's cold time, their sum, and the kept answers' p50.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol import PROTOCOL_VERSION, decode, encode
from server.edge.app import GotherServer
from server.edge.config import ServerConfig

RIDS = itertools.count(1)


async def request(ws: ClientConnection, t: str, **fields: Any) -> dict[str, Any]:
    rid = next(RIDS)
    await ws.send(encode({"t": t, "rid": rid, **fields}))
    while True:
        message = decode(await ws.recv())  # type: ignore[arg-type]
        if message.get("rid") == rid:
            return message


async def bench(rounds: int, workers: int | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        config = ServerConfig(port=0, db=f"{folder}/games.db", bot_delay=0.0)
        config.search_workers = workers
        server = GotherServer(config)
        await server.start()
        server.searches.spawn_all()
        try:
            url = f"ws://127.0.0.1:{server.port}"
            async with connect(url, max_size=None) as ws:
                await request(ws, "hello", v=PROTOCOL_VERSION, name="Bench")
                variants = {"round_cap": rounds} if rounds else {}
                created = await request(
                    ws, "create", name="Four", seats=4, bots=4, variants=variants
                )
                table = created["table"]
                await request(ws, "watch", table=table)
                while True:  # the bots play to the end
                    message = decode(await ws.recv())  # type: ignore[arg-type]
                    if message["t"] == "state" and message["view"]["phase"] == "over":
                        break
                _, moves = server.store.tables.game(table, 1)
                over = server.lobby.tables[table].game
                assert over is not None
                print(f"a 4-seat game of {over.round} rounds: {len(moves)} decisions")
                cold = []
                for seat in range(4):
                    started = time.perf_counter()
                    review = await request(ws, "review", table=table, seat=seat)
                    assert review["t"] == "review", review
                    cold.append(time.perf_counter() - started)
                    print(f"  seat {seat}: {len(review['moments'])} decisions, {cold[-1]:.2f} s")
                print(f"cold, the whole game: {sum(cold):.2f} s")
                kept = []
                for seat in range(4):
                    started = time.perf_counter()
                    await request(ws, "review", table=table, seat=seat)
                    kept.append(time.perf_counter() - started)
                print(f"kept: p50 {statistics.median(kept) * 1000:.1f} ms a seat")
        finally:
            await server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    asyncio.run(bench(args.rounds, args.workers))


if __name__ == "__main__":
    main()
