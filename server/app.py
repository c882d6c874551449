"""The websocket server: one handler per connection, a short dispatch to the lobby's tables.

Like the websockets tutorial's Connect Four, the rules know nothing of the transport: this
module turns frames into validated requests, requests into Table calls, and failures into
`error {rid, code, message}` replies that change nothing. After each change of a table a
handler tells everyone there (server/fanout.py), naming the connection whose request it
answers, and re-arms the table's timer (server/pacer.py).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import signal
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol import (
    MAX_FRAME,
    ProtocolError,
    decode,
    encode,
    request_id,
    server_messages,
    validate_request,
)
from protocol.version import software_version
from server.announce import announce
from server.attempts import Attempts, Guessing
from server.fanout import chat, publish, replay_chat, show
from server.game import MoveError
from server.hint import hint
from server.lobby import Lobby
from server.pacer import Pacer
from server.ratelimit import TokenBucket
from server.store import Store
from server.table import Peer, Settings, Table
from server.tls import certificate_fingerprint, server_context

if TYPE_CHECKING:
    from server.ssh import SshOptions

log = logging.getLogger("gother.server")
SERVER_NAME = f"gother {software_version()}"
OUTBOX_LIMIT = 512  # frames queued for a client that reads too slowly before it is dropped
CLOSE_RESTART = 1012  # "service restart": the server is going down, come back later
CLOSE_TRY_LATER = 1013
CLOSE_REPLACED = 4000  # the seat was resumed from another connection
CLOSE_FLOOD = 4008  # kept sending after being told it was rate limited
CLOSE_GUESSING = 1008  # "policy violation": too many wrong passwords on one connection


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    db: str = ":memory:"
    password: str | None = None  # asked in `hello` when set
    certfile: str | None = None
    keyfile: str | None = None
    grace: float = 60.0
    bot_delay: float = 0.4
    spectators: str = "public"  # none | public (tables without a password) | all
    decks_dir: str | None = None
    max_connections: int = 1000
    max_tables: int = 200
    rate: float = 50.0  # requests per second per connection, sustained (bots play fast)
    burst: float = 100.0
    chat_rate: float = 1.0  # chat lines per second, sustained
    chat_burst: float = 5.0
    # wrong passwords: waits per address, closes per connection
    guessing: Guessing = field(default_factory=Guessing)
    ssh: SshOptions | None = None  # also an SSH front door (server/ssh.py) when set
    announce: bool = True  # mDNS on the LAN, only ever for a non-loopback host (announce.py)


@dataclass(eq=False)
class Connection:
    """One client. Sends go through an outbox drained by its own task, so a slow reader
    never holds up a table's broadcast to everyone else."""

    ws: ServerConnection
    limiter: TokenBucket
    chat_limiter: TokenBucket
    name: str = ""
    table: Table | None = None
    outbox: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(OUTBOX_LIMIT))
    refused: int = 0  # rate-limited requests in a row
    wrong_passwords: int = 0  # passwords refused, of any kind

    def send(self, message: Any) -> None:
        try:
            self.outbox.put_nowait(encode(message))
        except asyncio.QueueFull:
            log.warning("%s reads too slowly; dropping the connection", self.describe())
            asyncio.get_running_loop().create_task(self.ws.close(CLOSE_TRY_LATER, "too slow"))

    async def pump(self) -> None:
        while True:
            frame = await self.outbox.get()
            await self.ws.send(frame)

    def describe(self) -> str:
        # None once a TLS socket is gone (a client that dropped it mid-handshake)
        host, port = (self.ws.remote_address or ("?", 0))[:2]
        return f"{self.name or '?'}@{host}:{port}"


class GotherServer:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store = Store(config.db)
        self.settings = Settings(grace=config.grace, bot_delay=config.bot_delay)
        self.pacer = Pacer(moved=self.after_change)
        self.lobby = Lobby(
            self.store,
            self.settings,
            changed=self.after_change,
            decks_dir=Path(config.decks_dir) if config.decks_dir else None,
            max_tables=config.max_tables,
        )
        self.connections: set[Connection] = set()
        self.server: Server | None = None
        self.server_guesses = Attempts(config.guessing)  # of the server's own password
        self.table_guesses = Attempts(config.guessing)  # of tables' passwords

    # -- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        self.lobby.restore()
        self.server = await serve(
            self.handle,
            self.config.host,
            self.config.port,
            ssl=self._ssl(),
            max_size=MAX_FRAME,
            compression=None,
            ping_interval=20,
            ping_timeout=20,
        )
        for table in self.lobby.tables.values():
            self.pacer.arm(table)  # restored games go on: bot seats, absent players' cover, clocks
        log.info("listening on %s", ", ".join(self.addresses()))

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    def addresses(self) -> list[str]:
        assert self.server is not None
        scheme = "wss" if self.config.certfile else "ws"
        return [
            f"{scheme}://{s.getsockname()[0]}:{s.getsockname()[1]}" for s in self.server.sockets
        ]

    async def close(self) -> None:
        """Close every connection with 1012 (come back soon) and flush the database."""
        if self.server is not None:
            self.server.close(close_connections=False)
            await asyncio.gather(
                *(c.ws.close(CLOSE_RESTART, "server restarting") for c in self.connections),
                return_exceptions=True,
            )
            await self.server.wait_closed()
        self.pacer.close()
        self.store.close()
        log.info("server stopped")

    def _ssl(self) -> ssl.SSLContext | None:
        if not self.config.certfile:
            return None
        return server_context(self.config.certfile, self.config.keyfile)

    # -- connections ------------------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        if len(self.connections) >= self.config.max_connections:
            await ws.close(CLOSE_TRY_LATER, "server full")
            return
        c = self.config
        conn = Connection(ws, TokenBucket(c.rate, c.burst), TokenBucket(c.chat_rate, c.chat_burst))
        self.connections.add(conn)
        log.info("connection from %s", conn.describe())
        pump = asyncio.create_task(conn.pump())
        try:
            async for frame in ws:
                self.dispatch(conn, frame)
        except ConnectionClosed:
            pass
        finally:
            pump.cancel()
            self.connections.discard(conn)
            self._leave_current(conn)
            log.info("connection closed: %s", conn.describe())

    def dispatch(self, conn: Connection, frame: bytes | str) -> None:
        """Handle one frame. Nothing here awaits: a request is applied whole, in order."""
        rid = None
        try:
            if not conn.limiter.allow():
                conn.refused += 1
                rid = _peek_rid(frame)  # the refusal still answers the request's rid
                if conn.refused > self.config.burst:
                    conn.send(
                        server_messages.Error(
                            code="rate_limited", message="too many requests", rid=rid
                        )
                    )
                    asyncio.get_running_loop().create_task(conn.ws.close(CLOSE_FLOOD, "flood"))
                raise ProtocolError("rate_limited", "too many requests: slow down")
            conn.refused = 0
            if isinstance(frame, str):
                raise ProtocolError("bad_frame", "frames must be binary (msgpack)")
            raw = decode(frame)
            rid = request_id(raw)
            request = validate_request(raw)
            if request["t"] != "hello" and not conn.name:
                raise ProtocolError("hello_first", "say hello first")
            HANDLERS[request["t"]](self, conn, request)
        except (ProtocolError, MoveError) as exc:
            if exc.code != "rate_limited" or conn.refused <= self.config.burst:
                conn.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))
            guessed = exc.code in ("wrong_password", "too_many_attempts")
            if guessed and conn.wrong_passwords >= self.config.guessing.tries:  # told, closed
                closing = conn.ws.close(CLOSE_GUESSING, "too many wrong passwords")
                asyncio.get_running_loop().create_task(closing)
            if exc.code not in ("rate_limited", "not_your_turn", "illegal_move"):
                log.info("%s: %s (%s)", conn.describe(), exc.code, exc.message)

    def after_change(self, table: Table, mover: Peer | None = None, rid: int | None = None) -> None:
        """Tell everyone at `table` of its change (`mover`'s state answers its request `rid`)
        and arm the table's timer for what is due next."""
        publish(table, mover, rid)
        self.pacer.arm(table)

    # -- requests --------------------------------------------------------------------------

    def on_hello(self, conn: Connection, request: dict[str, Any]) -> None:
        if conn.name:
            raise ProtocolError("bad_message", "hello: already said")
        right = self.config.password
        if right is not None:
            given = request.get("password", "")
            self._password(
                conn,
                self.server_guesses,
                lambda: hmac.compare_digest(given.encode(), right.encode()),
                "this server needs a password",
            )
        conn.name = request["name"]
        conn.send(server_messages.Welcome.of(SERVER_NAME, rid=request.get("rid")))

    def on_list(self, conn: Connection, request: dict[str, Any]) -> None:
        rows = tuple(self.lobby.listing())
        conn.send(server_messages.Tables(tables=rows, rid=request.get("rid")))

    def on_create(self, conn: Connection, request: dict[str, Any]) -> None:
        table = self.lobby.create(request)
        conn.send(server_messages.Created(table=table.id, rid=request.get("rid")))

    def on_join(self, conn: Connection, request: dict[str, Any]) -> None:
        table = self.lobby.find(request["table"])
        held = table.seat_of(conn)
        if held is not None:  # one connection, one seat: a second would be left away forever
            raise ProtocolError("seat_taken", f"you already sit at seat {held} of this table")
        self._table_password(conn, table, request.get("password"))
        table.check_join(request.get("seat"))  # refused: no change
        self._leave_current(conn)
        seat, token = table.join(conn, request.get("seat"))
        conn.table = table
        conn.send(
            server_messages.Joined(
                table=table.id,
                seat=seat,
                token=token,
                cards=table.deck.catalogue(),
                rid=request.get("rid"),
            )
        )
        replay_chat(table, conn)
        self.after_change(table)
        self.lobby.start_if_full(table)

    def on_resume(self, conn: Connection, request: dict[str, Any]) -> None:
        table, seat = self.lobby.find_seat(request["token"])
        if conn.table is not table:
            self._leave_current(conn)
        conn.table = table
        conn.send(
            server_messages.Joined(
                table=table.id,
                seat=seat,
                token=request["token"],
                cards=table.deck.catalogue(),
                rid=request.get("rid"),
            )
        )
        replay_chat(table, conn)
        replaced = table.resume(conn, seat)
        self.after_change(table)
        if isinstance(replaced, Connection):
            replaced.table = None
            asyncio.get_running_loop().create_task(
                replaced.ws.close(CLOSE_REPLACED, "seat resumed from another connection")
            )

    def on_watch(self, conn: Connection, request: dict[str, Any]) -> None:
        table = self.lobby.find(request["table"])
        policy = self.config.spectators
        if policy == "none":
            raise ProtocolError("no_spectators", "this server does not allow spectators")
        if table.password_hash is not None:
            if policy == "public":
                raise ProtocolError("no_spectators", "private tables cannot be watched here")
            self._table_password(conn, table, request.get("password"))
        self._leave_current(conn)
        conn.table = table
        conn.send(
            server_messages.Watching(
                table=table.id, cards=table.deck.catalogue(), rid=request.get("rid")
            )
        )
        replay_chat(table, conn)
        table.watch(conn)
        show(table, conn)

    def on_start(self, conn: Connection, request: dict[str, Any]) -> None:
        table, _ = self._seated(conn)
        table.start()
        self.after_change(table, conn, request.get("rid"))  # the starter's `state` is its reply

    def on_move(self, conn: Connection, request: dict[str, Any]) -> None:
        table, seat = self._seated(conn)
        table.move(seat, request["move"])
        self.after_change(table, conn, request.get("rid"))

    def on_hint(self, conn: Connection, request: dict[str, Any]) -> None:
        table, seat = self._seated(conn)
        conn.send(server_messages.Hint(move=hint(table, seat), rid=request.get("rid")))

    def on_chat(self, conn: Connection, request: dict[str, Any]) -> None:
        if conn.table is None:
            raise ProtocolError("not_seated", "join or watch a table to chat")
        if not conn.chat_limiter.allow():
            raise ProtocolError("rate_limited", "chatting too fast: wait a moment")
        conn.table.say(conn.name, request["text"])
        chat(conn.table, conn.name, request["text"])

    def on_leave(self, conn: Connection, request: dict[str, Any]) -> None:
        if conn.table is None:
            raise ProtocolError("not_seated", "you are at no table")
        table_id = conn.table.id
        self._leave_current(conn, for_good=True)
        conn.send(server_messages.Left(table=table_id, rid=request.get("rid")))

    def on_rematch(self, conn: Connection, request: dict[str, Any]) -> None:
        table, seat = self._seated(conn)
        table.vote_rematch(seat)
        self.after_change(table, conn, request.get("rid"))

    # -- passwords -------------------------------------------------------------------------

    def _table_password(self, conn: Connection, table: Table, given: str | None) -> None:
        if table.password_hash is not None:
            opens = table.password_opens
            self._password(
                conn, self.table_guesses, lambda: opens(given), "wrong password for this table"
            )

    def _password(
        self, conn: Connection, guesses: Attempts, right: Callable[[], bool], wrong: str
    ) -> None:
        """Go on if `right()`, else refuse with `wrong`. An address that guessed wrong too
        often must wait first (its try is refused unread), and a connection that gave too
        many wrong passwords is closed once told why (in dispatch)."""
        address = str((conn.ws.remote_address or ("?",))[0])
        wait = guesses.wait(address)
        if wait == 0 and right():
            guesses.succeeded(address)
            return
        conn.wrong_passwords += 1
        if wait > 0:
            raise ProtocolError(
                "too_many_attempts",
                f"too many wrong passwords from your address: try again in {math.ceil(wait)} s",
            )
        guesses.failed(address)
        raise ProtocolError("wrong_password", wrong)

    # -- helpers ---------------------------------------------------------------------------

    def _seated(self, conn: Connection) -> tuple[Table, int]:
        table = conn.table
        seat = None if table is None else table.seat_of(conn)
        if table is None or seat is None:
            raise ProtocolError("not_seated", "you hold no seat: join a table first")
        return table, seat

    def _leave_current(self, conn: Connection, for_good: bool = False) -> None:
        """Moving elsewhere keeps a seat (marked away, resumable); `leave` gives it up."""
        table, conn.table = conn.table, None
        if table is None:
            return
        if table.leave(conn) if for_good else table.disconnected(conn):
            self.after_change(table)


def _peek_rid(frame: bytes | str) -> int | None:
    """The rid of a frame refused unread (rate limited), if it has a readable one."""
    if isinstance(frame, str):
        return None
    try:
        return request_id(decode(frame))
    except ProtocolError:
        return None


# Request type -> GotherServer.on_<type>.
HANDLERS: dict[str, Callable[[GotherServer, Connection, dict[str, Any]], None]] = {
    name: getattr(GotherServer, f"on_{name}")
    for name in (
        "hello",
        "list",
        "create",
        "join",
        "resume",
        "watch",
        "start",
        "move",
        "chat",
        "hint",
        "leave",
        "rematch",
    )
}


async def run(config: ServerConfig, ready: Callable[[GotherServer], None] | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then close connections (1012) and flush the database."""
    server = GotherServer(config)
    await server.start()
    front_door = None
    if config.ssh is not None:
        from server.ssh import SshFrontDoor

        # the door's clients dial this server: they trust exactly its own certificate
        pin = certificate_fingerprint(config.certfile) if config.certfile else None
        front_door = SshFrontDoor(config.ssh, config.host, server.port, pin)
        front_door.ws_password = config.password
        try:
            await front_door.start()
        except BaseException:
            await server.close()
            raise
    try:
        announcer = await announce(config.host, server.port, bool(config.certfile), config.announce)
    except OSError as exc:  # no multicast on this interface…: serve anyway
        log.warning("cannot announce on the LAN: %s", exc)
        announcer = None
    if ready is not None:
        ready(server)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        if announcer is not None:
            await announcer.close()
        if front_door is not None:
            await front_door.close()
        await server.close()
