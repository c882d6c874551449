"""Pairing time of a tournament round (server/tournament/pairing.py). Figures, never asserted.

    .venv/bin/python bench/tournament.py [--players 100] [--rounds 7] [--seats 4] [--seed 1]

A field of `--players` is seated round after round in tables of `--seats`; between rounds
the standings are shuffled by a seeded RNG (results of random strength), so each round
pairs a new order against every table-mate met so far. Printed per round: the time to seat
it and how many repeated table-mates it has (0 wherever the search found none).

`--server` then seats a first round of `--players` on a real server (`gother serve` in a
process of its own, on 127.0.0.1, a connection each, tables of `--seats`) while another
table's player keeps asking, and prints that player's round trips before, while and after
the round is seated: the stall every other table feels. `--before DIR` (a source tree, e.g.
`git archive main` unpacked) runs the same against a server from DIR first, for
before/after figures in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hints import start_server
from ratings import milliseconds, next_request

from server.tournament.pairing import met_pairs, seat_round

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.kits.netkit import Client  # noqa: E402

LEAVE = "bench-leave"
BASELINE = 2.0  # seconds of the other table's round trips before and after the round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server", action="store_true", help="also seat round 1 on a server")
    parser.add_argument("--before", metavar="DIR", help="also a server from this source tree")
    parser.add_argument("--probe", metavar="URL", help=argparse.SUPPRESS)  # the other table
    args = parser.parse_args()
    if args.probe:
        asyncio.run(keep_asking(args.probe))
        return
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
    if not args.server:
        return
    runs = [("before", args.before)] if args.before else []
    for label, tree in [*runs, ("now", None)]:
        print(f"{label}:")
        asyncio.run(other_table_while_seating(args.players, args.seats, tree))


async def other_table_while_seating(players: int, seats: int, tree: str | None) -> None:
    with (
        tempfile.NamedTemporaryFile("w+", prefix="gother-serve-", suffix=".log") as log,
        tempfile.TemporaryDirectory(prefix="gother-db-") as folder,
    ):
        leave = Path(folder) / "leave"
        leave.write_text(LEAVE)
        every_seat: tuple[str, ...] = (
            "--seats-per-address",
            "1000",
            "--tournament-password-file",
            str(leave),
        )
        if tree is None:  # every player on 127.0.0.1 (a tree from before the option took all)
            every_seat += ("--tournament-entries-per-address", "1000")
        proc, port = start_server(log, os.path.join(folder, "games.db"), tree, every_seat)
        url = f"ws://127.0.0.1:{port}"
        field: list[Client] = []
        try:
            host = await Client.connect(url, "Host")
            made = await host.request(
                "tournament_create", name="Bench", rounds=1, seats=seats, password=LEAVE
            )
            for n in range(players):
                player = await Client.connect(url, f"Player {n}")
                await player.request("tournament_join", tournament=made["id"])
                field.append(player)
            # the other table's player in a process of its own: the hundred players' frames
            # decoded here would otherwise be what delays it
            other = subprocess.Popen(
                [sys.executable, __file__, "--probe", url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert other.stdin is not None and other.stdout is not None
            loop = asyncio.get_running_loop()
            assert (await loop.run_in_executor(None, other.stdout.readline)).strip() == "ready"
            await asyncio.sleep(BASELINE)  # a bench, not a test: the other's baseline
            began = time.perf_counter()  # one clock in both processes (CLOCK_MONOTONIC)
            started = await host.request("tournament_start", tournament=made["id"])
            ended = time.perf_counter()
            await asyncio.sleep(BASELINE)
            other.stdin.close()
            times = json.loads(await loop.run_in_executor(None, other.stdout.read))
            other.wait(10)
        finally:
            for client in field:
                await client.close()
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:  # still closing a hundred connections
                proc.kill()
                proc.wait()
    assert started["t"] == "tournament", started
    before = [t for at, t in times if at + t < began]
    during = [t for at, t in times if at < ended and at + t > began]
    after = [t for at, t in times if at > ended]
    print(
        f"  round 1 of {players} players at {len(started['tables'])} tables seated and "
        f"answered in {(ended - began) * 1e3:.0f} ms"
    )
    print(f"  another table before: {milliseconds(before)}")
    print(f"  while it was seated:  {milliseconds(during)}")
    print(f"  after:                {milliseconds(after)}")


async def keep_asking(url: str) -> None:
    """The other table's process: a player at a table of their own with two bots, moving or
    listing without a pause from "ready" until stdin closes; then the round trips, as JSON
    pairs (when it was asked, round trip)."""
    probe = await Client.connect(url, "Other")
    table = (await probe.request("create", name="Other", seats=3, bots=2))["table"]
    await probe.request("join", table=table, seat=0)
    await probe.state(lambda v: v["legal"] is not None)
    assert (await probe.request("hint"))["t"] == "hint", "no hint"  # the searches are up
    times: list[tuple[float, float]] = []
    stop = asyncio.Event()
    asked = asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    asked.add_done_callback(lambda _: stop.set())
    print("ready", flush=True)
    while not stop.is_set():
        at = time.perf_counter()
        times.append((at, await next_request(probe)))
    await probe.close()
    print(json.dumps(times), flush=True)


if __name__ == "__main__":
    main()
