"""A host's capacity over 1, 2 and 3 game processes (issue 34 §4), printed, never asserted.

    .venv/bin/python bench/processes.py [--tables 200] [--moves 40] [--think 0.5]
        [--processes 1,2,3] [--pin] [--floor N]

A PostgreSQL of its own (tests/kits/pgkit.py's, fsync on as a host runs it) on 127.0.0.1 in
a temporary folder. First the plain single process, `gother serve --db FILE` with SQLite, as
the baseline; then, for each N, `gother serve --processes N --db postgresql://…` (a database
of its own each time), every process on a port of its own. The same load each time, as
bench/server_load.py plays it (its seats, its figures): `--tables` tables of four, made in
turn at each process by dialling its port (a table lives where it was made), then every seat
connects to the host's address (the first process's port), asks to join and follows the
`elsewhere` answer to the process holding its table, as our clients do, and plays at a human
pace (`--think` seconds a decision) until its table has made `--moves` moves.

Printed for each: tables, players, moves/s, move latency p50/p99 (from a move sent to the
last of its table's four viewers having the new state), errors, seats sent on; the CPU
(user + system, from /proc) of all the host's processes (the parent, every game process,
their search workers) in play, from the moment every seat has joined to the end, divided by
the moves made meanwhile, and its ratio to the single process's measured in the same run;
the same over the whole run (every connection, hello and join counted in: a seat sent on
says hello twice); how often a move in play the host's processes slept waiting for work
(their main threads' voluntary context switches); PostgreSQL's CPU a move in play apart
(the postmaster and every backend); the game processes' worst loop lag (their /healthz) and
their RSS added up. Then where the time went in play, a move, for the host's threads and
the load generator's apart (from /proc/PID/task/*: stat, status, sched, schedstat): CPU in
user space and in the kernel, sleeps (voluntary context switches), preemptions (involuntary
ones), moves to another core, and the time spent runnable waiting for a core. `--pin` keeps
each game process to a core of its own (process K to core K modulo the cores, every thread),
as `taskset` or systemd's CPUAffinity= would; the load generator and PostgreSQL float.
`--floor N`: then, N rounds, the floor of bench/bgio/floor.py (a bare websockets server, no
game: the library, the loop and the kernel alone) split over 1 process and each count, the
same tables at the same pace, frames of the size the game sent: what splitting costs a
server with no code of ours.
Targets: p99 <= 50 ms; CPU a move within 10 % of the single process's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "bgio"))  # the floor
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import floor as bare
from server_load import (
    HOST,
    create_tables,
    greeted,
    healthz,
    launch,
    listening,
    play,
    request,
    rss_mib,
)

from tests.kits.pgkit import Cluster, missing


def tree(pid: int) -> list[int]:
    """`pid` and all its descendants."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [pid], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) `pid` and all its descendants have used, those that
    ended too (a parent that waited for a child holds its time)."""
    total = 0
    for each in tree(pid):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / os.sysconf("SC_CLK_TCK")


def waits(pid: int) -> int:
    """The times the main threads of `pid` and its live descendants have slept (their
    voluntary context switches): a game process's loop sleeps once a turn when idle."""
    total = 0
    for each in tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(status.split("voluntary_ctxt_switches:")[1].split()[0])
    return total


WHERE = ("user", "system", "sleeps", "preempted", "migrations", "queued")


def where(pids: list[int]) -> list[float]:
    """Where the live threads of `pids` spent their time, each a running total: CPU in user
    space and in the kernel (seconds), how often they slept waiting for work (voluntary
    context switches) and were taken off a core for another (involuntary ones), how often
    they moved to another core, and the seconds they waited, runnable, for a core."""
    total = [0.0] * len(WHERE)
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            threads = list(Path(f"/proc/{pid}/task").iterdir())
        except (FileNotFoundError, ProcessLookupError):
            continue
        for task in threads:
            try:
                stat = (task / "stat").read_text().rsplit(")", 1)[1].split()
                status = (task / "status").read_text()
                sched = (task / "sched").read_text()
                queued = int((task / "schedstat").read_text().split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            total[0] += int(stat[11]) / tick
            total[1] += int(stat[12]) / tick
            total[2] += int(status.split("voluntary_ctxt_switches:")[1].split()[0])
            total[3] += int(status.split("nonvoluntary_ctxt_switches:")[1].split()[0])
            total[4] += int(sched.split("se.nr_migrations")[1].split(":")[1].split()[0])
            total[5] += queued / 1e9
    return total


def pinned(pid: int, core: int) -> None:
    """Every thread of `pid` kept to `core`, as `taskset` or systemd's CPUAffinity= would."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), {core})


def postmaster(cluster: Cluster) -> int:
    return int((cluster.data / "postmaster.pid").read_text().split()[0])


async def hosted(
    tables: int, moves: int, think: float, db: str, processes: int, log: IO[str],
    cluster: Cluster | None, pin: bool = False,
) -> dict[str, float]:  # fmt: skip
    """The load on a host of `processes` game processes sharing `db` (one process, without
    `--processes`, when 1): its figures."""
    folder = tempfile.TemporaryDirectory(prefix="gother-host-")
    options: tuple[str, ...] = ()
    if cluster:
        options += ("--table-log", os.path.join(folder.name, "table-log.db"))
    if processes > 1:
        options += ("--processes", str(processes))
    proc = launch(log, db, options=options)
    try:
        ports = await listening(log, proc, processes)
        urls = [f"ws://{HOST}:{port}" for port in ports]
        pg = postmaster(cluster) if cluster else None
        game = tree(proc.pid)[1 : 1 + processes] if processes > 1 else [proc.pid]
        if pin:
            for k, pid in enumerate(game):
                pinned(pid, k % len(os.sched_getaffinity(0)))
        ids = await create_tables(urls, tables)
        await listed(urls[0], tables)
        joined: list[float] = []  # measure() once every seat joined

        def measure() -> list[float]:
            host = [cpu_seconds(proc.pid), cpu_seconds(pg) if pg else 0.0, waits(proc.pid)]
            return host + where(tree(proc.pid)) + where([os.getpid()])

        begun = measure()
        run, elapsed, own = await play(urls[0], ids, moves, think, lambda: joined.extend(measure()))
        ended = measure()
        joined = joined or begun  # a seat that could not join: the errors say so
        health = [await healthz(port) for port in ports]
        memory = sum(rss_mib(pid) for pid in game)
    finally:
        proc.terminate()
        proc.wait(60)
        folder.cleanup()
    played = run.moves - run.moves_joined
    return {
        **run.figures(elapsed),
        "tables": tables,
        "followed": run.followed,
        # in play: from the moment every seat joined, the moves made since
        "cpu_us_per_move": (ended[0] - joined[0]) / max(1, played) * 1e6,
        "pg_us_per_move": (ended[1] - joined[1]) / max(1, played) * 1e6,
        "waits_per_move": (ended[2] - joined[2]) / max(1, played),
        # the whole run: every connection, hello, join and move
        "run_us_per_move": (ended[0] - begun[0]) / max(1, run.moves) * 1e6,
        # where the host's CPU and time went in play, a move; then the load generator's
        **{
            f"{who}{name}": (ended[k] - joined[k]) / max(1, played)
            for who, first in (("", 3), ("bench ", 3 + len(WHERE)))
            for k, name in enumerate(WHERE, first)
        },
        "rss_mib": memory,
        "server_lag_ms": max(h.get("loop_lag_worst_ms", float("nan")) for h in health),
        "bench_lag_ms": own.lag.seconds * 1000,
    }


async def listed(url: str, tables: int) -> None:
    """Wait until `list` at `url` shows all `tables` (the others' rows reach it within a
    renewal of their lease)."""
    ws = await greeted(url, "lobby")
    async with ws:
        for _ in range(600):
            page = await request(ws, {"t": "list"})
            if page.get("total", 0) >= tables:
                return
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{url} listed {page.get('total')} tables of {tables}")


def breakdown(rows: list[tuple[str, int, dict[str, float]]]) -> None:
    """Where each host's time went in play, a move: its CPU in user space and in the kernel,
    its threads' sleeps, preemptions, moves between cores and time waiting for a core; the
    load generator's the same."""
    print("\nin play, a move: the host's threads | the load generator's")
    heads = ("user µs", "sys µs", "sleeps", "preempted", "migrated", "queued µs")
    print(f"{'procs':>5} {'db':>10} " + " ".join(f"{h:>9}" for h in heads * 2))
    for kind, processes, f in rows:
        cells = []
        for who in ("", "bench "):
            for name, scale in zip(WHERE, (1e6, 1e6, 1, 1, 1, 1e6), strict=True):
                value = f[who + name] * scale
                cells.append(f"{value:>9.0f}" if scale > 1 else f"{value:>9.2f}")
        print(f"{processes:>5} {kind:>10} " + " ".join(cells), flush=True)


async def floor_split(tables: int, moves: int, think: float, size: int, processes: int) -> float:
    """The floor (bench/bgio/floor.py: a bare websockets server writing a prebuilt frame of
    `size` bytes to a table's four connections a move, no game) split over `processes`
    processes, table T at process T modulo them, under the same load: its CPU a move, in
    microseconds, over every move."""
    servers = [
        subprocess.Popen([sys.executable, bare.__file__, str(size)], stdout=subprocess.PIPE)
        for _ in range(processes)
    ]
    try:
        ports = [int(server.stdout.readline()) for server in servers if server.stdout]
        before = sum(cpu_seconds(server.pid) for server in servers)
        await asyncio.gather(
            *(
                bare.player(f"ws://{HOST}:{ports[t % processes]}/{t}", seat, moves, think)
                for t in range(tables)
                for seat in range(4)
            )
        )
        spent = sum(cpu_seconds(server.pid) for server in servers) - before
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)
    return spent / (tables * moves) * 1e6


def floors(args: argparse.Namespace, size: int) -> None:
    """The floor over 1 process and over each count of --processes, in turn, --floor times:
    what splitting the same load costs a bare server, no game code at all."""
    print(f"\nthe floor ({size}-byte frames), CPU a move: 1 process, then each count")
    counts = [int(n) for n in args.processes.split(",") if int(n) > 1]
    for _ in range(args.floor):
        one = asyncio.run(floor_split(args.tables, args.moves, args.think, size, 1))
        cells = [f"1: {one:.0f} µs"]
        for n in counts:
            split = asyncio.run(floor_split(args.tables, args.moves, args.think, size, n))
            cells.append(f"{n}: {split:.0f} µs ({split / one:.2f}x)")
        print("  ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200, help="tables in all, over the host")
    parser.add_argument("--moves", type=int, default=40, help="moves per table")
    parser.add_argument("--think", type=float, default=0.5, help="seconds per bot decision")
    parser.add_argument("--processes", default="1,2,3", help="game processes, each a run")
    parser.add_argument(
        "--pin", action="store_true", help="each game process kept to a core of its own"
    )
    parser.add_argument(
        "--floor", type=int, default=0, help="then the floor split the same ways, N rounds"
    )
    args = parser.parse_args()
    if reason := missing():
        sys.exit(f"no PostgreSQL here: {reason}")
    print(f"load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    print(
        f"{'db':>10} {'procs':>5} {'tables':>6} {'players':>7} {'moves/s':>8} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'errors':>6} {'sent on':>7} {'CPU µs/move':>11} {'x one':>5} "
        f"{'whole run':>9} {'sleeps':>6} "
        f"{'PG µs/move':>10} {'lag ms':>6} {'RSS MiB':>7}"
    )
    cluster = Cluster.started(durable=True)
    try:
        with tempfile.TemporaryDirectory(prefix="gother-db-") as folder:
            runs = [("sqlite", 1, os.path.join(folder, "games.db"))]
            runs += [("postgresql", int(n), "") for n in args.processes.split(",")]
            one, rows = None, []
            for kind, processes, db in runs:
                on = cluster if kind == "postgresql" else None
                with open(os.path.join(folder, f"serve-{kind}-{processes}.log"), "w+") as log:
                    f = asyncio.run(
                        hosted(args.tables, args.moves, args.think,
                               db or cluster.new_database(), processes, log, on, args.pin)
                    )  # fmt: skip
                if one is None:  # the first run, SQLite's: every run's baseline
                    one = f["cpu_us_per_move"]
                # a baseline too short for a clock tick (10 ms) of CPU gives no ratio to show
                times = f"{f['cpu_us_per_move'] / one:>5.2f}" if one else f"{'-':>5}"
                print(
                    f"{kind:>10} {processes:>5} {args.tables:>6} {args.tables * 4:>7} "
                    f"{f['moves_per_s']:>8.1f} {f['p50_ms']:>7.2f} {f['p99_ms']:>7.2f} "
                    f"{f['errors']:>6} {f['followed']:>7} {f['cpu_us_per_move']:>11.0f} "
                    f"{times} {f['run_us_per_move']:>9.0f} "
                    f"{f['waits_per_move']:>6.2f} "
                    f"{f['pg_us_per_move']:>10.0f} "
                    f"{f['server_lag_ms']:>6.0f} {f['rss_mib']:>7.1f}",
                    flush=True,
                )
                rows.append((kind, processes, f))
            breakdown(rows)
            if args.floor:
                floors(args, int(rows[0][2]["frame_bytes"]) or 1700)
    finally:
        cluster.remove()
    print(f"load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


if __name__ == "__main__":
    main()
