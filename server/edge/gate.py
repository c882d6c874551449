"""A connection's life: let in or refused a slot, its door's claim heard, a hello awaited,
its frames read one a turn, and what it held put away when it goes."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from functools import partial

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol import ProtocolError
from protocol.constants import DOOR_HEADER
from server.edge.caps import OVERALL, Caps
from server.edge.closes import CLOSE_POLICY, CLOSE_TRY_LATER
from server.edge.config import ServerConfig
from server.edge.connection import Connection
from server.edge.dispatch import REFUSALS_LOGGED
from server.edge.doorkey import DoorKey
from server.edge.handshakes import Handshakes
from server.edge.health import Counters
from server.edge.seating import Seating
from server.ratelimit import TokenBucket
from server.tournament.director import Director

log = logging.getLogger("gother.server")


class Gate:
    """The connections open now, and the caps on who may open one."""

    def __init__(
        self,
        config: ServerConfig,
        door_key: DoorKey,
        counters: Counters,
        before_hello: Caps,
        dispatch: Callable[[Connection, bytes | str], None],
        seating: Seating,
        director: Director,
    ) -> None:
        self.config = config
        self.door_key = door_key  # what the doors' claims of their players' addresses prove
        self.counters = counters
        # connections that have not said hello yet, overall and by address (hello frees one)
        self.before_hello = before_hello
        self.dispatch = dispatch  # one frame read and answered
        self.seating = seating  # a connection gone: its seat kept, away, and its watch ended
        self.director = director  # and the tournaments it entered or watched told
        self.connections: set[Connection] = set()
        self.max_connections = config.max_connections  # lowered at start to what fits
        # and before that, in the handshake: at most as many from one address as it may have
        self.handshakes = Handshakes(config.max_pending, config.max_per_address)
        self.by_address: Counter[str] = Counter()

    async def handle(self, ws: ServerConnection) -> None:
        self.handshakes.done(ws)
        c = self.config
        conn = Connection(
            ws,
            TokenBucket(c.rate, c.burst),
            TokenBucket(c.chat_rate, c.chat_burst),
            TokenBucket(c.costly_rate, c.costly_burst),
        )
        self._hear_door(conn)
        refusal = self.refusal(conn)
        if refusal is not None:
            await ws.close(CLOSE_TRY_LATER, refusal)
            return
        conn.on_drop = partial(self.counters.count, "dropped")
        self.connections.add(conn)
        self.by_address[conn.address_key] += 1
        log.info("connection from %s", conn.describe())
        pump = asyncio.create_task(conn.pump())
        overdue = asyncio.get_running_loop().call_later(c.hello_timeout, self._no_hello, conn)
        try:
            async for frame in ws:
                self.dispatch(conn, frame)
                # then the others' turn: frames that piled up while the server was behind
                # are read one a turn, not all at once while every table's timer waits
                await asyncio.sleep(0)
        except ConnectionClosed:
            pass
        finally:
            overdue.cancel()
            pump.cancel()
            self.connections.discard(conn)
            self.before_hello.release(conn)
            self.by_address[conn.address_key] -= 1
            if not self.by_address[conn.address_key]:
                del self.by_address[conn.address_key]
            self.seating.gone(conn)
            self.director.disconnected(conn)
            unlogged = conn.refusals - REFUSALS_LOGGED
            more = f" ({unlogged} more refusals, not logged)" if unlogged > 0 else ""
            log.info("connection closed: %s%s", conn.describe(), more)

    def _hear_door(self, conn: Connection) -> None:
        """A door's client opens with the door's claim of its player's address (the
        Gother-Door header): from the start that address is the connection's, for every
        cap. A claim the doors did not sign leaves the connection at its own address, and
        its hello is refused `bad_door`."""
        claims = conn.ws.request.headers.get_all(DOOR_HEADER) if conn.ws.request else []
        if not claims:
            return
        try:
            if len(claims) > 1:  # a door sends one: two are no door's
                raise ProtocolError("bad_door", "a door says where a player is once")
            conn.claimed = self.door_key.verify(claims[0])
        except ProtocolError as exc:
            conn.bad_door = exc

    @property
    def pending(self) -> int:
        """Connections that have not said hello yet."""
        return len(self.before_hello)

    def refusal(self, conn: Connection) -> str | None:
        """Why a new connection cannot have a slot, if it cannot: the server is full, too
        many come from its address, or too many from its address have not said hello. Else
        it holds its place before hello. When every place before hello is held, the oldest
        connection of the address holding the most makes room: addresses that never say
        hello and reopen as the deadline closes them keep turning each other out, while a
        newcomer's hello comes within a moment of its place."""
        if len(self.connections) >= self.max_connections:
            return "server full"
        per_address = self.config.max_per_address
        if self.by_address[conn.address_key] >= per_address:
            return f"at most {per_address} connections from one address"
        full = self.before_hello.admit(conn, address=conn.address_key)
        if full == OVERALL:
            self._turn_out(self.before_hello.crowding("address"))
            full = self.before_hello.admit(conn, address=conn.address_key)
        if full == OVERALL:  # nobody to turn out (max_pending is 0)
            return "too many connections waiting to say hello"
        if full is not None:
            return "too many connections from your address waiting to say hello"
        return None

    def _turn_out(self, waiting: object) -> None:
        """Close a connection that has not said hello, to give its place to a newcomer."""
        if not isinstance(waiting, Connection):
            return
        self.before_hello.release(waiting)
        closing = waiting.ws.close(CLOSE_TRY_LATER, "too many connections waiting to say hello")
        asyncio.get_running_loop().create_task(closing)

    def _no_hello(self, conn: Connection) -> None:
        if not conn.name:
            asyncio.get_running_loop().create_task(
                conn.ws.close(CLOSE_POLICY, f"say hello within {self.config.hello_timeout:g} s")
            )
