"""Honest latency under a flood of `record` requests (issue 18, item 6), printed, never asserted.

    nice -n 10 .venv/bin/python bench/records_flood.py [--games 24] [--seconds 6]

A server in its own process on a database of finished games. An honest client sends a cheap
request (`leave` at no table: an `error` reply) every 20 ms and times each answer; meanwhile
`--flooders` connections ask for the records of every game in turn, as fast as answered
(each within its own budget of dear requests, as any connection).
The records' cache is cut to 4 so that the flood asks for more records than are kept (the
case of the issue). Four runs: no flood; a flood with the bounds as shipped (the server's
share of time for builds, the charge to the asker); a flood with the bounds off (share and
charge unlimited, as before issue 18); and, as a yardstick, a flood of cheap requests as
fast (what any flood costs, records or not). Prints p50/p95/max of the honest answers and
how many records and refusals the flood got.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.kits.netkit import Client  # noqa: E402
from tests.kits.tablekit import finished_games  # noqa: E402


def serve(db: str, bounds: bool, ports: multiprocessing.Queue[int]) -> None:
    """The server's process: the cache cut to 4 records; bounds as shipped, or none."""
    from server.edge.app import GotherServer
    from server.edge.config import ServerConfig
    from server.tables import records

    records.KEPT_BYTES = 4 * 200_000
    config = ServerConfig(host="127.0.0.1", port=0, db=db, bot_delay=0.0)
    if not bounds:
        records.BUILD_COST = 0.0
        config.record_share = config.record_burst = 1e9

    async def main() -> None:
        server = GotherServer(config)
        await server.start()
        ports.put(server.port)
        await asyncio.Event().wait()

    asyncio.run(main())


async def honest(url: str, seconds: float) -> list[float]:
    client = await Client.connect(url, "Honest")
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        started = time.perf_counter()
        reply = await client.request("leave")
        assert reply["t"] == "error", reply
        times.append(time.perf_counter() - started)
        await asyncio.sleep(0.02)  # a player's pace, not synchronisation
    await client.close()
    return times


async def flood(url: str, tables: list[str], stop: asyncio.Event, tally: dict[str, int]) -> None:
    """Records of every game in turn; with no tables, cheap requests as fast (a yardstick)."""
    client = await Client.connect(url, "Flood")
    i = 0
    while not stop.is_set():
        if tables:
            reply = await client.request("record", table=tables[i % len(tables)])
        else:
            reply = await client.request("leave")
        tally[reply["t"]] = tally.get(reply["t"], 0) + 1
        i += 1
    await client.close()


async def measure(url: str, tables: list[str], flooders: int, seconds: float) -> str:
    stop = asyncio.Event()
    tally: dict[str, int] = {}
    floods = [
        asyncio.create_task(flood(url, tables[k:] + tables[:k], stop, tally))
        for k in range(flooders)
    ]
    times = await honest(url, seconds)
    stop.set()
    await asyncio.gather(*floods)
    ms = sorted(t * 1000 for t in times)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    return (
        f"honest p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"
        f" ({len(ms)} answers); flood: {tally.get('record', 0)} records,"
        f" {tally.get('error', 0)} refusals"
    )


def run(db: str, tables: list[str], bounds: bool, flooders: int, seconds: float) -> str:
    ports: multiprocessing.Queue[int] = multiprocessing.Queue()
    child = multiprocessing.Process(target=serve, args=(db, bounds, ports), daemon=True)
    child.start()
    try:
        url = f"ws://127.0.0.1:{ports.get(timeout=30)}"
        return asyncio.run(measure(url, tables, flooders, seconds))
    finally:
        child.terminate()
        child.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--flooders", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "games.db")
        tables = finished_games(Path(db), args.games)
        print(f"{args.games} finished games, {args.flooders} flooders, {args.seconds:g} s each")
        print("no flood:          ", run(db, tables, True, 0, args.seconds))
        print("cheap flood:       ", run(db, [], True, args.flooders, args.seconds))
        print("flood, bounds on:  ", run(db, tables, True, args.flooders, args.seconds))
        print("flood, bounds off: ", run(db, tables, False, args.flooders, args.seconds))


if __name__ == "__main__":
    main()
