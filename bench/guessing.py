"""Password guesses per second over loopback, without and with the limits on guessing
(server/edge/attempts.py), in one run. Figures, never asserted.

    .venv/bin/python bench/guessing.py [--seconds 5] [--connections 20]

For each kind of password, `--connections` guessers on 127.0.0.1 guess as fast as the
server answers for `--seconds`, first against a server whose limits are lifted (what every
server was before: each guess looked at) and then against the usual limits:
- the server's password (`hello`), a new connection after each close;
- a table's 4-digit password (`join`), which is also stored as a slow salted hash now;
- the SSH door's password, as many as one connection may try, then a new connection.
Printed: the guesses looked at per second (refusals unread do not count: they tell the
guesser nothing), the time to try all 10,000 four-digit passwords at that rate, and what
the usual rules allow one address in the long run. Also the cost of one table-password
check, unsalted SHA-256 (before) against scrypt (now).

    .venv/bin/python bench/guessing.py --trick 3

The reset trick instead, under the usual limits, for `--trick` minutes each: between two
guesses, a right password the guesser knows. For a table's 4-digit password: two guesses,
then a join of a private table of its own with its password, and leave. For the
tournaments' password (`tournament_create`): a hello with the server's password, which the
whole club knows, then two guesses. Printed: the guesses looked at in each minute. Run it
on an older checkout (PYTHONPATH) for the figures before.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncssh
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import MAX_FRAME, PROTOCOL_VERSION, decode, encode
from protocol.requests import Create
from server.doors.ssh import SshFrontDoor, SshOptions
from server.edge.app import GotherServer
from server.edge.attempts import Guessing
from server.edge.config import ServerConfig
from server.tables.passwords import check_password, hash_password

HOST = "127.0.0.1"
SECRET = "not-guessable"
UNLIMITED = Guessing(tries=10**9, max_wait=0.0)  # every wait 0 s


class Tally:
    looked_at = 0  # guesses the server checked (a refusal unread tells the guesser nothing)


Guess = Callable[["itertools.count[int]", Tally], Awaitable[None]]  # one connection's worth


async def ask(ws: ClientConnection, request: dict[str, Any]) -> dict[str, Any]:
    await ws.send(encode({**request, "rid": 1}))
    while True:
        reply = decode(await ws.recv())  # type: ignore[arg-type]
        if reply.get("rid") == 1:
            return reply


def server_password(port: int) -> Guess:
    async def guess(pins: itertools.count[int], tally: Tally) -> None:
        async with connect(f"ws://{HOST}:{port}", max_size=MAX_FRAME) as ws:
            try:
                while True:
                    pw = f"guess-{next(pins)}"
                    reply = await ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": "G",
                                           "password": pw})  # fmt: skip
                    tally.looked_at += reply.get("code") == "wrong_password"
            except ConnectionClosed:
                return

    return guess


def table_password(port: int, table: str) -> Guess:
    async def guess(pins: itertools.count[int], tally: Tally) -> None:
        async with connect(f"ws://{HOST}:{port}", max_size=MAX_FRAME) as ws:
            await ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": "G"})
            try:
                while True:
                    pin = f"{next(pins) % 10000:04d}"
                    reply = await ask(ws, {"t": "join", "table": table, "password": pin})
                    tally.looked_at += reply.get("code") == "wrong_password"
            except ConnectionClosed:
                return

    return guess


class _Guesser(asyncssh.SSHClient):
    """Asked for a password again only once the last one was refused: that one was
    looked at."""

    def __init__(self, pins: itertools.count[int], tally: Tally) -> None:
        self.pins, self.tally, self.asked = pins, tally, 0

    def password_auth_requested(self) -> str:
        self.tally.looked_at += self.asked > 0
        self.asked += 1
        return f"guess-{next(self.pins)}"


def ssh_password(port: int) -> Guess:
    async def guess(pins: itertools.count[int], tally: Tally) -> None:
        client = _Guesser(pins, tally)
        try:
            await asyncssh.connect(
                HOST, port, username="g", client_factory=lambda: client, known_hosts=None,
                agent_path=None, config=[], client_keys=None, preferred_auth="password",
            )  # fmt: skip
        except asyncssh.PermissionDenied:  # closed after too many: the last was looked at
            tally.looked_at += 1
        except (asyncssh.Error, OSError):
            pass

    return guess


async def rate(guess: Guess, connections: int, seconds: float) -> float:
    """Guesses looked at per second by `connections` guessers, each reconnecting."""
    pins, tally = itertools.count(), Tally()

    async def guesser() -> None:
        while True:
            await guess(pins, tally)

    tasks = [asyncio.create_task(guesser()) for _ in range(connections)]
    await asyncio.sleep(seconds)
    looked_at = tally.looked_at
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return looked_at / seconds


async def measure(kind: str, guessing: Guessing, connections: int, seconds: float) -> float:
    with tempfile.TemporaryDirectory() as tmp:  # the SSH host key
        # connection caps lifted (loopback is capped now): this measures the guessing limits
        config = ServerConfig(host=HOST, port=0, db=":memory:", guessing=guessing,
                              password=SECRET if kind == "server" else None,
                              rate=1e6, burst=1e6, max_connections=10_000,
                              pending_per_address=10_000, max_per_address=10_000)  # fmt: skip
        server = GotherServer(config)
        await server.start()
        door = None
        try:
            if kind == "server":
                guess = server_password(server.port)
            elif kind == "table":
                table = server.lobby.create(Create(name="Vault", seats=3, bots=1, password="7319"))
                guess = table_password(server.port, table.id)
            else:
                options = SshOptions(port=0, host_key=Path(tmp) / "hk", data_dir=Path(tmp),
                                     password=SECRET, guessing=guessing)  # fmt: skip
                door = SshFrontDoor(options, HOST, f"ws://{HOST}:{server.port}", server.door_key)
                await door.start()
                guess = ssh_password(door.port)
            return await rate(guess, connections, seconds)
        finally:
            if door is not None:
                await door.close()
            await server.close()


async def trick_table(port: int, victim: str, tally: Tally, stop: asyncio.Event) -> None:
    """Two guesses at the victim's PIN, then the right password of a table of one's own."""
    async with connect(f"ws://{HOST}:{port}", max_size=MAX_FRAME) as home:
        await ask(home, {"t": "hello", "v": PROTOCOL_VERSION, "name": "Home", "password": SECRET})
        mine = await ask(home, {"t": "create", "name": "Mine", "seats": 3, "bots": 1,
                                "password": "1111"})  # fmt: skip
        pins = itertools.count()
        while not stop.is_set():
            async with connect(f"ws://{HOST}:{port}", max_size=MAX_FRAME) as ws:
                await ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": "G",
                               "password": SECRET})  # fmt: skip
                for _ in range(2):
                    pin = f"{next(pins) % 10000:04d}"
                    reply = await ask(ws, {"t": "join", "table": victim, "password": pin})
                    if reply.get("code") != "wrong_password":
                        await asyncio.sleep(0.05)  # refused unread: a wait, as a guesser would
                        break
                    tally.looked_at += 1
                joined = await ask(ws, {"t": "join", "table": mine["table"], "password": "1111"})
                if joined.get("t") == "joined":
                    await ask(ws, {"t": "leave", "table": mine["table"]})


async def trick_tournament(port: int, _victim: str, tally: Tally, stop: asyncio.Event) -> None:
    """A hello with the server's password (the club knows it), then two guesses at the
    tournaments' password."""
    pins = itertools.count()
    while not stop.is_set():
        async with connect(f"ws://{HOST}:{port}", max_size=MAX_FRAME) as ws:
            await ask(ws, {"t": "hello", "v": PROTOCOL_VERSION, "name": "G", "password": SECRET})
            for _ in range(2):
                reply = await ask(ws, {"t": "tournament_create", "name": "Night", "rounds": 1,
                                       "seats": 3, "password": f"guess-{next(pins)}"})  # fmt: skip
                if reply.get("code") != "wrong_password":
                    await asyncio.sleep(0.05)
                    break
                tally.looked_at += 1


async def trick(kind: str, minutes: int) -> list[int]:
    """Guesses looked at in each minute by one guesser playing the reset trick."""
    config = ServerConfig(host=HOST, port=0, db=":memory:", password=SECRET,
                          tournament_password="not-known")  # fmt: skip
    server = GotherServer(config)
    await server.start()
    try:
        victim = server.lobby.create(Create(name="Vault", seats=3, bots=1, password="7319")).id
        tally, stop = Tally(), asyncio.Event()
        play = trick_table if kind == "table" else trick_tournament
        task = asyncio.create_task(play(server.port, victim, tally, stop))
        counts, before = [], 0
        for _ in range(minutes):
            await asyncio.sleep(60)
            counts.append(tally.looked_at - before)
            before = tally.looked_at
        stop.set()
        await task
        return counts
    finally:
        await server.close()


def check_cost() -> tuple[float, float]:
    """Seconds per table-password check: unsalted SHA-256 (before), scrypt (now)."""
    stored = hash_password("7319")
    began = time.perf_counter()
    for _ in range(20):
        check_password("0000", stored)
    scrypt = (time.perf_counter() - began) / 20
    began = time.perf_counter()
    for _ in range(20_000):
        hashlib.sha256(b"0000").hexdigest()
    return (time.perf_counter() - began) / 20_000, scrypt


def long_run(rules: Guessing, hours: float = 1.0) -> int:
    """Guesses one address may have looked at in `hours`, always trying as soon as allowed."""
    now, failures, count = 0.0, 0, 0
    while now < hours * 3600:
        count, failures = count + 1, failures + 1
        now += max(rules.wait_after(failures), 1e-3)
    return count


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--trick", type=int, metavar="MINUTES", help="the reset trick instead")
    args = parser.parse_args()
    if args.trick:
        for kind in ("table", "tournament"):
            counts = await trick(kind, args.trick)
            print(f"reset trick, {kind} password: guesses looked at in each minute: "
                  f"{', '.join(map(str, counts))} (the last minute: {counts[-1]})")  # fmt: skip
        return
    rules = Guessing()
    print(f"{args.connections} guessers on {HOST}, {args.seconds:g} s each")
    print(f"{'password':<10}{'no limits: guesses/s':>22}{'limits: guesses/s':>20}")
    for kind in ("server", "table", "ssh"):
        before = await measure(kind, UNLIMITED, args.connections, args.seconds)
        after = await measure(kind, rules, args.connections, args.seconds)
        print(f"{kind:<10}{before:>22.1f}{after:>20.2f}")
    hourly = long_run(rules)
    print(f"the limits' first {args.seconds:g} s hold the free tries; in the long run one "
          f"address gets {hourly} guesses an hour: 10,000 four-digit passwords take "
          f"{10_000 / hourly:.0f} h (no limits: 10,000 / the rate above)")  # fmt: skip
    sha, scrypt = check_cost()
    print(f"a table-password check: SHA-256 {sha * 1e6:.1f} us, scrypt {scrypt * 1e3:.0f} ms "
          f"({scrypt / sha:,.0f}x)")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
