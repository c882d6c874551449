"""The tables the host's other game processes hold (issue 34 §2; docs/architecture.md,
"Several processes of one host"): with PostgreSQL, each process publishes its live tables'
`list` rows and where its players connect every RENEW seconds, and reads back the others'
after each, and at once when another says its own changed (LISTEN/NOTIFY). A row carries
the seats identities hold at its table, so `proven` at any process says every seat of the
host; an older process reads the row alone. Each renewal it also takes the tables of a
process of this machine that died (issue 34 §3, server/store/takeover.py), restores them
here and publishes them at once; and it offers the director the stored tournaments no
process runs, whose runner died (server/store/holds.py): one whose round's tables were
taken over here goes on here. First it asks which locks of the tournaments it runs were
lost with their connection: it lets go of those at once, and they are offered again. After
each read it makes the tables of tournaments' rounds placed here by their runners (server/
store/placements.py), publishes them, and answers each with the table made; and it calls
each player connected here to a tournament's table another process holds for them (an
unsolicited `error elsewhere`), and tells the director's spread (server/tournament/spread.py)
which tables left the others' rows.
A runner publishes too the `tournament` message each of its tournaments last sent (`news:ID`
rows): a process reading a changed one sends it to its own connections of that tournament's
players, who hear its standings wherever their tables are.

PostgreSQL is used from a thread, on the directory's own connections: the game's loop never
waits on it, and `list` pages through what was read last.
A process that cannot reach PostgreSQL keeps what it read until the others' leases would
have lapsed, then lists its own tables only.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TypeVar
from urllib.parse import urlsplit

import msgspec

from protocol import ProtocolError
from protocol.server_messages import Error, TableRow, Tournament, TournamentRow
from server.edge.connection import Connection
from server.store.database import StoreError, StoreUnavailable
from server.store.directory import LEASE, Directory
from server.store.placements import Placement, Placements
from server.store.tables import BrokenRecord, TableRecord
from server.tables.players import PlayerId, identity_in

log = logging.getLogger("gother.server")
T = TypeVar("T")

RENEW = 2.0  # seconds between two renewals of the lease (a fifth of it)
Held = tuple[tuple[str, int], ...]  # the seats identities hold at a table: (identity, seat)
TOURNAMENT = "tournament:"  # a tournament's row, beside the tables' (whose ids have no colon)
NEWS = "news:"  # what a tournament's runner last told its players: the `tournament` frame
WILDCARDS = ("", "0.0.0.0", "::")  # a host that listens everywhere is known by its name


def public_url(host: str, port: int, tls: bool, public: str | None = None) -> str:
    """Where this process's players connect: `public` (`--public URL`, its port 0 this
    process's own `port`, as `--processes` gives it), else this machine's name and `port`."""
    if public is not None:
        parts = urlsplit(public)
        if parts.port != 0:
            return public
        host, tls = parts.hostname or "", parts.scheme == "wss"
    name = socket.getfqdn() if host in WILDCARDS else host
    if ":" in name:  # an IPv6 address
        name = f"[{name}]"
    return f"{'wss' if tls else 'ws'}://{name}:{port}"


class Published(TableRow, frozen=True):
    """A row as the others read it: with its identities' seats and the tournament whose
    round it seats, never sent to a client."""

    held: Held = ()
    tournament: str | None = None
    round: int = 0


class Holders(msgspec.Struct, frozen=True):
    """What of a published row is not listed: the seats identities hold there, and the
    tournament and round it seats (its players are called to it)."""

    held: Held = ()
    tournament: str | None = None
    round: int = 0


Adopt = Callable[[list[TableRecord | BrokenRecord]], None]
Free = Callable[[set[str]], None]  # tournaments no process runs: run here, if it may
Lost = Callable[[], set[str]]  # the tournaments run here whose locks were lost (in a thread)


class Elsewhere:
    def __init__(
        self,
        directory: Directory,
        here: Callable[[], Sequence[tuple[TableRow, Held, tuple[str, int] | None]]],
        running: Callable[[], Sequence[TournamentRow]],
        adopt: Adopt,
        free: Free,
        lost: Lost,
        let_go: Callable[[set[str]], None],
        placed: Placements | None = None,
        make: Callable[[Placement], str] | None = None,
        connections: Callable[[], Iterable[Connection]] = tuple,
        gone: Callable[[set[str]], None] = lambda tables: None,
        news: Callable[[], dict[str, bytes]] = dict,
    ) -> None:
        self.directory = directory
        self.here = here  # this process's rows, as its own `list` shows them, and who sits
        self.running = running  # the tournaments this process runs, as `list` shows them
        self.adopt = adopt  # tables taken over: restored here (on the loop)
        self.free = free  # tournaments no process runs: the director's to take (on the loop)
        self.lost = lost  # those run here whose locks were lost
        self.let_go = let_go  # stop running them (on the loop)
        self.placed = placed  # tournaments' tables placed here (the directory's connection)
        self.make = make  # make one (on the loop): the table's id
        self.connections = connections  # the players connected here: called to their tables
        self.gone = gone  # tables listed at another process no more (on the loop)
        self.news = news  # the `tournament` frame each tournament run here last sent
        self.unanswered: dict[tuple[str, int, int], str] = {}  # made here, not yet said so
        self.read_now = asyncio.Event()  # set as the others' rows are read, then made anew
        self.publishing = asyncio.Lock()
        self.using = asyncio.Lock()  # the directory's connection: one call at a time
        self.soon: set[asyncio.Task[None]] = set()  # publishes asked for between renewals
        self.asked = False  # one of them has not yet looked at what to publish
        self.url = ""  # where this process is: set as it starts listening
        self.published: dict[str, bytes] = {}  # what PostgreSQL holds of ours
        self.fresh = True  # our rows of a former run are still there
        self.tables: list[TableRow] = []  # the others', as last read
        self.urls: dict[str, str] = {}  # their table ids: where each lives
        self.seats: dict[str, list[tuple[str, int]]] = {}  # identities' seats there
        # identities' seats at tournaments' tables there, games not over: (table id, URL,
        # tournament, round)
        self.calls: dict[str, list[tuple[str, str, str, int]]] = {}
        # (identity, tournament): the newest round whose table there it holds a seat at
        self.newest: dict[tuple[str, str], int] = {}
        self.tournaments: list[TournamentRow] = []  # the tournaments the others run
        self.runners: dict[str, str] = {}  # their ids: where each is run
        self.decoded: dict[str, tuple[bytes, TableRow, Holders]] = {}  # rows as last read
        # the others' tournaments' news as last read: the frame, its players' identities
        self.heard: dict[str, tuple[bytes, frozenset[str]]] = {}
        self.read_at = -math.inf  # when they were read (monotonic)
        self.failing = False

    def where(self, table_id: str) -> str | None:
        """The URL of the process holding `table_id`, if another one does."""
        return self.urls.get(table_id)

    def held_by(self, identity: str) -> list[tuple[str, int]]:
        """The seats (table id, seat) `identity` holds at the other processes."""
        return self.seats.get(identity, [])

    def runs(self, tournament_id: str) -> str | None:
        """The URL of the process running `tournament_id`, if another one does (one over:
        while its news is still published, server/tournament/director.py's TOLD_KEPT)."""
        return self.runners.get(tournament_id)

    async def run(self, url: str) -> None:
        """Renew the lease and publish every RENEW seconds; read the others' rows after
        each, and whenever they say theirs changed."""
        self.url = url
        due = -math.inf  # the next renewal
        while True:
            if time.monotonic() >= due:
                await self.publish()
                await self.take()
                await self.follow()
                due = time.monotonic() + RENEW
            await self.read()
            await self.make_placed()
            self.call()
            self.read_now.set()  # whoever waits on a read looks again
            self.read_now = asyncio.Event()
            await asyncio.to_thread(self.directory.heard, max(0.0, due - time.monotonic()))

    async def read_again(self) -> None:
        """Until the others' rows are read again (woken, or a renewal)."""
        await self.read_now.wait()

    async def publish(self) -> None:
        """Renew the lease, and write what changed here (one publish at a time: what
        PostgreSQL holds of ours is what the last one wrote)."""
        async with self.publishing:
            self.asked = False  # a change from now on is published by another
            ours = {row.id: _entry(row, Holders(held, *(tournament or ())))
                    for row, held, tournament in self.here() if row.broken is None}  # fmt: skip
            ours |= {TOURNAMENT + row.id: msgspec.msgpack.encode(row) for row in self.running()}
            ours |= {NEWS + tournament: frame for tournament, frame in self.news().items()}
            changed = {k: entry for k, entry in ours.items() if self.published.get(k) != entry}
            gone = [key for key in self.published if key not in ours]
            url, fresh = self.url, self.fresh

            def publish() -> bool:
                self.directory.publish(url, changed, gone, fresh)
                return True

            if await self._landed(publish):
                self.published, self.fresh = ours, False

    def publish_soon(self) -> None:
        """Publish now, not at the next renewal (a tournament's round opened here: its
        players connected at other processes are called once those read it; or it told its
        news). Asked again before that publish looks at what to write: one is enough."""
        if self.url and not self.asked:  # running, and no publish asked for is waiting
            self.asked = True
            task = asyncio.get_running_loop().create_task(self.publish())
            self.soon.add(task)
            task.add_done_callback(self.soon.discard)

    async def take(self) -> None:
        """Take the tables of a process of this machine that died: moved into our log off
        the loop, restored here, and published at once, so that its players find them."""
        taken = await self._landed(self.directory.take)
        if taken:
            for record in taken:  # a table at a time: a replay holds the loop ~0.6 ms
                self.adopt([record])
                await asyncio.sleep(0)
            await self.publish()

    async def follow(self) -> None:
        """Offer the director the tournaments no process runs (after the takeover, so that
        a round whose tables were just taken over here goes on here). Their lock decides
        which process runs one: two never do. Those run here whose locks were lost are let go
        first, to be taken again as any other."""
        lost = await asyncio.to_thread(self.lost)
        if lost:
            self.let_go(lost)
        free = await self._landed(self.directory.unheld)
        if free is not None:  # none free: what was passed over is forgotten
            self.free(set(free))

    async def make_placed(self) -> None:
        """Make the tables of tournaments' rounds placed here, each once (a table whose
        answer did not land is answered again, not made again), publish them, and only then
        answer each with the table made: once its runner reads it, every process lists it."""
        if self.placed is None or self.make is None:
            return
        placed = self.placed
        pending = await self._landed(placed.pending) or []
        for placement in pending:
            key = placement.tournament, placement.round, placement.number
            if key not in self.unanswered:
                try:
                    self.unanswered[key] = self.make(placement)
                except ProtocolError as exc:  # no room now, or the store failed: next time
                    log.warning("tournament %s: round %d table %d cannot be made here: %s",
                                *key, exc.message)  # fmt: skip
        if not self.unanswered:
            return
        await self.publish()
        for placement in pending:
            key = placement.tournament, placement.round, placement.number
            table_id = self.unanswered.get(key)
            if table_id is not None and await self._landed(
                partial(_answered, placed, placement, table_id)
            ):
                del self.unanswered[key]

    async def read(self) -> None:
        """Read the tables every other live process holds."""
        listed = await self._landed(self.directory.elsewhere)
        if listed is None:
            return
        tables, urls, decoded = [], {}, {}
        seats: dict[str, list[tuple[str, int]]] = {}
        calls: dict[str, list[tuple[str, str, str, int]]] = {}
        newest: dict[tuple[str, str], int] = {}
        tournaments: list[TournamentRow] = []
        runners: dict[str, str] = {}
        news: dict[str, bytes] = {}
        for table_id, url, entry in listed:
            if table_id in self.published:  # ours now (taken over): listed as ours
                continue
            if table_id.startswith(NEWS):  # its runner's too, a while after it is over
                news[table_id.removeprefix(NEWS)] = entry
                runners.setdefault(table_id.removeprefix(NEWS), url)
                continue
            if table_id.startswith(TOURNAMENT):
                try:
                    tournaments.append(msgspec.msgpack.decode(entry, type=TournamentRow))
                except msgspec.MsgspecError as exc:
                    log.warning("%s of %s cannot be listed: %s", table_id, url, exc)
                    continue
                runners[tournaments[-1].id] = url
                continue
            known = self.decoded.get(table_id)
            if known is None or known[0] != entry:  # decoded once, until it changes
                try:
                    row = msgspec.msgpack.decode(entry, type=TableRow)
                    holders = msgspec.msgpack.decode(entry, type=Holders)
                except msgspec.MsgspecError as exc:  # a row this version cannot read: unlisted
                    log.warning("table %s of %s cannot be listed: %s", table_id, url, exc)
                    continue
                known = entry, row, holders
            decoded[table_id] = known
            tables.append(known[1])
            urls[table_id] = url
            holders = known[2]
            for identity, seat in holders.held:
                seats.setdefault(identity, []).append((table_id, seat))
                if holders.tournament is None:
                    continue
                key = identity, holders.tournament
                newest[key] = max(newest.get(key, 0), holders.round)
                if known[1].phase != "over":
                    call = table_id, url, holders.tournament, holders.round
                    calls.setdefault(identity, []).append(call)
        gone = {table_id for table_id in self.urls if table_id not in urls}
        self.tables, self.urls, self.seats, self.calls = tables, urls, seats, calls
        self.newest = newest
        self.tournaments, self.runners = tournaments, runners
        self.decoded, self.read_at = decoded, time.monotonic()
        self.relay(news)
        if gone:
            self.gone(gone)

    def relay(self, news: dict[str, bytes]) -> None:
        """Send each tournament's news, the very frame its runner sends its own, to the
        connections here of its players' identities that were not sent it yet: a player
        connecting here (or proving its key) after the news changed is told it as it stands
        at the next read, not only one already here as it changed. Decoded once, until it
        changes; one that cannot be read is passed over until it changes."""
        heard = {}
        for tournament, frame in news.items():
            known = self.heard.get(tournament)
            if known is None or known[0] != frame:
                try:
                    told = msgspec.msgpack.decode(frame, type=Tournament)
                except msgspec.MsgspecError as exc:
                    log.warning("tournament %s's news cannot be read: %s", tournament, exc)
                    told = None
                rows = () if told is None else told.standings
                identities = {identity_in(PlayerId(row.player)) for row in rows}
                known = frame, frozenset(i for i in identities if i is not None)
            heard[tournament] = known
        self.heard = heard
        for conn in self.connections():
            if conn.identity is None:
                continue
            for tournament, (frame, players) in heard.items():
                if conn.identity in players and conn.told.get(tournament) != frame:
                    conn.told[tournament] = frame
                    conn.send(frame)

    def call(self) -> None:
        """Send each player connected here between two games to the tournament table
        another process holds for them (a round's, made there): an unsolicited `error
        elsewhere` naming it, which our client follows as an answer's. Once a connection
        and table; one playing a game here is called once that game is over. Never to a
        table of an older round than its tournament plays (as its runner says) or than
        another table the identity holds, here or elsewhere: a row published before its
        game ended may say it is not over yet."""
        if not self.calls:
            return
        called = [
            (conn, conn.identity)
            for conn in self.connections()
            if conn.identity is not None and conn.identity in self.calls
        ]
        if not called:
            return
        newest = dict(self.newest)  # (identity, tournament): the newest round it holds a seat of
        for _, held, seats in self.here():
            if seats is not None:
                for identity, _ in held:
                    key = identity, seats[0]
                    newest[key] = max(newest.get(key, 0), seats[1])
        rounds = {t.id: t.round for t in (*self.tournaments, *self.running())}
        for conn, identity in called:
            for table_id, url, tournament, round_no in self.calls[identity]:
                older = max(rounds.get(tournament, 0), newest.get((identity, tournament), 0))
                if table_id in conn.called or round_no < older or not conn.between_games():
                    continue
                conn.called.add(table_id)
                conn.send(
                    Error(
                        code="elsewhere",
                        message=f"your tournament's table {table_id} is played at {url}:"
                        " connect there",
                        url=url,
                        table=table_id,
                    )
                )

    async def _landed(self, call: Callable[[], T]) -> T | None:
        """`call` in a thread (the directory's connection, never the loop): its result, or
        None when PostgreSQL could not be used. Meanwhile what was read stays listed until
        the others' leases would have lapsed."""
        try:
            async with self.using:
                result = await asyncio.to_thread(call)
        except (StoreError, StoreUnavailable) as exc:
            if not self.failing:
                log.warning("the host's lobby cannot be shared now: %s", exc)
            self.failing = True
            if time.monotonic() - self.read_at > LEASE:  # they may all be gone by now
                self.tables, self.urls, self.seats, self.calls = [], {}, {}, {}
                self.newest = {}
                self.tournaments, self.runners = [], {}
            return None
        if self.failing:
            log.info("the host's lobby is shared again")
            self.failing = False
        return result

    async def close(self) -> None:
        """This process stops: its tables leave the others' lobby at once (after a publish
        under way, which would list them again)."""
        await asyncio.gather(*self.soon, return_exceptions=True)
        try:
            await asyncio.to_thread(self.directory.withdraw)
        except (StoreError, StoreUnavailable) as exc:  # its lease lapses by itself
            log.warning("the host's lobby is left as it was: %s", exc)


def _answered(placed: Placements, placement: Placement, table_id: str) -> bool:
    placed.made(placement, table_id)
    return True


def _entry(row: TableRow, holders: Holders) -> bytes:
    """A row as the others read it: with its identities' seats and its tournament, if any."""
    if holders == Holders():
        return msgspec.msgpack.encode(row)
    return msgspec.msgpack.encode(
        Published(**msgspec.structs.asdict(row), **msgspec.structs.asdict(holders))
    )
