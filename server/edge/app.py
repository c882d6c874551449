"""The websocket server: one handler per connection, a short dispatch to the lobby's tables.

Like the websockets tutorial's Connect Four, the rules know nothing of the transport: this
module turns frames into typed requests (`protocol.requests`), each request into the calls
of its own handler, and failures into `error {rid, code, message}` replies that change
nothing. After each change of a table a handler tells everyone there
(server/tables/fanout.py), naming the connection whose request it answers, and re-arms the
table's timer (server/tables/pacer.py). The doors are none of its business: they are
clients like any other (server/serve.py starts them beside it).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import math
import ssl
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import assert_never

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import (
    MAX_FRAME,
    ProtocolError,
    decode,
    request_id,
    server_messages,
    validate_request,
)
from protocol import requests as rq
from protocol.constants import DOOR_HEADER
from protocol.version import software_version
from server.bots.registry import kind_of
from server.edge.attempts import Attempts
from server.edge.caps import OVERALL, Caps
from server.edge.config import ServerConfig
from server.edge.connection import Connection
from server.edge.doorkey import DoorKey, kept_key
from server.edge.handshakes import Handshakes
from server.edge.health import Asking, Counters, healthz, stats_line
from server.edge.identity import Names, identity_of, new_challenge, proves
from server.edge.limits import AcceptLog, descriptor_budget
from server.edge.pauses import Pauses
from server.edge.tls import server_context
from server.game import SPECTATOR, MoveError, Start
from server.ratelimit import TokenBucket
from server.ratings.host import HostStandings
from server.searches import Searches
from server.store.database import StoreError
from server.store.sqlite import SqliteStore
from server.store.tables import TableRecord
from server.tables.fanout import chat, close_table, publish, replay_chat, show, tell_story
from server.tables.hint import Hints
from server.tables.lobby import Lobby
from server.tables.outcome import Outcome
from server.tables.pacer import Pacer
from server.tables.passwords import check_password
from server.tables.play_on import PlayOns
from server.tables.records import Records
from server.tables.review import Reviews
from server.tables.table import Peer, Settings, StoreFailed, Table
from server.tournament.director import Director, Tournament

log = logging.getLogger("gother.server")
SERVER_NAME = f"gother {software_version()}"
# What a dear request costs of a connection's second budget (`costly_rate`, `costly_burst`):
# a `list`, a `watch` or a record part costs the server far more than a move.
COSTS: dict[type[rq.Request], int] = {
    rq.List: 5,
    rq.Watch: 5,
    rq.Create: 5,
    rq.Record: 2,  # a part of a kept record; a record made is charged its build too
    rq.Review: 5,
    rq.PlayOn: 5,
    rq.Standings: 5,
    rq.Join: 2,
    rq.Resume: 2,
    rq.Hint: 2,
    rq.TournamentCreate: 5,
    rq.TournamentWatch: 5,
}
CLOSE_POLICY = 1008  # said no hello in time
CLOSE_RESTART = 1012  # "service restart": the server is going down, come back later
CLOSE_TRY_LATER = 1013
CLOSE_REPLACED = 4000  # the seat was resumed from another connection
CLOSE_FLOOD = 4008  # kept sending after being told it was rate limited
CLOSE_GUESSING = 1008  # "policy violation": too many wrong passwords on one connection
# the secrets whose guesses are counted apart (server/edge/attempts.py), beside each table's
SERVER, TOURNAMENTS = "server", "tournaments"
# A connection's refusals the log says one by one; the rest it counts, in the line that says
# the connection closed: a fuzz's 100,000 refusals were as many lines, a tenth of its CPU.
REFUSALS_LOGGED = 10


class GotherServer:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store = SqliteStore(config.db)
        self.settings = Settings(
            grace=config.grace,
            bot_delay=config.bot_delay,
            heard_by=config.heard_by,
            idle=config.idle,
            cover_kind=kind_of(config.cover),
        )
        self.searches = Searches(config.search_workers, config.search_queue, config.search_wait)
        self.counters = Counters()
        self.pauses = Pauses()  # the loop's lag and the collector's pauses, for the host
        self.pacer = Pacer(
            self.after_change,
            self.searches,
            ended=self.end_game,
            played=partial(self.counters.count, "moves"),  # bots' moves count as players'
        )
        self.hints = Hints(self.searches)
        self.lobby = Lobby(
            self.store.tables,
            self.store.outcomes,
            self.settings,
            changed=self.after_change,
            decks_dir=Path(config.decks_dir) if config.decks_dir else None,
            max_tables=config.max_tables,
            expire=config.expire,
        )
        self.names = Names(self.store.people, rules=config.names)
        for name in config.release_names:  # the host's word: this name is free again
            log.info("name %r released (%d keys)", name, self.names.release(name))
        self.records = Records(self.store.tables, config.record_share, config.record_burst)
        self.reviews = Reviews(self.store.tables, self.store.outcomes, self.searches)
        self.play_ons = PlayOns(self.store.tables, self.store.outcomes, self.searches)
        self.standings = HostStandings(config.db, self.store.outcomes)
        self.director = Director(
            self.lobby,
            self.store.tournaments,
            self.store.people,
            self.store.outcomes,
            self.searches,
            self._seat_for_tournament,
            self.standings.rating,
            config.tournament_entries_per_address,
        )
        self.answering: set[asyncio.Task[None]] = set()  # standings asked during the rebuild
        self.connections: set[Connection] = set()
        self.max_connections = config.max_connections  # lowered at start to what fits
        # connections that have not said hello yet, overall and by address
        self.before_hello = Caps(config.max_pending, address=config.pending_per_address)
        # and before that, in the handshake: at most as many from one address as it may have
        self.handshakes = Handshakes(config.max_pending, config.max_per_address)
        self.by_address: Counter[str] = Counter()
        self.server: Server | None = None
        self.chores: list[asyncio.Task[None]] = []
        # wrong passwords, per address and per secret: SERVER, TOURNAMENTS, each table's
        self.guesses = Attempts(config.guessing)
        # the doors sign their players' addresses with it: made for this run, or the host's
        # kept one, copied to the doors on other machines
        key_file = config.door_key_file
        self.door_key = DoorKey() if key_file is None else kept_key(Path(key_file))

    # -- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        self.lobby.restore()
        self.director.restore()  # on the restored tables
        self.standings.start()  # after the restore, which stores an end it finds missing
        self.max_connections = descriptor_budget(
            self.config.max_connections, self.config.max_pending
        )
        asyncio.get_running_loop().set_exception_handler(AcceptLog())
        self.server = await serve(
            self.handle,
            self.config.host,
            self.config.port,
            ssl=self._ssl(),
            max_size=MAX_FRAME,
            compression=None,
            ping_interval=20,
            ping_timeout=20,
            open_timeout=self.config.hello_timeout,
            process_request=partial(healthz, self, Asking()),
            create_connection=self.handshakes.connection_type(),
        )
        for table in self.lobby.tables.values():
            self.pacer.arm(table)  # restored games go on: bot seats, absent players' cover, clocks
        self.chores = [
            self.pauses.start(),
            asyncio.create_task(self._every(self.config.sweep_every, self.sweep)),
            asyncio.create_task(
                self._every(self.config.stats_every, lambda: log.info(stats_line(self)))
            ),
        ]
        log.info("listening on %s", ", ".join(self.addresses()))

    async def _every(self, seconds: float, chore: Callable[[], None]) -> None:
        while True:
            await asyncio.sleep(seconds)
            chore()

    def sweep(self) -> None:
        """Retire the tables nobody has been at for a while (server/tables/lobby.py)."""
        for table in self.lobby.sweep():
            self.pacer.disarm(table)

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
        for chore in self.chores:
            chore.cancel()
        self.pacer.close()
        self.hints.close()
        self.reviews.close()
        self.play_ons.close()
        self.director.close()
        await self.standings.close()
        for task in self.answering:
            task.cancel()
        self.searches.close()
        self.store.close()
        log.info("server stopped")

    def _ssl(self) -> ssl.SSLContext | None:
        if not self.config.certfile:
            return None
        return server_context(self.config.certfile, self.config.keyfile)

    # -- connections ------------------------------------------------------------------------

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
        refusal = self._refusal(conn)
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
            self._stop_watching(conn)
            self._away_from_seat(conn)
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

    def _refusal(self, conn: Connection) -> str | None:
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
            if not isinstance(request, rq.Hello) and not conn.name:
                raise ProtocolError("hello_first", "say hello first")
            cost = COSTS.get(type(request))
            if cost is not None and not conn.costly.allow(cost):
                what = type(request).__struct_config__.tag
                raise ProtocolError("rate_limited", f"too many {what} requests: slow down")
            self.answer(conn, request)
        except (ProtocolError, MoveError) as exc:
            self.counters.count("errors")
            if exc.code != "rate_limited" or conn.refused <= self.config.burst:
                conn.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))
            guessed = exc.code in ("wrong_password", "too_many_attempts")
            if guessed and conn.wrong_passwords >= self.config.guessing.tries:  # told, closed
                closing = conn.ws.close(CLOSE_GUESSING, "too many wrong passwords")
                asyncio.get_running_loop().create_task(closing)
            if exc.code not in ("rate_limited", "busy", "not_your_turn", "illegal_move"):
                conn.refusals += 1
                if conn.refusals <= REFUSALS_LOGGED:
                    log.info("%s: %s (%s)", conn.describe(), exc.code, exc.message)
            if isinstance(exc, StoreFailed) and exc.table is not None:
                self.after_change(exc.table)  # everyone there hears that the table stopped
        except Exception:  # a bug of ours: logged whole, and the request answered all the same
            log.exception("%s: a request failed on the server", conn.describe())
            self.counters.count("errors")
            message = "the server failed on this request (its log says where): ask again later"
            conn.send(server_messages.Error(code="server_error", message=message, rid=rid))

    def after_change(self, table: Table, mover: Peer | None = None, rid: int | None = None) -> None:
        """Tell everyone at `table` of its change (`mover`'s state answers its request `rid`)
        and arm the table's timer for what is due next."""
        publish(table, mover, rid)
        self.pacer.arm(table)
        if table.outcome is not None:
            self.standings.game_over(table.outcome)
            self._names_played(table, table.outcome)
        tournament = self.director.table_changed(table)  # a game over may end a round
        if tournament is not None:
            self.director.tell(tournament)

    def _names_played(self, table: Table, outcome: Outcome) -> None:
        """A game played to its end: its players own their names (server/edge/identity.py)."""
        for holder, result in zip(table.seats, outcome.seats, strict=True):
            if holder is not None and holder.identity is not None:
                self.names.played(holder.name, holder.identity, holder.address, result.share)

    # -- requests --------------------------------------------------------------------------

    def answer(self, conn: Connection, request: rq.Request) -> None:
        """Hand `request` to the handler of its type: one for each type of the protocol's
        `Request` (mypy holds the match whole: a type added there and not here fails it)."""
        match request:
            case rq.Hello():
                self.on_hello(conn, request)
            case rq.Prove():
                self.on_prove(conn, request)
            case rq.List():
                self.on_list(conn, request)
            case rq.Create():
                self.on_create(conn, request)
            case rq.Join():
                self.on_join(conn, request)
            case rq.Resume():
                self.on_resume(conn, request)
            case rq.Watch():
                self.on_watch(conn, request)
            case rq.Start():
                self.on_start(conn, request)
            case rq.Play():
                self.on_play(conn, request)
            case rq.Chat():
                self.on_chat(conn, request)
            case rq.Hint():
                self.on_hint(conn, request)
            case rq.Leave():
                self.on_leave(conn, request)
            case rq.Rematch():
                self.on_rematch(conn, request)
            case rq.Pause():
                self.on_pause(conn, request)
            case rq.End():
                self.on_end(conn, request)
            case rq.Record():
                self.on_record(conn, request)
            case rq.Review():
                self.on_review(conn, request)
            case rq.PlayOn():
                self.on_play_on(conn, request)
            case rq.TournamentCreate():
                self.on_tournament_create(conn, request)
            case rq.TournamentJoin():
                self.on_tournament_join(conn, request)
            case rq.TournamentStart():
                self.on_tournament_start(conn, request)
            case rq.TournamentDrop():
                self.on_tournament_drop(conn, request)
            case rq.TournamentWatch():
                self.on_tournament_watch(conn, request)
            case rq.Standings():
                self.on_standings(conn, request)
            case _:
                assert_never(request)

    def on_hello(self, conn: Connection, request: rq.Hello) -> None:
        if conn.name:
            raise ProtocolError("bad_message", "hello: already said")
        if conn.bad_door is not None:  # a claim of an address this server's doors never made
            raise conn.bad_door
        right = self.config.password
        if right is not None:
            given = request.password or ""
            self._password(
                conn,
                SERVER,
                lambda: hmac.compare_digest(given.encode(), right.encode()),
                "wrong password" if given else "this server needs a password",
            )
        # A name another identity owns is refused now, not at a first join: a key's identity
        # is its hash, known before the proof (naming the owner's public key gets one past
        # here, but never proved, it sits under the name nowhere)
        self.names.check(request.name, None if request.key is None else identity_of(request.key))
        conn.name = request.name
        conn.key = request.key
        conn.challenge = None if conn.key is None else new_challenge()
        self.before_hello.release(conn)
        welcome = server_messages.Welcome.of(SERVER_NAME, request.rid, conn.challenge)
        conn.send(welcome)

    def on_prove(self, conn: Connection, request: rq.Prove) -> None:
        key, challenge = conn.key, conn.challenge
        if key is None or challenge is None:
            raise ProtocolError("bad_message", "prove: no key to prove (say it in hello, once)")
        conn.challenge = None  # one try a challenge: a forger cannot keep guessing
        if not proves(key, challenge, request.signature):
            raise ProtocolError(
                "bad_signature", "that signature does not prove your key: you play anonymously"
            )
        conn.identity = identity_of(key)
        held = tuple(
            server_messages.HeldSeat(table=table.id, seat=seat)
            for table, seat in self.lobby.held_by(conn.identity)
        )
        conn.send(server_messages.Proven(identity=conn.identity, seats=held, rid=request.rid))

    def on_list(self, conn: Connection, request: rq.List) -> None:
        rows, total = self.lobby.listing(request.offset)
        conn.send(
            server_messages.Tables(
                tables=tuple(rows),
                offset=request.offset,
                total=total,
                tournaments=self.director.listing(),
                rid=request.rid,
            )
        )

    def on_create(self, conn: Connection, request: rq.Create) -> None:
        c = self.config
        self.lobby.check_quota(
            conn, conn.address_key, c.tables_per_connection, c.tables_per_address
        )
        table = self.lobby.create(request, conn, conn.address_key)
        conn.send(server_messages.Created(table=table.id, rid=request.rid))

    def on_join(self, conn: Connection, request: rq.Join) -> None:
        table = self.lobby.find(request.table)
        held = table.seat_of(conn)
        if held is not None:  # one connection, one seat: a second would be left away forever
            raise ProtocolError("seat_taken", f"you already sit at seat {held} of this table")
        mine = None if conn.identity is None else table.seat_for_identity(conn.identity)
        if mine is not None:  # this person's seat already: back in it, no token asked
            self._resume(conn, table, mine, table.new_token(mine), request.rid)
            return
        self._table_password(conn, table, request.password)
        table.check_join(request.seat)  # refused: no change
        table.check_name(conn.name, conn)
        self.names.check(conn.name, conn.identity)
        self._check_seat_quota(conn)
        self._sit(conn, table, request.seat, request.rid)

    def _sit(
        self, conn: Connection, table: Table, seat: int | None, rid: int | None, deal: bool = False
    ) -> None:
        """Seat `conn` at `table` (every check passed) and tell it, and everyone there; with
        `deal`, bots take the other seats and the game begins first (a table played on: its
        first `state` is the position, not an empty lobby)."""
        self._away_from_seat(conn)  # one seat played at a time: the former one waits, away
        if conn.watched is table:  # a spectator sitting down: one role at a table
            self._stop_watching(conn)
        seat, token = table.join(conn, seat, conn.identity)
        holder = table.seats[seat]
        assert holder is not None
        holder.address = conn.address_key
        conn.taken.append(holder)
        conn.seated = table
        conn.at(table)
        conn.send(
            server_messages.Joined(
                table=table.id,
                seat=seat,
                token=token,
                cards=table.deck.catalogue(),
                rid=rid,
            )
        )
        replay_chat(table, conn)
        if deal:  # the game begins before its story is told: no lobby to wait in
            with contextlib.suppress(StoreFailed):  # answered: the table says it stopped
                table.start()
        tell_story(table, conn, seat)
        self.after_change(table)
        self.lobby.start_if_full(table)

    def on_resume(self, conn: Connection, request: rq.Resume) -> None:
        token = request.token
        if token is not None:
            table, seat = self.lobby.find_seat(token)
        else:
            assert request.table is not None  # the one or the other (Resume.check)
            table, seat = self._held_seat(conn, request.table)
            token = table.new_token(seat)
        self._resume(conn, table, seat, token, request.rid)

    def _held_seat(self, conn: Connection, table_id: str) -> tuple[Table, int]:
        """The seat this connection's proven identity holds at `table_id`."""
        if conn.identity is None:
            raise ProtocolError("bad_token", "prove your key to resume by table, or give a token")
        table = self.lobby.find(table_id)
        seat = table.seat_for_identity(conn.identity)
        if seat is None:
            raise ProtocolError("bad_token", f"you hold no seat at table {table_id!r}")
        return table, seat

    def _resume(
        self, conn: Connection, table: Table, seat: int, token: str, rid: int | None
    ) -> None:
        """Give `seat` back to `conn`, which holds `token` for it."""
        if conn.seated is not table:
            self._away_from_seat(conn)
        if conn.watched is table:  # `table.resume` takes it from the spectators
            conn.watched = None
        conn.seated = table
        conn.at(table)
        conn.send(
            server_messages.Joined(
                table=table.id,
                seat=seat,
                token=token,
                cards=table.deck.catalogue(),
                covered_rounds=self.pacer.covered_rounds(table, seat),
                rid=rid,
            )
        )
        replay_chat(table, conn)
        tell_story(table, conn, seat)
        replaced = table.resume(conn, seat)
        holder = table.seats[seat]
        assert holder is not None
        holder.address = conn.address_key  # where it plays from now (a restart forgot it)
        self.after_change(table)
        if isinstance(replaced, Connection):
            replaced.gone_from(table)
            asyncio.get_running_loop().create_task(
                replaced.ws.close(CLOSE_REPLACED, "seat resumed from another connection")
            )

    def on_watch(self, conn: Connection, request: rq.Watch) -> None:
        table = self.lobby.find(request.table)
        policy = self.config.spectators
        if policy == "none":
            raise ProtocolError("no_spectators", "this server does not allow spectators")
        if table.password_hash is not None:
            if policy == "public":
                raise ProtocolError("no_spectators", "private tables cannot be watched here")
            self._table_password(conn, table, request.password)
        if table in (conn.watched, conn.seated):  # watched or played already: a no-op
            conn.send(server_messages.Watching(table=table.id, cards=(), rid=request.rid))
            return
        self._stop_watching(conn)  # one table watched at a time; a seat stays played
        conn.watched = table
        conn.at(table)
        conn.send(
            server_messages.Watching(table=table.id, cards=table.deck.catalogue(), rid=request.rid)
        )
        replay_chat(table, conn)
        tell_story(table, conn, SPECTATOR)
        table.watch(conn)
        show(table, conn)

    def on_start(self, conn: Connection, request: rq.Start) -> None:
        table, _ = self._seated(conn, request)
        table.start()
        self.after_change(table, conn, request.rid)  # the starter's `state` is its reply

    def on_play(self, conn: Connection, request: rq.Play) -> None:
        table, seat = self._seated(conn, request)
        table.move(seat, request.move)
        self.counters.count("moves")
        self.after_change(table, conn, request.rid)

    def on_hint(self, conn: Connection, request: rq.Hint) -> None:
        table, seat = self._seated(conn, request)
        self.hints.ask(table, seat, conn, request.rid)  # answered when thought

    def on_chat(self, conn: Connection, request: rq.Chat) -> None:
        table = self._present(conn, request, "join or watch a table to chat")
        if not conn.chat_limiter.allow():
            raise ProtocolError("rate_limited", "chatting too fast: wait a moment")
        chat(table, conn, table.say(conn, request.text), request.rid)  # its copy answers

    def on_leave(self, conn: Connection, request: rq.Leave) -> None:
        table = self._present(conn, request, "you are at no table")
        if table.leave(conn):  # StoreFailed: still seated, nothing changed
            self.after_change(table)
        conn.gone_from(table)
        conn.send(server_messages.Left(table=table.id, rid=request.rid))

    def on_rematch(self, conn: Connection, request: rq.Rematch) -> None:
        table, seat = self._seated(conn, request)
        table.vote_rematch(seat)
        self.after_change(table, conn, request.rid)

    def on_pause(self, conn: Connection, request: rq.Pause) -> None:
        table, seat = self._seated(conn, request)
        table.vote_pause(seat, request.on)
        self.after_change(table, conn, request.rid)

    def on_end(self, conn: Connection, request: rq.End) -> None:
        table, seat = self._seated(conn, request)
        if not table.vote_end(seat):
            self.after_change(table, conn, request.rid)
            return
        try:
            self.end_game(table, conn, request.rid)
        except StoreError as exc:
            raise ProtocolError("store_failed", f"the game cannot be ended now ({exc})") from None

    def end_game(self, table: Table, closer: Peer | None = None, rid: int | None = None) -> None:
        """Every voter wants the game ended: archive the table and tell everyone there; the
        deciding voter's copy answers its request `rid` (StoreError: it goes on as it was)."""
        self.lobby.retire(table, "the players ended the game")
        self.pacer.disarm(table)
        for listener in close_table(table, "the players ended the game", closer, rid):
            if isinstance(listener, Connection):
                listener.gone_from(table)
        tournament = self.director.table_gone(table)  # a round waits on it no more
        if tournament is not None:
            self.director.tell(tournament)

    def on_record(self, conn: Connection, request: rq.Record) -> None:
        """A finished game's record, one part per request (server/tables/records.py)."""
        table_id, game_no = self._finished_game(conn, request)
        part = self.records.part(
            table_id, game_no, request.part, request.rid, conn.costly, request.seat
        )
        conn.send(part)

    def on_review(self, conn: Connection, request: rq.Review) -> None:
        """A seat's decisions in a finished game, judged (server/tables/review.py): answered when
        thought. Whoever may see the game's record may see its reviews."""
        table_id, game_no = self._finished_game(conn, request)
        self.reviews.ask(table_id, game_no, request.seat, conn, request.rid)

    def on_play_on(self, conn: Connection, request: rq.PlayOn) -> None:
        """A new table of the asker's, its game played on from a turn of a finished game as a
        seat knew it (server/tables/play_on.py): answered with `joined` once the start is sampled.
        Whoever may see the game's record may play on from it; quotas as for `create`. What
        is counted in memory is checked before what is read from the store: a flood of them
        from many addresses once held an honest table's p95 at ten times its pace."""
        self.play_ons.check_free(conn)
        self._check_room_to_play_on(conn)
        table_id, game_no = self._finished_game(conn, request)
        bot_kind = kind_of(request.bot or self.store.tables.table(table_id).bot_kind)

        def seat_there(source: TableRecord, seat: int, start: Start, seed: int) -> None:
            if conn.ws.state is not State.OPEN:
                return  # gone while it was thought: no table for someone not here
            self._check_room_to_play_on(conn)  # again: a table may have been made meanwhile
            table = self.lobby.play_on(
                source, request.turn, start, seed, bot_kind, conn, conn.address_key
            )
            # bots take the other seats and the game begins at its start before anyone is
            # told: a played-on table never shows a lobby to wait in
            self._sit(conn, table, seat, request.rid, deal=True)

        self.play_ons.ask(
            table_id, game_no, request.seat, request.turn, conn, request.rid, seat_there
        )

    def _check_room_to_play_on(self, conn: Connection) -> None:
        """A played-on table counts as a created table and its seat as a seat taken."""
        c = self.config
        self.lobby.check_quota(
            conn, conn.address_key, c.tables_per_connection, c.tables_per_address
        )
        self._check_seat_quota(conn)
        self.names.check(conn.name, conn.identity)  # the one that reads the store

    # -- tournaments (server/tournament/) ---------------------------------------------------

    def on_tournament_create(self, conn: Connection, request: rq.TournamentCreate) -> None:
        right = self.config.tournament_password
        if right is None:
            raise ProtocolError(
                "no_tournaments", "this server runs no tournaments (its host has not allowed any)"
            )
        given = request.password or ""
        self._password(
            conn,
            TOURNAMENTS,
            lambda: hmac.compare_digest(given.encode(), right.encode()),
            "creating a tournament needs the host's password for it",
        )
        if request.play:  # refused before anything is made
            self.names.check(conn.name, conn.identity)
        tournament = self.director.create(conn, request)
        secret = self._register(conn, tournament) if request.play else None
        conn.send(self.director.message(tournament, request.rid, secret))

    def on_tournament_join(self, conn: Connection, request: rq.TournamentJoin) -> None:
        tournament = self.director.find(request.tournament)
        secret = self._register(conn, tournament, request.secret)
        self.director.tell(tournament, conn, request.rid, secret)

    def _register(
        self, conn: Connection, tournament: Tournament, secret: str | None = None
    ) -> str | None:
        """Register `conn`'s player; the secret of a new anonymous entry (theirs alone)."""
        self.names.check(conn.name, conn.identity)  # its player sits under the name
        return self.director.register(tournament, conn, secret)

    def on_tournament_start(self, conn: Connection, request: rq.TournamentStart) -> None:
        tournament = self.director.find(request.tournament)
        self.director.start(tournament, conn, request.rid)  # answered once seated

    def on_tournament_drop(self, conn: Connection, request: rq.TournamentDrop) -> None:
        tournament = self.director.find(request.tournament)
        given_up = self.director.drop(tournament, conn)
        if given_up is not None:  # a bot plays the seat on: everyone there hears it
            table, was_at = given_up
            if isinstance(was_at, Connection):  # told its seat is gone, as by `leave`
                was_at.gone_from(table)
                was_at.send(server_messages.Left(table=table.id))
            self.after_change(table)
        self.director.tell(tournament, conn, request.rid)

    def on_tournament_watch(self, conn: Connection, request: rq.TournamentWatch) -> None:
        tournament = self.director.find(request.tournament)
        tournament.watchers.add(conn)
        conn.send(self.director.message(tournament, request.rid))

    def _seat_for_tournament(self, peer: Peer, table: Table, seat: int, token: str) -> None:
        """The director seated a connected player: they move to that table, told its seat."""
        assert isinstance(peer, Connection)
        if peer.seated is not table:
            self._away_from_seat(peer)  # one seat played at a time: the former one waits
        if peer.watched is table:
            self._stop_watching(peer)
        holder = table.seats[seat]
        assert holder is not None
        holder.address = peer.address_key
        peer.seated = table
        peer.at(table)
        peer.send(
            server_messages.Joined(
                table=table.id, seat=seat, token=token, cards=table.deck.catalogue()
            )
        )

    def on_standings(self, conn: Connection, request: rq.Standings) -> None:
        """A page of the host's standings (server/ratings/), once they are rebuilt."""
        offset, rid = request.offset, request.rid
        if not self.standings.rebuilding:
            conn.send(self.standings.page(offset, rid))
            return
        task = asyncio.get_running_loop().create_task(self._standings_later(conn, offset, rid))
        self.answering.add(task)
        task.add_done_callback(self.answering.discard)

    async def _standings_later(self, conn: Connection, offset: int, rid: int | None) -> None:
        await self.standings.when_rebuilt()
        try:
            conn.send(self.standings.page(offset, rid))
        except ProtocolError as exc:
            conn.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))

    # -- passwords -------------------------------------------------------------------------

    def _table_password(self, conn: Connection, table: Table, given: str | None) -> None:
        if table.password_hash is not None:
            opens = table.password_opens
            secret, wrong = _table_secret(table.id), _wrong_for_table(given)
            self._password(conn, secret, lambda: opens(given), wrong)

    def _password(
        self, conn: Connection, secret: str, right: Callable[[], bool], wrong: str
    ) -> None:
        """Go on if `right()` (the password for `secret`), else refuse with `wrong`. An
        address that guessed wrong too often must wait first (its try is refused unread), and
        a connection that gave too many wrong passwords is closed once told why (in dispatch)."""
        address, guesses = conn.address or "?", self.guesses
        wait = guesses.wait(address, secret)
        if wait == 0 and right():
            guesses.succeeded(address, secret)
            return
        conn.wrong_passwords += 1
        if wait > 0:
            raise ProtocolError(
                "too_many_attempts",
                f"too many wrong passwords from your address: try again in {math.ceil(wait)} s",
            )
        guesses.failed(address, secret)
        wait = guesses.wait(address, secret)  # a player told to wait does not spend a try in vain
        if wait:
            wrong += f": try again in {math.ceil(wait)} s"
        raise ProtocolError("wrong_password", wrong)

    # -- helpers ---------------------------------------------------------------------------

    def _finished_game(self, conn: Connection, request: rq.Finished) -> tuple[str, int]:
        """(table, game) of a request about a finished game (`record`, `review`, `play_on`),
        once the asker may see it: at the table, or as a record may be seen; the table's
        newest game when none is named."""
        table_id = request.table
        self.lobby.check_not_broken(table_id)  # its rows cannot be read: nor its records
        live = self.lobby.tables.get(table_id)
        if live is None or live not in (conn.seated, conn.watched):
            self._check_may_see(conn, table_id, request.password)
        game_no = request.game
        if game_no is None:
            game_no = (
                live.game_no if live is not None else self.store.tables.table(table_id).game_no
            )
        return table_id, game_no

    def _check_may_see(self, conn: Connection, table_id: str, password: str | None) -> None:
        """Whoever may watch a table may see its finished games (live or archived)."""
        if not self.store.tables.has_table(table_id):
            raise ProtocolError("no_such_table", f"there is no table {table_id!r}")
        policy = self.config.spectators
        if policy == "none":
            raise ProtocolError("no_spectators", "this server shows games to their players only")
        password_hash = self.store.tables.table(table_id).password_hash
        if password_hash is not None:
            if policy == "public":
                raise ProtocolError("no_spectators", "private tables cannot be watched here")
            self._password(
                conn,
                _table_secret(table_id),
                lambda: check_password(password or "", password_hash)[0],
                _wrong_for_table(password),
            )

    def _check_seat_quota(self, conn: Connection) -> None:
        """A connection, and an address, may hold only so many seats in games not over:
        squatting every seat of every table takes more than a few connections."""
        held = [
            holder
            for table in self.lobby.tables.values()
            if table.game is None or not table.game.over
            for holder in table.seats
            if holder is not None and holder.token_hash is not None
        ]
        conn.taken = [s for s in conn.taken if any(s is h for h in held)]
        if len(conn.taken) >= self.config.seats_per_connection:
            raise ProtocolError("too_many_seats", "this connection holds enough seats")
        if sum(h.address == conn.address_key for h in held) >= self.config.seats_per_address:
            raise ProtocolError("too_many_seats", "your address holds enough seats")

    def _seated(self, conn: Connection, request: rq.AtTable) -> tuple[Table, int]:
        """The table and seat a seat's request acts on: the table it names, else the one
        where this connection plays its seat (whatever it watches meanwhile)."""
        table = conn.seated
        seat = None if table is None else table.seat_of(conn)
        named = request.table
        if named is not None and (table is None or table.id != named):
            raise ProtocolError("not_seated", f"you hold no seat at table {named!r}")
        if table is None or seat is None:
            raise ProtocolError("not_seated", "you hold no seat: join a table first")
        return table, seat

    def _present(self, conn: Connection, request: rq.AtTable, nowhere: str) -> Table:
        """The table a `chat` or `leave` acts on: the one it names (played or watched),
        else the one this connection joined, resumed or watched last."""
        named = request.table
        if named is None:
            if conn.last is None:
                raise ProtocolError("not_seated", nowhere)
            return conn.last
        for table in (conn.seated, conn.watched):
            if table is not None and table.id == named:
                return table
        raise ProtocolError("not_seated", f"you neither sit at nor watch table {named!r}")

    def _away_from_seat(self, conn: Connection) -> None:
        """Going to another seat (or going) keeps the seat, marked away and resumable;
        `leave` gives it up."""
        table = conn.seated
        if table is not None:
            conn.gone_from(table)
            if table.disconnected(conn):
                self.after_change(table)

    def _stop_watching(self, conn: Connection) -> None:
        table = conn.watched
        if table is not None:
            conn.gone_from(table)
            table.spectators.discard(conn)


def _table_secret(table_id: str) -> str:
    """A table's password, as the guesses count it: each table's its own."""
    return f"table {table_id}"


def _wrong_for_table(given: str | None) -> str:
    return "wrong password for this table" if given else "this table needs a password"


def _peek_rid(frame: bytes | str) -> int | None:
    """The rid of a frame refused unread (rate limited), if it has a readable one."""
    if isinstance(frame, str):
        return None
    try:
        return request_id(decode(frame))
    except ProtocolError:
        return None
