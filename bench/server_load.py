"""Server load over loopback (issue 3 targets), printed as figures, never asserted.

    .venv/bin/python bench/server_load.py [--tables 1,50,200] [--moves 40] [--think 0.5]

For each T: start `gother serve` as a subprocess (its own core), open T tables x 4 seats of
protocol bots in this process, and let each table play until it has made `--moves` moves
(bots "think" `--think` seconds per decision, a brisk human pace). Reported:
- moves per second over the whole run, and errors (any `error` frame, any lost connection);
- latency from sending a move to the moment the LAST of the table's four viewers has the
  resulting `state` (same clock, same process), p50 and p99;
- the server's resident memory (VmRSS) at the end, and its CPU time (user + system) per
  move over the whole load, tables created and games played, with persistence on (the
  server's database is a file, as a host runs it);
- in the same run, the p50 round trip of a bare `websockets` echo server on loopback with a
  frame of the same size as a typical `state`, as the baseline for the ratio.
Targets: 200 tables (800 connections) with 0 errors and p99 <= 50 ms; at 1 table, move
latency p50 <= 3x the bare echo p50.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import serve

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from server.bots.registry import make_bot
from server.game import Card, Deck, View

HOST = "127.0.0.1"


@dataclass
class Run:
    sent: dict[tuple[str, int], float] = field(default_factory=dict)  # (table, seq) -> t0
    seen: dict[tuple[str, int], int] = field(default_factory=dict)  # viewers that got it
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    frame_sizes: list[int] = field(default_factory=list)


async def start_server(log: IO[str], db: str) -> tuple[subprocess.Popen, int]:
    """`gother serve` on a free port; its log goes to a file, since a pipe nobody reads
    would fill up and block the server mid-benchmark. One host drives every table here, so
    the per-connection and per-address limits (loopback is capped too) are opened up to the
    load's size."""
    gother = os.path.join(os.path.dirname(sys.executable), "gother")
    proc = subprocess.Popen(
        [
            gother,
            "serve",
            *("--host", HOST, "--port", "0", "--db", db, "--bot-delay", "0"),
            *("--max-tables", "1000", "--max-connections", "5000"),
            *("--tables-per-connection", "1000", "--max-pending", "5000"),
            *("--max-per-address", "5000", "--pending-per-address", "5000"),
            *("--tables-per-address", "1000", "--seats-per-address", "20000"),
        ],
        stderr=log,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r"listening on ws://[\d.]+:(\d+)", log.read())
        if found:
            return proc, int(found.group(1))
        await asyncio.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU time the process has used so far, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    return sum(cpu_times(pid))


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send and return the reply, waiting out the server's rate limit like a client should."""
    while True:
        await ws.send(encode(message))
        reply = decode(await ws.recv())  # type: ignore[arg-type]
        if reply.get("code") != "rate_limited":
            return reply
        await asyncio.sleep(0.05)


async def seat(
    url: str, table: str, name: str, run: Run, moves: int, think: float, seated: asyncio.Barrier
) -> None:
    async with connect(url, max_size=MAX_FRAME, compression=None) as ws:
        await request(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": name})
        await seated.wait()  # every table full at once: the game starts with all connected
        joined = await request(ws, {"t": "join", "table": table})
        if joined["t"] != "joined":
            run.errors += 1
            return
        deck = Deck.of("served", tuple(Card(**c) for c in joined["cards"]))
        bot = make_bot("heuristic", deck, random.Random(hash(name)))
        async for frame in ws:
            message = decode(frame)  # type: ignore[arg-type]
            if message["t"] == "error":
                run.errors += 1
                continue
            if message["t"] != "state":
                continue
            key = (table, message["seq"])
            if key in run.sent:
                run.seen[key] += 1
                if run.seen[key] == 4:
                    run.latencies.append(time.perf_counter() - run.sent.pop(key))
                    run.frame_sizes.append(len(frame))
            view = message["view"]
            if view["phase"] == "over" or message["seq"] > moves:
                return
            if view["legal"] is not None:
                # at least a few ms, so the other seats read this state before the
                # mover's bot thinks in this same process and delays them
                await asyncio.sleep(max(0.005, think * random.uniform(0.5, 1.5)))
                move = bot.choose(View.from_wire(view))
                # the state this move causes has the next seq number
                run.sent[(table, message["seq"] + 1)] = time.perf_counter()
                run.seen[(table, message["seq"] + 1)] = 0
                run.moves += 1
                await ws.send(encode({"t": "move", "move": move.to_wire()}))


async def load(tables: int, moves: int, think: float) -> dict[str, float]:
    with (
        tempfile.NamedTemporaryFile("w+", prefix="gother-serve-", suffix=".log") as log,
        tempfile.TemporaryDirectory(prefix="gother-db-") as folder,
    ):
        return await load_logged(tables, moves, think, log, os.path.join(folder, "games.db"))


async def load_logged(
    tables: int, moves: int, think: float, log: IO[str], db: str
) -> dict[str, float]:
    proc, port = await start_server(log, db)
    url = f"ws://{HOST}:{port}"
    run = Run()
    try:
        user_before, system_before = cpu_times(proc.pid)
        async with connect(url, max_size=MAX_FRAME) as host:
            await request(host, {"t": "hello", "v": PROTOCOL_VERSION, "name": "host"})
            ids = [
                (await request(host, {"t": "create", "name": f"T{i}", "seats": 4, "bots": 0}))[
                    "table"
                ]
                for i in range(tables)
            ]
        seated = asyncio.Barrier(tables * 4)
        started = time.perf_counter()
        results = await asyncio.gather(
            *(
                seat(url, table, f"{table}-{s}", run, moves, think, seated)
                for table in ids
                for s in range(4)
            ),
            return_exceptions=True,
        )
        elapsed = time.perf_counter() - started
        run.errors += sum(isinstance(r, BaseException) for r in results)
        memory = rss_mib(proc.pid)
        user, system = cpu_times(proc.pid)
        user, system = user - user_before, system - system_before
    finally:
        proc.terminate()
        proc.wait(10)
    ordered = sorted(run.latencies)
    return {
        "moves_per_s": run.moves / elapsed,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000,
        "errors": run.errors,
        "rss_mib": memory,
        "cpu_us_per_move": (user + system) / max(1, run.moves) * 1e6,
        "user_us_per_move": user / max(1, run.moves) * 1e6,
        "frame_bytes": statistics.median(run.frame_sizes),
        "measured": len(ordered),
    }


async def echo_round_trip(size: int, samples: int = 2000) -> float:
    """p50 seconds for a frame of `size` bytes to go to a bare echo server and back."""

    async def echo(ws):
        async for message in ws:
            await ws.send(message)

    async with serve(echo, HOST, 0, compression=None, max_size=MAX_FRAME) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://{HOST}:{port}", compression=None) as ws:
            payload = os.urandom(size)
            times = []
            for _ in range(samples):
                t0 = time.perf_counter()
                await ws.send(payload)
                await ws.recv()
                times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", default="1,50,200")
    parser.add_argument("--moves", type=int, default=40, help="moves per table")
    parser.add_argument("--think", type=float, default=0.5, help="seconds per bot decision")
    args = parser.parse_args()
    baseline_size = 0
    print(
        f"{'tables':>6} {'conns':>6} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>6} {'RSS MiB':>8} {'CPU µs/move':>11} {'measured':>8}"
    )
    one_table_p50 = None
    for tables in (int(t) for t in args.tables.split(",")):
        think = 0.0 if tables == 1 else args.think  # one table: latency alone, no waiting
        figures = asyncio.run(load(tables, args.moves, think))
        baseline_size = baseline_size or int(figures["frame_bytes"])
        if tables == 1:
            one_table_p50 = figures["p50_ms"]
        print(
            f"{tables:>6} {tables * 4:>6} {figures['moves_per_s']:>9.1f} "
            f"{figures['p50_ms']:>8.2f} {figures['p99_ms']:>8.2f} {figures['errors']:>6} "
            f"{figures['rss_mib']:>8.1f} {figures['cpu_us_per_move']:>11.0f} "
            f"{figures['measured']:>8}"
        )
    echo = asyncio.run(echo_round_trip(baseline_size)) * 1000
    print(f"bare websockets echo p50 ({baseline_size} B frames): {echo:.3f} ms")
    if one_table_p50 is not None:
        print(f"1-table move latency p50 / echo p50: {one_table_p50 / echo:.2f}  (target <= 3)")


if __name__ == "__main__":
    main()
