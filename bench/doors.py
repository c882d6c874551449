"""Doors speak for their players (issue 18 item 1): figures, never asserted.

    .venv/bin/python bench/doors.py [--players 12] [--seconds 5]

1. Players per address: `--players` door players (connections opened with the door's
   claims, as the SSH and web doors' clients open them, each for its own address) each create a
   table and sit at it; then as many plain clients on 127.0.0.1 try the same. Printed: how
   many of each got a table.
2. A local process guessing the server's password from 127.0.0.1, 20 guessers as fast as
   the server answers for `--seconds`, while one door player after another says hello
   with the right password (first with no guessers, to compare). Printed: the guesses
   looked at per second, the refusals unread, and the door players' hellos: how many got
   in, and their latency.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from protocol.constants import DOOR_HEADER
from server.edge.app import GotherServer
from server.edge.config import ServerConfig

HOST = "127.0.0.1"
SECRET = "not-guessable"


async def ask(ws: ClientConnection, request: dict[str, Any]) -> dict[str, Any]:
    await ws.send(encode({**request, "rid": 1}))
    while True:
        reply = decode(await ws.recv())  # type: ignore[arg-type]
        if reply.get("rid") == 1:
            return reply


def opening(claim: str | None) -> dict[str, Any]:
    """How a connection opens: a door's client with its door's claim."""
    return {"max_size": MAX_FRAME, "additional_headers": {DOOR_HEADER: claim} if claim else None}


async def sit(url: str, name: str, claim: str | None = None) -> bool:
    """Hello, create a table, sit at it: whether all three were answered yes."""
    ws = await connect(url, **opening(claim))
    try:
        said = await ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": name})
        made = await ask(ws, {"t": "create", "name": name, "seats": 3, "bots": 0})
        if said["t"] != "welcome" or made["t"] != "created":
            return False
        joined = await ask(ws, {"t": "join", "table": made["table"]})
        return bool(joined["t"] == "joined")
    finally:
        await ws.close()


async def players_per_address(players: int) -> tuple[int, int]:
    server = GotherServer(ServerConfig(host=HOST, port=0, announce=False))
    await server.start()
    url = f"ws://{HOST}:{server.port}"
    try:
        # kept open: a table nobody is at still counts for its creator's address
        door = [
            await sit(url, f"D{i}", server.door_key.claim(f"10.0.{i // 250}.{i % 250 + 1}"))
            for i in range(players)
        ]
        local = [await sit(url, f"L{i}") for i in range(players)]
    finally:
        await server.close()
    return sum(door), sum(local)


async def guess(url: str, count: int, seconds: float) -> None:
    """The local process: `count` guessers for `seconds`; its tallies on one line."""
    looked_at = unread = turned_away = 0
    pins = itertools.count()

    async def guesser() -> None:
        nonlocal looked_at, unread, turned_away
        while True:
            try:
                async with connect(url, max_size=MAX_FRAME) as ws:
                    while True:
                        hello = {"t": "hello", "v": PROTOCOL_VERSION, "name": "G",
                                 "password": f"guess-{next(pins)}"}  # fmt: skip
                        code = (await ask(ws, hello)).get("code")
                        looked_at += code == "wrong_password"
                        unread += code == "too_many_attempts"
            except (ConnectionClosed, OSError):
                turned_away += 1

    guessers = [asyncio.create_task(guesser()) for _ in range(count)]
    await asyncio.sleep(seconds)
    for task in guessers:
        task.cancel()
    await asyncio.gather(*guessers, return_exceptions=True)
    print(
        f"{count} local guessers: {looked_at / seconds:.2f} guesses looked at a second, "
        f"{unread / seconds:.0f} a second refused unread, {turned_away} connections closed"
    )


async def guessing(seconds: float, count: int) -> None:
    """Door players saying hello one after another while another process on this host,
    with `count` guessers, guesses the server's password."""
    server = GotherServer(ServerConfig(host=HOST, port=0, password=SECRET, announce=False))
    await server.start()
    url = f"ws://{HOST}:{server.port}"
    guesser = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--guess", url, "--guessers", str(count),
        "--seconds", str(seconds),
    )  # fmt: skip
    latencies, admitted, tries = [], 0, 0
    try:
        while guesser.returncode is None:
            tries += 1
            claim = server.door_key.claim(f"192.0.2.{tries % 250 + 1}")
            start = time.perf_counter()
            async with connect(url, **opening(claim)) as ws:
                hello = {"t": "hello", "v": PROTOCOL_VERSION, "name": "Door",
                         "password": SECRET}  # fmt: skip
                reply = await ask(ws, hello)
            latencies.append(time.perf_counter() - start)
            admitted += reply["t"] == "welcome"
            await asyncio.sleep(0.05)  # a player arriving every 50 ms or so, not a flood
    finally:
        await guesser.wait()
        await server.close()
    ms = sorted(1000 * t for t in latencies)
    print(f"door players meanwhile: {admitted} of {tries} got in; hello p50 "
          f"{statistics.median(ms):.1f} ms, max {ms[-1]:.1f} ms")  # fmt: skip


DESCRIPTORS = 4096  # every process's limit in part 3: a host's usual 1,024 and more
GOTHER = str(Path(sys.executable).with_name("gother"))
AS_BEFORE = ("--web-header-timeout", "3600", "--web-half-open-per-address", "100000")


def _limited(descriptors: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

    return limit


async def hello(url: str) -> bool:
    try:
        async with asyncio.timeout(10):
            async with connect(url, max_size=MAX_FRAME) as ws:
                reply = await ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": "Crow"})
                return bool(reply["t"] == "welcome")
    except (OSError, TimeoutError, ConnectionClosed):
        return False


async def slowloris(
    count: int, hold: float, cuts: tuple[str, ...], descriptors: int = DESCRIPTORS
) -> str:
    """`count` half-sent requests at a `gother serve --web` door (with `cuts`); one line."""
    proc = await asyncio.create_subprocess_exec(
        GOTHER, "serve", "--port", "0", "--web", "0", "--no-announce", *cuts,
        stderr=asyncio.subprocess.PIPE, preexec_fn=_limited(descriptors),
    )  # fmt: skip
    assert proc.stderr is not None
    url = web = None
    while url is None or web is None:
        line = (await proc.stderr.readline()).decode()
        if not line:
            raise RuntimeError("gother serve ended before its doors listened")
        if found := re.search(r" listening on (ws://127\.0\.0\.1:\d+)", line):
            url = found[1]
        if found := re.search(r"web: listening on http://127\.0\.0\.1:(\d+)", line):
            web = int(found[1])
    drain = asyncio.create_task(proc.stderr.read())  # the door's log, never a full pipe

    async def half_send() -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:  # at once: past a full backlog a connect waits, and then times out
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, web), 5)
        except (OSError, TimeoutError):
            return None
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow")
        return reader, writer

    opened = await asyncio.gather(*(half_send() for _ in range(count)))
    held = [pair[0] for pair in opened if pair is not None]
    writers = [pair[1] for pair in opened if pair is not None]
    failed = count - len(held)
    await asyncio.sleep(0.5)  # what the door does with them at once

    def still_open() -> int:
        return sum(not (r.at_eof() or r.exception()) for r in held)

    at_first = still_open()
    during = sum([await hello(url) for _ in range(4)])
    await asyncio.sleep(hold)
    after = still_open()
    later = sum([await hello(url) for _ in range(4)])
    for writer in writers:
        writer.close()
    proc.terminate()
    await proc.wait()
    drain.cancel()
    return (
        f"{count} half-sent requests ({failed} not even connected): {at_first} open at "
        f"once, {after} still open after {hold:g} s; terminal players on the game port: "
        f"{during} of 4 while held, {later} of 4 after"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--guess", metavar="URL", help=argparse.SUPPRESS)  # the local process
    parser.add_argument("--guessers", type=int, default=20, help=argparse.SUPPRESS)
    parser.add_argument("--slow", type=int, default=4200, help="half-sent requests (part 3)")
    parser.add_argument("--hold", type=float, default=40.0, help="seconds they are held")
    parser.add_argument("--parts", default="123", help="which parts to run, e.g. 3")
    args = parser.parse_args()
    if args.guess:
        await guess(args.guess, args.guessers, args.seconds)
        return
    if "1" in args.parts:
        door, local = await players_per_address(args.players)
        print(f"{args.players} door players, one door: {door} got a table; "
              f"{args.players} plain clients on {HOST}: {local} did")  # fmt: skip
    if "2" in args.parts:
        await guessing(args.seconds, 0)  # the door players' hellos alone, to compare
        await guessing(args.seconds, args.guessers)
    if "3" not in args.parts:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # this process holds them all
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.slow + 256)), hard))
    print("web door, cuts off (as before):", await slowloris(args.slow, args.hold, AS_BEFORE))
    print(
        "cuts off, 1,024 descriptors:    ",
        await slowloris(args.slow, args.hold, AS_BEFORE, 1024),
    )
    print("web door, its defaults:        ", await slowloris(args.slow, args.hold, ()))


if __name__ == "__main__":
    asyncio.run(main())
