"""One client's connection as the server keeps it: where it sits and watches, its budgets,
what it proved, and its outbox.

Sends go through an outbox drained by the connection's own task, so a slow reader never
holds up a table's broadcast to everyone else; the outbox is bounded in bytes, and a reader
that lets more than OUTBOX_BYTES pile up is cut off at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

from protocol import ProtocolError, encode
from server.edge.frames import binary_frame
from server.edge.limits import address_key
from server.ratelimit import TokenBucket
from server.tables.table import Seat, Table

log = logging.getLogger("gother.server")
OUTBOX_BYTES = 1024 * 1024  # bytes queued for a client that reads too slowly: over it, dropped
WRITE_AHEAD = 64 * 1024  # bytes in the socket's own buffer before frames wait in the outbox


@dataclass(eq=False)
class Connection:
    """One client (a table's `Peer`, a tournament's `Member`)."""

    ws: ServerConnection
    limiter: TokenBucket
    chat_limiter: TokenBucket
    costly: TokenBucket  # the dear requests' own budget (server/edge/dispatch.py COSTS)
    name: str = ""
    # One seat played and one table watched at a time, both at once if need be: watching
    # never takes a player from its seat. `last` is the one joined, resumed or watched
    # last, where a `chat` or `leave` that names no table goes (docs/protocol.md).
    seated: Table | None = None
    watched: Table | None = None
    last: Table | None = None
    outbox: deque[bytes] = field(default_factory=deque)
    queued: int = 0  # bytes in the outbox and being sent
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: bool = False
    refused: int = 0  # rate-limited requests in a row
    refusals: int = 0  # requests refused for what they asked (the log says the first few)
    on_drop: Callable[[], None] | None = None
    taken: list[Seat] = field(default_factory=list)  # seats this connection took with `join`
    # the player's real address, as its door vouched for it: set before the connection is
    # counted anywhere, never after
    claimed: str | None = None
    bad_door: ProtocolError | None = None  # why the claim it opened with was refused
    wrong_passwords: int = 0  # passwords refused, of any kind
    key: bytes | None = None  # the public key its hello named, proved or not
    challenge: bytes | None = None  # what `prove` must sign, until it is tried once
    identity: str | None = None  # proved: the lasting identity its seats and name hang on
    # the tournaments' tables at other processes of the host it was called to (an `error
    # elsewhere` of the server's own): each once (server/edge/elsewhere.py)
    called: set[str] = field(default_factory=set)
    # the tournaments of other processes of the host whose news (`tournament` frames) the
    # relay sent it: each the frame last sent, so that it is sent each news once, and the
    # news as it stands when it comes after it changed (server/edge/elsewhere.py)
    told: dict[str, bytes] = field(default_factory=dict)
    # where the socket comes from, kept from the start: a closed TLS socket forgets it (and
    # it is None already for one dropped mid-handshake)
    peer: tuple[str, int] | None = field(init=False, default=None)
    # (address, its key): the key parsed once for the address, not at every cap's count
    _key: tuple[str, str] = field(init=False, default=("", ""), repr=False)

    def __post_init__(self) -> None:
        if self.ws.remote_address:
            self.peer = (str(self.ws.remote_address[0]), int(self.ws.remote_address[1]))

    def at(self, table: Table) -> None:
        """This connection came to `table` (joined, resumed or watched it)."""
        self.last = table

    def gone_from(self, table: Table) -> None:
        """This connection is no longer at `table` (left it, or the table closed)."""
        if self.seated is table:
            self.seated = None
        if self.watched is table:
            self.watched = None
        if self.last is table:
            self.last = self.watched or self.seated

    def between_games(self) -> bool:
        """Playing no game now: at no table, or at one whose game is not dealt or over
        (a player is called to a tournament's next table then, never out of a game)."""
        game = None if self.seated is None else self.seated.game
        return game is None or game.over

    @property
    def socket_address(self) -> str:
        """Where the connection comes from (a door's own machine, for a door's player)."""
        return self.peer[0] if self.peer else ""

    @property
    def address(self) -> str:
        """The player's address: the one a door vouched for, else the connection's own."""
        return self.claimed or self.socket_address

    @property
    def address_key(self) -> str:
        """The address as every cap and quota counts it (an IPv6 address by its /64)."""
        address = self.address
        if self._key[0] != address:  # ("", "") holds already: the key of "" is ""
            self._key = (address, address_key(address))
        return self._key[1]

    def send(self, message: Any) -> None:
        if self.dropped:
            return
        frame = message if isinstance(message, bytes) else encode(message)
        if not self.outbox and self._writes_at_once():
            # The common case, written now: a frame through the pump costs a task wake-up
            # and websockets' async send path, most of the server's CPU per move.
            self.ws.transport.write(binary_frame(frame))
            return
        if self.queued + len(frame) > OUTBOX_BYTES:
            self.drop()
            return
        self.outbox.append(frame)
        self.queued += len(frame)
        self.ready.set()

    def _writes_at_once(self) -> bool:
        """Open, and the socket keeps up: what is buffered below is under WRITE_AHEAD. A
        frame written straight to the socket (frames.py) must also find websockets with
        nothing of its own to write first, no frame half sent and no extension to apply."""
        transport = self.ws.transport
        protocol = self.ws.protocol
        return (
            protocol.state is State.OPEN
            and not protocol.writes
            and not protocol.expect_continuation_frame
            and not protocol.extensions
            and transport is not None
            and not transport.is_closing()
            and transport.get_write_buffer_size() < WRITE_AHEAD
        )

    def drop(self) -> None:
        """Cut off a reader too slow for its outbox: logged once, no closing handshake
        (it would wait behind everything the reader does not read)."""
        self.dropped = True
        self.outbox.clear()
        log.warning("%s reads too slowly; dropped", self.describe())
        if self.on_drop is not None:
            self.on_drop()
        if self.ws.transport is not None:
            self.ws.transport.abort()

    async def pump(self) -> None:
        while True:
            while not self.outbox:
                self.ready.clear()
                await self.ready.wait()
            frame = self.outbox.popleft()
            await self.ws.send(frame)
            self.queued -= len(frame)

    def describe(self) -> str:
        host, port = self.peer or ("?", 0)
        via = f" for {self.claimed}" if self.claimed else ""  # a door's player
        return f"{self.name or '?'}@{host}:{port}{via}"
