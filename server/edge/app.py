"""The websocket server, put together: the services a table needs, the handler groups given
each only the services it uses, and the server's start and close.

Like the websockets tutorial's Connect Four, the rules know nothing of the transport: a
connection's frames are read by the gate (gate.py), each turned into a typed request and
handed to its handler by the one `match` of dispatch.py, and a failure is an `error {rid,
code, message}` reply that changes nothing. After each change of a table its handler tells
everyone there (changes.py, server/tables/fanout.py), naming the connection whose request
it answers, and re-arms the table's timer (server/tables/pacer.py). The doors are none of
its business: they are clients like any other (server/serve.py starts them beside it).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from functools import partial
from pathlib import Path

from websockets.asyncio.server import Server, serve

from protocol import MAX_FRAME
from server.bots.registry import kind_of
from server.edge.attempts import Attempts
from server.edge.caps import Caps
from server.edge.changes import Changes
from server.edge.closes import CLOSE_RESTART
from server.edge.config import ServerConfig
from server.edge.connection import Connection
from server.edge.dispatch import Dispatch
from server.edge.doorkey import DoorKey, kept_key
from server.edge.elsewhere import Elsewhere, public_url
from server.edge.gate import Gate
from server.edge.handlers.arrival import ArrivalHandlers
from server.edge.handlers.finished import FinishedHandlers
from server.edge.handlers.standings import StandingsHandlers
from server.edge.handlers.table import TableHandlers
from server.edge.handlers.tournaments import TournamentHandlers
from server.edge.health import Asking, Counters, healthz, stats_line
from server.edge.identity import Names
from server.edge.limits import AcceptLog, descriptor_budget
from server.edge.passwords import Passwords
from server.edge.pauses import Pauses
from server.edge.quotas import Quotas
from server.edge.seating import Seating
from server.edge.tls import server_context
from server.ratings.host import HostStandings
from server.searches import Searches
from server.store.kinds import open_store
from server.store.tables import BrokenRecord, TableRecord
from server.tables.hint import Hints
from server.tables.lobby import Lobby
from server.tables.pacer import Pacer
from server.tables.play_on import PlayOns
from server.tables.records import Records
from server.tables.review import Reviews
from server.tables.table import Settings
from server.tournament.director import Director

log = logging.getLogger("gother.server")


class GotherServer:
    """The composition root: it builds the services and the handler groups, and owns the
    server's start and close. It answers no request itself."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store = open_store(config.db, config.table_log)
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
        # The timer and the lobby change tables too, and the director seats players: each is
        # told through a service built after it (a change told arms the timer again)
        self.pacer = Pacer(
            lambda table: self.changes.after_change(table),
            self.searches,
            ended=lambda table: self.changes.end_game(table),
            played=partial(self.counters.count, "moves"),  # bots' moves count as players'
        )
        self.hints = Hints(self.searches)
        self.lobby = Lobby(
            self.store.tables,
            self.store.outcomes,
            self.settings,
            changed=lambda table: self.changes.after_change(table),
            decks_dir=Path(config.decks_dir) if config.decks_dir else None,
            max_tables=config.max_tables,
            expire=config.expire,
        )
        # the tables the host's other processes hold (a PostgreSQL host's)
        directory = self.store.directory
        self.elsewhere = (
            None
            if directory is None
            else Elsewhere(
                directory,
                self.lobby.published,
                lambda: self.director.listing(),
                self.adopt,
                lambda free: self.director.restore(free),
                self.lost,
                lambda lost: self.director.let_go(lost),
                self.store.placed,
                lambda placement: self.director.spread.make_placed(placement).id,
                lambda: self.gate.connections,
                lambda tables: self.director.spread.gone_elsewhere(tables),
                lambda: self.director.news(),
            )
        )
        self.lobby.elsewhere = self.elsewhere
        self.names = Names(self.store.people, rules=config.names)
        for name in config.release_names:  # the host's word: this name is free again
            log.info("name %r released (%d keys)", name, self.names.release(name))
        self.records = Records(self.store.archive, config.record_share, config.record_burst)
        self.reviews = Reviews(self.store.archive, self.store.outcomes, self.searches)
        self.play_ons = PlayOns(self.store.archive, self.store.outcomes, self.searches)
        self.standings = HostStandings(config.db, self.store.outcomes, self.store.ended)
        self.director = Director(
            self.lobby,
            self.store.tournaments,
            self.store.people,
            self.store.outcomes,
            self.searches,
            lambda peer, table, seat, token: self.seating.seat_for_tournament(
                peer, table, seat, token
            ),
            self.standings.rating,
            config.tournament_entries_per_address,
            self.store.holds,
            self.store.placements,
        )
        self.standings.heard = self.director.spread.ended_elsewhere  # a placed table's end
        self.director.spread.present = self.present  # a placed table's players connected here
        self.changes = Changes(self.lobby, self.pacer, self.standings, self.names, self.director)
        self.seating = Seating(self.lobby, self.changes, self.pacer, self.director.resumed)
        # wrong passwords, per address and per secret: the server's, the tournaments', each
        # table's
        self.passwords = Passwords(Attempts(config.guessing))
        self.quotas = Quotas(config, self.lobby, self.names)
        # the doors sign their players' addresses with it: made for this run, or the host's
        # kept one, copied to the doors on other machines
        key_file = config.door_key_file
        self.door_key = DoorKey() if key_file is None else kept_key(Path(key_file))
        # connections that have not said hello yet, overall and by address
        before_hello = Caps(config.max_pending, address=config.pending_per_address)
        self.standings_handlers = StandingsHandlers(self.standings)
        self.dispatch = Dispatch(
            config,
            self.counters,
            self.changes,
            ArrivalHandlers(
                config.password,
                self.passwords,
                self.names,
                before_hello,
                self.lobby,
                self.director,
            ),
            TableHandlers(
                config.spectators,
                self.lobby,
                self.names,
                self.passwords,
                self.quotas,
                self.seating,
                self.changes,
                self.hints,
                self.counters,
            ),
            FinishedHandlers(
                config.spectators,
                self.lobby,
                self.store.archive,
                self.records,
                self.reviews,
                self.play_ons,
                self.passwords,
                self.quotas,
                self.seating,
            ),
            TournamentHandlers(
                config.tournament_password,
                self.passwords,
                self.names,
                self.director,
                self.changes,
            ),
            self.standings_handlers,
        )
        self.gate = Gate(
            config,
            self.door_key,
            self.counters,
            before_hello,
            self.dispatch.dispatch,
            self.seating,
            self.director,
        )
        self.server: Server | None = None
        self.chores: list[asyncio.Task[None]] = []

    # -- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        self.lobby.restore()
        self.director.restore()  # on the restored tables
        self.standings.start()  # after the restore, which stores an end it finds missing
        self.gate.max_connections = descriptor_budget(
            self.config.max_connections, self.config.max_pending
        )
        asyncio.get_running_loop().set_exception_handler(AcceptLog())
        self.server = await serve(
            self.gate.handle,
            self.config.host,
            self.config.port,
            ssl=self._ssl(),
            max_size=MAX_FRAME,
            compression=None,
            ping_interval=20,
            ping_timeout=20,
            open_timeout=self.config.hello_timeout,
            process_request=partial(healthz, self, Asking()),
            create_connection=self.gate.handshakes.connection_type(),
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
        if self.elsewhere is not None:
            c = self.config
            url = public_url(c.host, self.port, c.certfile is not None, c.public)
            self.chores.append(asyncio.create_task(self.elsewhere.run(url)))
            # the name a CA's certificate must cover: said, since clients check it
            log.info("the host's other processes send players here as %s", url)
        log.info("listening on %s", ", ".join(self.addresses()))

    def present(self, identity: str) -> Connection | None:
        """A connection here of `identity`'s between two games (a tournament's table
        placed here seats it at once), if any."""
        for conn in self.gate.connections:
            if conn.identity == identity and conn.between_games():
                return conn
        return None

    def lost(self) -> set[str]:
        """The tournaments this process runs whose locks it holds no more."""
        return set() if self.store.holds is None else self.store.holds.lost()

    def adopt(self, records: list[TableRecord | BrokenRecord]) -> None:
        """Tables taken over from a process of the host that died: they go on here."""
        tables = self.lobby.adopt(records)
        for table in tables:
            self.pacer.arm(table)  # as at a start: bot seats, absent players' cover, clocks
        self.director.adopted(tables)  # published with their tournaments' rounds next

    async def _every(self, seconds: float, chore: Callable[[], None]) -> None:
        while True:
            await asyncio.sleep(seconds)
            chore()

    def sweep(self) -> None:
        """Retire the tables nobody has been at for a while (server/tables/lobby.py)."""
        for table in self.lobby.sweep():
            self.pacer.disarm(table)

    @property
    def connections(self) -> set[Connection]:
        """The connections open now (the host's figures, server/edge/health.py)."""
        return self.gate.connections

    @property
    def pending(self) -> int:
        """Connections that have not said hello yet."""
        return self.gate.pending

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
        if self.elsewhere is not None:
            await self.elsewhere.close()
        self.pacer.close()
        self.hints.close()
        self.reviews.close()
        self.play_ons.close()
        self.director.close()
        await self.standings.close()
        self.standings_handlers.close()
        self.searches.close()
        self.store.close()
        log.info("server stopped")

    def _ssl(self) -> ssl.SSLContext | None:
        if not self.config.certfile:
            return None
        return server_context(self.config.certfile, self.config.keyfile)
