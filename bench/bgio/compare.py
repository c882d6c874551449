"""Our server beside boardgame.io 0.50.2 under one load shape, in one run (issue 13).

    .venv/bin/python bench/bgio/compare.py [--tables 50] [--moves 40] [--think 0.5]
        [--floor-only] [--runs 1] [--before DIR]

Both servers get TABLES tables of 4 seats, each seat a client of its own over loopback,
each seat moving `--think` seconds (x0.5-1.5) after its turn begins, until every table has
made `--moves` moves; every move is fanned out to the table's 4 clients with each seat's
secrets stripped. Ours is `gother serve` with its database on a file, driven by
bench/server_load.py; theirs is bench/bgio/server.js (boardgame.io's own server, its
FlatFile storage on: persistence on for both) playing bench/bgio/game.js, a game of the same
shape (55 cards, hands and the draw pile secret), driven by bench/bgio/driver.js.
Printed: each server's CPU time (user + system, read from /proc) per move over the load,
and the ratio ours / theirs. Goal: <= 0.15 (issue 17). npm installs boardgame.io here when missing.
Beside them, the floor (bench/bgio/floor.py): a bare `websockets` server writing a frame of
our state's size to each seat per move, no game at all; what any Python server of this
shape spends before its own code, and so the least ratio one could reach.
`--floor-only` runs ours and the floor alone (no node needed), ratio ours / floor (issue 34
§5's goal: <= 1.5); `--runs N` repeats the whole set N times in turn and prints the medians;
`--before DIR` also runs our server from the source tree DIR (e.g. `git worktree add DIR
main`) first in each set, so a change is measured beside its floor in the same sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # bench/ for server_load

from floor import floor  # noqa: E402
from server_load import cpu_seconds, load, rss_mib  # noqa: E402


def ensure_installed() -> None:
    if not (HERE / "node_modules" / "boardgame.io").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)


def free_port_pair() -> int:
    """A port P with P + 1 free too (boardgame.io's lobby API listens on the next one)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue


def theirs(tables: int, moves: int, think: float, flat_file: bool) -> dict[str, float]:
    port = free_port_pair()
    with tempfile.TemporaryDirectory(prefix="bgio-db-") as db, tempfile.TemporaryFile("w+") as log:
        storage = [db] if flat_file else []
        server = subprocess.Popen(["node", "server.js", str(port), *storage], cwd=HERE, stdout=log)
        try:
            deadline = time.monotonic() + 30
            while log.seek(0) or "listening" not in log.read():
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the boardgame.io server did not start")
                time.sleep(0.05)
            cpu_before = cpu_seconds(server.pid)
            done = subprocess.run(
                ["node", "driver.js", str(port), str(tables), str(moves), str(think)],
                cwd=HERE,
                capture_output=True,
                text=True,
                timeout=600,
                check=True,
            )
            cpu = cpu_seconds(server.pid) - cpu_before
            memory = rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(10)
    tally = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "moves": tally["moves"],
        "errors": tally["errors"],
        "cpu_us_per_move": cpu / max(1, tally["moves"]) * 1e6,
        "rss_mib": memory,
    }


def one_run(args: argparse.Namespace) -> dict[str, float]:
    """One set, in turn: ours, boardgame.io in memory and with FlatFile (unless
    `--floor-only`), the floor; printed, and CPU µs a move returned by name."""
    rows = []
    if args.before:
        rows.append(
            ("gother before", asyncio.run(load(args.tables, args.moves, args.think, args.before)))
        )
    ours = asyncio.run(load(args.tables, args.moves, args.think))
    rows.append(("gother (SQLite file)", ours))
    others = len(rows)  # boardgame.io's rows follow ours
    if not args.floor_only:
        for name, flat_file in (("in memory", False), ("FlatFile", True)):
            f = theirs(args.tables, args.moves, args.think, flat_file)
            rows.append((f"boardgame.io 0.50.2 ({name})", f))
    bare = asyncio.run(floor(args.tables, args.moves, args.think, int(ours["frame_bytes"])))
    print(f"{args.tables} tables x 4 clients, {args.moves} moves each, think {args.think} s")
    print(f"{'server':<34} {'CPU µs/move':>11} {'RSS MiB':>8} {'errors':>6}")
    for name, f in rows:
        print(f"{name:<34} {f['cpu_us_per_move']:>11.0f} {f['rss_mib']:>8.1f} {f['errors']:>6.0f}")
    print(f"{'floor: bare websockets fanout':<34} {bare['cpu_us_per_move']:>11.0f}")
    for name, f in rows[others:]:
        ratio = ours["cpu_us_per_move"] / f["cpu_us_per_move"]
        least = bare["cpu_us_per_move"] / f["cpu_us_per_move"]
        print(f"ratio ours / {name}: {ratio:.2f}  (goal <= 0.15; the floor's: {least:.2f})")
    if args.before:
        print(
            f"ratio before / floor: {rows[0][1]['cpu_us_per_move'] / bare['cpu_us_per_move']:.2f}"
        )
    print(f"ratio ours / floor: {ours['cpu_us_per_move'] / bare['cpu_us_per_move']:.2f}", end="")
    print("  (goal <= 1.5, issue 34 §5)", flush=True)
    return {name: f["cpu_us_per_move"] for name, f in [*rows, ("floor", bare)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--moves", type=int, default=40, help="moves per table")
    parser.add_argument("--think", type=float, default=0.5, help="seconds per decision")
    parser.add_argument("--floor-only", action="store_true", help="ours and the floor alone")
    parser.add_argument("--runs", type=int, default=1, help="sets run in turn (medians)")
    parser.add_argument("--before", metavar="DIR", help="also our server from this source tree")
    args = parser.parse_args()
    if not args.floor_only:
        ensure_installed()
    runs = [one_run(args) for _ in range(args.runs)]
    if args.runs > 1:
        print(f"medians of {args.runs} runs, CPU µs a move:")
        for name in runs[0]:
            print(f"  {name:<32} {statistics.median(r[name] for r in runs):>7.0f}")
        for label, name in (("before", "gother before"), ("ours", "gother (SQLite file)")):
            if name in runs[0]:
                ratios = [r[name] / r["floor"] for r in runs]
                shown = ", ".join(f"{r:.2f}" for r in ratios)
                print(f"  ratio {label} / floor: {shown}; median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    os.nice(10)  # a benchmark on a shared machine: others' tests come first
    main()
