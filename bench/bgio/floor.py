"""The floor under any Python game server of compare.py's load shape: a bare `websockets`
server that holds no game, stores nothing and builds nothing, and for every move it is sent
writes one prebuilt frame (the size of our typical `state`) to each of the table's four
connections. What it spends a move is what the library, the event loop and the kernel's
loopback cost before a line of game code runs (the system calls: one read, four writes).

    .venv/bin/python bench/bgio/floor.py SIZE      (serves; compare.py starts it)
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ for server_load

from server_load import HOST, cpu_seconds

MOVE = b"m" * 40  # about the size of an encoded `move` request


async def fanout(size: int) -> None:
    frame = bytes(size)
    tables: defaultdict[str, list[ServerConnection]] = defaultdict(list)

    async def seat(ws: ServerConnection) -> None:
        table = tables[ws.request.path if ws.request else "/"]
        table.append(ws)
        if len(table) == 4:  # the table is full: deal, so seat 0 moves
            for viewer in table:
                await viewer.send(b"dealt")
        async for _ in ws:
            for viewer in table:
                await viewer.send(frame)

    async with serve(seat, HOST, 0, compression=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().create_future()


async def player(url: str, seat: int, moves: int, think: float) -> None:
    """One of a table's four seats: seat 0 moves first once dealt, then each in turn."""
    async with connect(url, compression=None) as ws:
        await ws.recv()  # dealt
        if seat == 0:
            await asyncio.sleep(think)
            await ws.send(MOVE)
        seen = 0
        async for _ in ws:
            seen += 1
            if seen == moves:
                return
            if seen % 4 == seat:
                await asyncio.sleep(max(0.005, think * random.uniform(0.5, 1.5)))
                await ws.send(MOVE)


async def floor(tables: int, moves: int, think: float, size: int) -> dict[str, float]:
    """Server CPU a move for TABLES tables x 4 connections making MOVES moves each."""
    server = subprocess.Popen(
        [sys.executable, __file__, str(size)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        before = cpu_seconds(server.pid)
        await asyncio.gather(
            *(
                player(f"ws://{HOST}:{port}/{t}", s, moves, think)
                for t in range(tables)
                for s in range(4)
            )
        )
        cpu = cpu_seconds(server.pid) - before
    finally:
        server.terminate()
        server.wait(10)
    return {"moves": tables * moves, "cpu_us_per_move": cpu / (tables * moves) * 1e6}


if __name__ == "__main__":
    asyncio.run(fanout(int(sys.argv[1])))
