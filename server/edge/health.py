"""What a host watches: `GET /healthz` on the websocket port, and a stats line in the log.

Both are made from the same counts, so the line a host greps and the answer a monitor polls
never disagree.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Sized
from dataclasses import asdict, dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Literal, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from server.edge.limits import address_key
from server.ratelimit import Buckets, TokenBucket

if TYPE_CHECKING:
    from server.edge.pauses import Pauses
    from server.tables.lobby import Lobby

log = logging.getLogger("gother.server")
STATS_EVERY = 300.0  # seconds between two stats lines
# `/healthz` answers a second, from one address and in all (each answer reads every table:
# 687 a second made an honest table 8 times slower); a monitor asks every few seconds
ASKS_PER_ADDRESS, ASKS_BURST = 1.0, 5.0
ASKS_OVERALL, ASKS_OVERALL_BURST = 10.0, 20.0


class Asking:
    """How often `/healthz` is answered; beyond it, 429 and nothing read."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.by_address = Buckets(ASKS_PER_ADDRESS, ASKS_BURST, clock=clock)
        self.overall = TokenBucket(ASKS_OVERALL, ASKS_OVERALL_BURST, clock)

    def allow(self, address: str) -> bool:
        return self.by_address.allow(address_key(address)) and self.overall.allow()


@dataclass
class Counters:
    """Events since the server started, for the stats line."""

    started: float = field(default_factory=time.monotonic)
    events: Counter[str] = field(default_factory=Counter)  # moves, errors, drops…

    def count(self, event: str) -> None:
        self.events[event] += 1


class Watched(Protocol):
    """What the figures read of a server (the server itself: a protocol, so this module
    needs nothing of the app that imports it)."""

    @property
    def lobby(self) -> Lobby: ...
    @property
    def counters(self) -> Counters: ...
    @property
    def connections(self) -> Sized: ...
    @property
    def pending(self) -> int: ...
    @property
    def pauses(self) -> Pauses: ...


@dataclass(frozen=True)
class Figures:
    """A server's figures now, field by field as `/healthz` answers them."""

    status: Literal["ok", "degraded"]  # degraded: a table cannot write
    uptime: int  # seconds
    connections: int
    waiting_hello: int
    tables: int
    games: int  # in play
    paused: int
    stopped: int
    broken: int
    moves: int  # made at every table since the server started, by players and bots alike
    errors: int
    dropped: int  # slow readers
    loop_lag_worst_ms: float  # how late the game's loop ran a callback, at worst
    gc_full: int  # collections of every generation (each walks every object held)
    gc_worst_ms: float  # the longest a collection stopped the server


def figures(server: Watched) -> Figures:
    tables = list(server.lobby.tables.values())
    in_play = [t for t in tables if t.game is not None and not t.game.over]
    return Figures(
        status="ok" if not any(t.stopped for t in tables) else "degraded",
        uptime=round(time.monotonic() - server.counters.started),
        connections=len(server.connections),
        waiting_hello=server.pending,
        tables=len(tables),
        games=len(in_play),
        paused=sum(t.paused_at is not None for t in in_play),
        stopped=sum(t.stopped is not None for t in tables),
        broken=len(server.lobby.broken),
        moves=server.counters.events["moves"],
        errors=server.counters.events["errors"],
        dropped=server.counters.events["dropped"],
        loop_lag_worst_ms=round(server.pauses.lag.seconds * 1000, 1),
        gc_full=server.pauses.full.count,
        gc_worst_ms=round(server.pauses.collections.seconds * 1000, 1),
    )


def stats_line(server: Watched) -> str:
    """The figures since the start, and the pauses of the loop since the line before."""
    f = figures(server)
    lag, full, collections = server.pauses.take()
    return (
        f"stats: {f.connections} connections ({f.waiting_hello} before hello),"
        f" {f.tables} tables ({f.games} games in play, {f.paused} paused,"
        f" {f.stopped} stopped, {f.broken} broken), {f.moves} moves,"
        f" {f.errors} errors, {f.dropped} slow readers dropped;"
        f" since the last line: loop lag at worst {lag.seconds * 1000:.0f} ms,"
        f" {collections.count} collections (worst {collections.seconds * 1000:.0f} ms),"
        f" {full.count} of them full (worst {full.seconds * 1000:.0f} ms)"
    )


def healthz(
    server: Watched, asking: Asking, connection: ServerConnection, request: Request
) -> Response | None:
    """`process_request` hook: answer `GET /healthz` with the figures as JSON; any other
    path goes on to the websocket handshake. 503 while a table cannot write; 429 to one
    that asks too often."""
    if request.path != "/healthz":
        return None
    address = str(connection.remote_address[0]) if connection.remote_address else "?"
    if not asking.allow(address):
        response = connection.respond(HTTPStatus.TOO_MANY_REQUESTS, "asked too often\n")
        response.headers["Retry-After"] = "1"
        return response
    f = figures(server)
    status = HTTPStatus.OK if f.status == "ok" else HTTPStatus.SERVICE_UNAVAILABLE
    response = connection.respond(status, json.dumps(asdict(f)) + "\n")
    response.headers["Content-Type"] = "application/json"
    return response
