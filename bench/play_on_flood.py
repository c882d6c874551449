"""An honest table's moves under a flood of `play_on` requests from many addresses (issue 31
§4), printed, never asserted.

    nice -n 10 .venv/bin/python bench/play_on_flood.py [--addresses 20] [--per-address 8]
        [--seconds 10] [--before DIR]

A server (`gother serve`, its own process) on a database of finished games. One honest
player sits at a table with two normal bots and plays as fast as answered, timing each
move's round trip; first with no flood, then while `--addresses` times `--per-address`
connections, each at an address of its own as the server's door vouches for it (the
`Gother-Door` header, signed with the server's door key: no traffic leaves 127.0.0.1),
ask to play on from a finished game's turns as fast as they are answered (each within its
own budgets, as any connection); and, as a yardstick, while as many ask something cheap as
fast (`leave` at no table: an error each), what any flood of this size costs. Printed: the
honest moves' p50, p95 and max, and what the flood was answered. `--before DIR`: also a
server from the source tree DIR, first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hints import start_server  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from protocol import MAX_FRAME, PROTOCOL_VERSION  # noqa: E402
from protocol.constants import DOOR_HEADER  # noqa: E402
from server.edge.doorkey import DoorKey  # noqa: E402
from tests.kits import netkit  # noqa: E402
from tests.kits.netkit import Client, first_legal_move  # noqa: E402
from tests.kits.tablekit import finished_games  # noqa: E402

netkit.TIMEOUT = 120.0  # a server flooded as the issue found it answered seconds late


async def honest(url: str, seconds: float) -> list[float]:
    """Round trips of a player's moves for `seconds` (a new game when one ends)."""
    times: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        player = await Client.connect(url, "Honest")
        table = (await player.request("create", name="Honest", seats=3, bots=2))["table"]
        await player.request("join", table=table)
        view = await player.state(lambda v: v["legal"] is not None or v["phase"] == "over")
        while view["phase"] != "over" and time.perf_counter() < end:
            started = time.perf_counter()
            reply = await player.request("move", move=first_legal_move(view["legal"]))
            times.append(time.perf_counter() - started)
            view = reply["view"]
            if view["legal"] is None and view["phase"] != "over":
                view = await player.state(lambda v: v["legal"] is not None or v["phase"] == "over")
        await player.close()
    return times


async def flooder(
    url: str, claim: str, games: list[str], stop: asyncio.Event, tally: Counter[str]
) -> None:
    """One connection at its own address asking to play on from `games` as fast as it is
    answered (with no games: a cheap request, the yardstick)."""
    headers = {DOOR_HEADER: claim}
    ws = await connect(url, max_size=MAX_FRAME, compression=None, additional_headers=headers)
    client = Client(ws)
    reply = await client.request("hello", v=PROTOCOL_VERSION, name=f"F{abs(hash(claim)) % 10**6}")
    assert reply["t"] == "welcome", reply
    i = 0
    while not stop.is_set():
        if games:
            game = games[i % len(games)]
            reply = await client.request("play_on", table=game, seat=i % 3, turn=1 + i % 6)
        else:
            reply = await client.request("leave")
        tally[reply.get("code", reply["t"])] += 1
        i += 1
    await client.close()


async def measure(
    url: str, key: DoorKey, addresses: int, args: argparse.Namespace, games: list[str]
) -> str:
    stop = asyncio.Event()
    tally: Counter[str] = Counter()
    floods = [
        asyncio.create_task(flooder(url, key.claim(f"10.31.{a}.1"), games, stop, tally))
        for a in range(addresses)
        for _ in range(args.per_address)
    ]
    times = await honest(url, args.seconds)
    stop.set()
    await asyncio.gather(*floods)
    ms = sorted(t * 1000 for t in times)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    return (
        f"honest p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"
        f" ({len(ms)} moves); the flood: {dict(tally)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=20)
    parser.add_argument("--per-address", type=int, default=8)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--before", metavar="DIR", help="also a server from this source tree")
    args = parser.parse_args()
    key = DoorKey()
    with tempfile.TemporaryDirectory() as folder:
        key_file = Path(folder, "door.key")
        key_file.write_text(key.text)
        os.chmod(key_file, 0o600)
        pristine = Path(folder, "pristine.db")
        games = finished_games(pristine, args.games)
        db = str(Path(folder, "games.db"))
        print(f"{args.games} finished games; {args.addresses} addresses x {args.per_address}")
        for label, tree in [*([("before", args.before)] if args.before else []), ("now", None)]:
            for flood, asked in (("quiet", []), ("cheap", []), ("play_on", games)):
                shutil.copyfile(pristine, db)  # every run on the same finished games
                with open(Path(folder, "serve.log"), "w+") as log:
                    options = ["--door-key-file", str(key_file), "--max-pending", "1000"]
                    proc, port = start_server(log, db, tree, options)
                    try:
                        addresses = 0 if flood == "quiet" else args.addresses
                        url = f"ws://127.0.0.1:{port}"
                        figures = asyncio.run(measure(url, key, addresses, args, asked))
                    finally:
                        proc.terminate()
                        try:
                            proc.wait(20)
                        except subprocess.TimeoutExpired:
                            proc.kill()
                            proc.wait()
                print(f"{label:>6} {flood:>7}: {figures}", flush=True)


if __name__ == "__main__":
    main()
