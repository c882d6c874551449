"""Server load over loopback (issue 3 targets), printed as figures, never asserted.

    .venv/bin/python bench/server_load.py [--tables 1,50,200] [--moves 40] [--think 0.5]
        [--before DIR]

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
  frame of the same size as a typical `state`, as the baseline for the ratio;
- what held up the server's loop (its /healthz, issue 31 §6): its loop lag at worst, and its
  garbage collector's worst pause and full collections; and this process's own worst loop
  lag, since a pause of the load generator delays the moves it times as much as one of the
  server's (its collector is tuned as the server's is, once its clients are up).
`--before DIR` also runs a server from the source tree DIR (e.g. `git archive main`
unpacked) first, at each size, for before/after figures in one run.
Targets: 200 tables (800 connections) with 0 errors and p99 <= 50 ms; at 1 table, move
latency p50 <= 3x the bare echo p50. bench/processes.py plays the same seats on a host of
several game processes (they follow `elsewhere` to the process holding their table).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import site
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from protocol import requests as rq
from server.bots.registry import make_bot
from server.edge.config import ServerConfig
from server.edge.dispatch import COSTS
from server.edge.pauses import Pauses, tune_collector
from server.game import Card, Deck, View

HOST = "127.0.0.1"
# The creates one connection may send at once (its budget of dear requests): 50 tables from
# one host waited 7 s on its rate limit, an idle server's CPU counted as the load's.
CREATES_AT_ONCE = int(ServerConfig().costly_burst // COSTS[rq.Create])


@dataclass
class Run:
    sent: dict[tuple[str, int], float] = field(default_factory=dict)  # (table, seq) -> t0
    seen: dict[tuple[str, int], int] = field(default_factory=dict)  # viewers that got it
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    frame_sizes: list[int] = field(default_factory=list)
    followed: int = 0  # seats sent on to the process holding their table (`elsewhere`)
    seats: int = 0  # seats still to join
    on_joined: Callable[[], None] | None = None  # called once every seat has joined
    moves_joined: int = 0  # moves made by then

    def joined(self) -> None:
        """One more seat has joined its table."""
        self.seats -= 1
        if self.seats == 0:
            self.moves_joined = self.moves
            if self.on_joined is not None:
                self.on_joined()

    def figures(self, elapsed: float) -> dict[str, float]:
        """What the clients saw over `elapsed` seconds of play."""
        ordered = sorted(self.latencies)
        return {
            "moves_per_s": self.moves / elapsed,
            # none measured when a seat could not connect (every seat's wait is then broken)
            "p50_ms": statistics.median(ordered) * 1000 if ordered else float("nan"),
            "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000
            if ordered
            else float("nan"),
            "errors": self.errors,
            "frame_bytes": statistics.median(self.frame_sizes) if self.frame_sizes else 0,
            "measured": len(ordered),
        }


SERVE = "import sys; from gother_tui.cli import main; sys.exit(main())"
LISTENING = re.compile(r"listening on ws://[\d.]+:(\d+)")


def launch(
    log: IO[str], db: str, tree: str | None = None, options: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """`gother serve [options]` (from the source tree `tree`, else this one) on a free
    port; its log goes to a file, since a pipe nobody reads would fill up and block the
    server mid-benchmark. One host drives every table here, so the per-connection and
    per-address limits (loopback is capped too) are opened up to the load's size."""
    env, python = dict(os.environ), [sys.executable]
    if tree is not None:  # without site: this tree's editable install would come first
        env["PYTHONPATH"] = os.pathsep.join([tree, *site.getsitepackages()])
        python.append("-S")
    return subprocess.Popen(
        [
            *python,
            *("-c", SERVE, "serve"),
            *("--host", HOST, "--port", "0", "--db", db, "--bot-delay", "0"),
            *("--max-tables", "1000", "--max-connections", "5000"),
            *("--tables-per-connection", "1000", "--max-pending", "5000"),
            *("--max-per-address", "5000", "--pending-per-address", "5000"),
            *("--tables-per-address", "1000", "--seats-per-address", "20000"),
            *options,
        ],
        stderr=log,
        env=env,
        cwd=tree,  # `-c` puts the folder it runs in first on the path
    )


async def listening(log: IO[str], proc: subprocess.Popen[bytes], count: int = 1) -> list[int]:
    """The ports `proc` listens on once its log has said `count` of them (each of a host's
    processes says its own)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        ports = list(dict.fromkeys(int(port) for port in LISTENING.findall(log.read())))
        if len(ports) >= count:
            return ports
        await asyncio.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


async def start_server(
    log: IO[str], db: str, tree: str | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """`gother serve` (see launch) and the port it listens on."""
    proc = launch(log, db, tree)
    return proc, (await listening(log, proc))[0]


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


async def greeted(url: str, name: str) -> ClientConnection:
    """A connection to `url` that has said hello as `name`."""
    # a busy machine's connections take their time: a whole minute, if need be
    ws = await connect(url, max_size=MAX_FRAME, compression=None, open_timeout=60)
    await request(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": name})
    return ws


async def seat(
    url: str, table: str, name: str, run: Run, moves: int, think: float, seated: asyncio.Barrier
) -> None:
    try:
        ws = await greeted(url, name)
    except BaseException:
        await seated.abort()  # the other seats would wait for this one for ever
        raise
    try:
        if await seated.wait() == 0:  # every table full at once: the game starts with all
            tune_collector()  # connected; what they hold, out of this process's collector's way
        joined = await request(ws, {"t": "join", "table": table})
        if joined.get("code") == "elsewhere":  # another of the host's processes holds it:
            await ws.close()  # there, as our clients follow it (issue 34 §2)
            run.followed += 1
            ws = await greeted(joined["url"], name)
            joined = await request(ws, {"t": "join", "table": table})
    except BaseException:
        await ws.close()
        raise
    async with ws:
        if joined["t"] != "joined":
            run.errors += 1
            return
        run.joined()
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


async def load(tables: int, moves: int, think: float, tree: str | None = None) -> dict[str, float]:
    with (
        tempfile.NamedTemporaryFile("w+", prefix="gother-serve-", suffix=".log") as log,
        tempfile.TemporaryDirectory(prefix="gother-db-") as folder,
    ):
        db = os.path.join(folder, "games.db")
        return await load_logged(tables, moves, think, log, db, tree)


async def healthz(port: int) -> dict[str, Any]:
    """The server's figures (`GET /healthz`)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
    body = await reader.readexactly(int(head.split("content-length:")[1].split("\r\n")[0]))
    writer.close()
    return dict(json.loads(body))


async def load_logged(
    tables: int, moves: int, think: float, log: IO[str], db: str, tree: str | None = None
) -> dict[str, float]:
    proc, port = await start_server(log, db, tree)
    url = f"ws://{HOST}:{port}"
    try:
        user_before, system_before = cpu_times(proc.pid)
        ids = await create_tables([url], tables)
        run, elapsed, own = await play(url, ids, moves, think)
        figures = await healthz(port)
        memory = rss_mib(proc.pid)
        user, system = cpu_times(proc.pid)
        user, system = user - user_before, system - system_before
    finally:
        proc.terminate()
        proc.wait(10)
    return {
        **run.figures(elapsed),
        "rss_mib": memory,
        "cpu_us_per_move": (user + system) / max(1, run.moves) * 1e6,
        "user_us_per_move": user / max(1, run.moves) * 1e6,
        # a server from before issue 31 tells none of these
        "server_lag_ms": figures.get("loop_lag_worst_ms", float("nan")),
        "server_gc_ms": figures.get("gc_worst_ms", float("nan")),
        "server_gc_full": figures.get("gc_full", -1),
        "bench_lag_ms": own.lag.seconds * 1000,
        "bench_gc_ms": own.collections.seconds * 1000,
    }


async def create_tables(urls: list[str], count: int) -> list[str]:
    """`count` tables of four made by hosts connected to each of `urls` in turn: a table
    lives in the process it was made at. A host makes a burst of creates at most (its
    budget of dear requests), then another takes over, so no create waits on a limit."""
    ids = []
    hosts: dict[str, tuple[ClientConnection, int]] = {}  # a url's host and its creates
    for i in range(count):
        url = urls[i % len(urls)]
        host, made = hosts.get(url, (None, 0))
        if host is None or made == CREATES_AT_ONCE:
            if host is not None:
                await host.close()
            host, made = await greeted(url, f"host{i}"), 0
        table = await request(host, {"t": "create", "name": f"T{i}", "seats": 4, "bots": 0})
        ids.append(table["table"])
        hosts[url] = host, made + 1
    for host, _ in hosts.values():
        await host.close()
    return ids


async def play(
    url: str,
    ids: list[str],
    moves: int,
    think: float,
    on_joined: Callable[[], None] | None = None,
) -> tuple[Run, float, Pauses]:
    """Four seats at each of the tables `ids`, every one connecting to `url`, playing until
    each table has made `moves` moves (`on_joined` called once every seat has joined): what
    they saw, the seconds it took, and this process's own pauses meanwhile."""
    run = Run(seats=len(ids) * 4, on_joined=on_joined)
    seated = asyncio.Barrier(len(ids) * 4)
    own = Pauses()  # this process's loop, from the first seat's connection
    watching = own.start()
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
    watching.cancel()
    gc.unfreeze()
    run.errors += sum(isinstance(r, BaseException) for r in results)
    return run, elapsed, own


async def echo_round_trip(size: int, samples: int = 2000) -> float:
    """p50 seconds for a frame of `size` bytes to go to a bare echo server and back."""

    async def echo(ws: ServerConnection) -> None:
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
    parser.add_argument("--before", metavar="DIR", help="also a server from this source tree")
    args = parser.parse_args()
    baseline_size = 0
    print(
        f"{'server':>6} {'tables':>6} {'conns':>6} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>6} {'RSS MiB':>8} {'CPU µs/move':>11} {'measured':>8} "
        f"{'lag ms':>7} {'GC ms':>6} {'full':>4} {'bench lag/GC ms':>15}"
    )
    one_table_p50 = None
    runs = [("before", args.before)] if args.before else []
    for tables in (int(t) for t in args.tables.split(",")):
        think = 0.0 if tables == 1 else args.think  # one table: latency alone, no waiting
        for label, tree in [*runs, ("now", None)]:
            f = asyncio.run(load(tables, args.moves, think, tree))
            baseline_size = baseline_size or int(f["frame_bytes"])
            if tables == 1 and tree is None:
                one_table_p50 = f["p50_ms"]
            print(
                f"{label:>6} {tables:>6} {tables * 4:>6} {f['moves_per_s']:>9.1f} "
                f"{f['p50_ms']:>8.2f} {f['p99_ms']:>8.2f} {f['errors']:>6} "
                f"{f['rss_mib']:>8.1f} {f['cpu_us_per_move']:>11.0f} {f['measured']:>8} "
                f"{f['server_lag_ms']:>7.0f} {f['server_gc_ms']:>6.0f} {f['server_gc_full']:>4} "
                f"{f['bench_lag_ms']:>7.0f}/{f['bench_gc_ms']:<7.0f}",
                flush=True,
            )
    echo = asyncio.run(echo_round_trip(baseline_size)) * 1000
    print(f"bare websockets echo p50 ({baseline_size} B frames): {echo:.3f} ms")
    if one_table_p50 is not None:
        print(f"1-table move latency p50 / echo p50: {one_table_p50 / echo:.2f}  (target <= 3)")


if __name__ == "__main__":
    main()
