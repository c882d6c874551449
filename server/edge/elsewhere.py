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
lost with their connection: it lets go of those at once, and they are offered again.

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
from collections.abc import Callable, Sequence
from typing import TypeVar
from urllib.parse import urlsplit

import msgspec

from protocol.server_messages import TableRow, TournamentRow
from server.store.database import StoreError, StoreUnavailable
from server.store.directory import LEASE, Directory
from server.store.tables import BrokenRecord, TableRecord

log = logging.getLogger("gother.server")
T = TypeVar("T")

RENEW = 2.0  # seconds between two renewals of the lease (a fifth of it)
Held = tuple[tuple[str, int], ...]  # the seats identities hold at a table: (identity, seat)
TOURNAMENT = "tournament:"  # a tournament's row, beside the tables' (whose ids have no colon)
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
    """A row as the others read it: with its identities' seats, never sent to a client."""

    held: Held = ()


class Holders(msgspec.Struct):
    """What of a published row is not listed: the seats identities hold there."""

    held: Held = ()


Adopt = Callable[[list[TableRecord | BrokenRecord]], None]
Free = Callable[[set[str]], None]  # tournaments no process runs: run here, if it may
Lost = Callable[[], set[str]]  # the tournaments run here whose locks were lost (in a thread)


class Elsewhere:
    def __init__(
        self,
        directory: Directory,
        here: Callable[[], Sequence[tuple[TableRow, Held]]],
        running: Callable[[], Sequence[TournamentRow]],
        adopt: Adopt,
        free: Free,
        lost: Lost,
        let_go: Callable[[set[str]], None],
    ) -> None:
        self.directory = directory
        self.here = here  # this process's rows, as its own `list` shows them, and who sits
        self.running = running  # the tournaments this process runs, as `list` shows them
        self.adopt = adopt  # tables taken over: restored here (on the loop)
        self.free = free  # tournaments no process runs: the director's to take (on the loop)
        self.lost = lost  # those run here whose locks were lost
        self.let_go = let_go  # stop running them (on the loop)
        self.url = ""  # where this process is: set as it starts listening
        self.published: dict[str, bytes] = {}  # what PostgreSQL holds of ours
        self.fresh = True  # our rows of a former run are still there
        self.tables: list[TableRow] = []  # the others', as last read
        self.urls: dict[str, str] = {}  # their table ids: where each lives
        self.seats: dict[str, list[tuple[str, int]]] = {}  # identities' seats there
        self.tournaments: list[TournamentRow] = []  # the tournaments the others run
        self.runners: dict[str, str] = {}  # their ids: where each is run
        self.decoded: dict[str, tuple[bytes, TableRow, Held]] = {}  # rows as last read
        self.read_at = -math.inf  # when they were read (monotonic)
        self.failing = False

    def where(self, table_id: str) -> str | None:
        """The URL of the process holding `table_id`, if another one does."""
        return self.urls.get(table_id)

    def held_by(self, identity: str) -> list[tuple[str, int]]:
        """The seats (table id, seat) `identity` holds at the other processes."""
        return self.seats.get(identity, [])

    def runs(self, tournament_id: str) -> str | None:
        """The URL of the process running `tournament_id`, if another one does."""
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
            await asyncio.to_thread(self.directory.heard, max(0.0, due - time.monotonic()))

    async def publish(self) -> None:
        """Renew the lease, and write what changed here."""
        ours = {row.id: _entry(row, held) for row, held in self.here() if row.broken is None}
        ours |= {TOURNAMENT + row.id: msgspec.msgpack.encode(row) for row in self.running()}
        changed = {key: entry for key, entry in ours.items() if self.published.get(key) != entry}
        gone = [key for key in self.published if key not in ours]
        url, fresh = self.url, self.fresh

        def publish() -> bool:
            self.directory.publish(url, changed, gone, fresh)
            return True

        if await self._landed(publish):
            self.published, self.fresh = ours, False

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

    async def read(self) -> None:
        """Read the tables every other live process holds."""
        listed = await self._landed(self.directory.elsewhere)
        if listed is None:
            return
        tables, urls, decoded = [], {}, {}
        seats: dict[str, list[tuple[str, int]]] = {}
        tournaments, runners = [], {}
        for table_id, url, entry in listed:
            if table_id in self.published:  # ours now (taken over): listed as ours
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
                    held = msgspec.msgpack.decode(entry, type=Holders).held
                except msgspec.MsgspecError as exc:  # a row this version cannot read: unlisted
                    log.warning("table %s of %s cannot be listed: %s", table_id, url, exc)
                    continue
                known = entry, row, held
            decoded[table_id] = known
            tables.append(known[1])
            urls[table_id] = url
            for identity, seat in known[2]:
                seats.setdefault(identity, []).append((table_id, seat))
        self.tables, self.urls, self.seats = tables, urls, seats
        self.tournaments, self.runners = tournaments, runners
        self.decoded, self.read_at = decoded, time.monotonic()

    async def _landed(self, call: Callable[[], T]) -> T | None:
        """`call` in a thread (the directory's connection, never the loop): its result, or
        None when PostgreSQL could not be used. Meanwhile what was read stays listed until
        the others' leases would have lapsed."""
        try:
            result = await asyncio.to_thread(call)
        except (StoreError, StoreUnavailable) as exc:
            if not self.failing:
                log.warning("the host's lobby cannot be shared now: %s", exc)
            self.failing = True
            if time.monotonic() - self.read_at > LEASE:  # they may all be gone by now
                self.tables, self.urls, self.seats = [], {}, {}
                self.tournaments, self.runners = [], {}
            return None
        if self.failing:
            log.info("the host's lobby is shared again")
            self.failing = False
        return result

    async def close(self) -> None:
        """This process stops: its tables leave the others' lobby at once."""
        try:
            await asyncio.to_thread(self.directory.withdraw)
        except (StoreError, StoreUnavailable) as exc:  # its lease lapses by itself
            log.warning("the host's lobby is left as it was: %s", exc)


def _entry(row: TableRow, held: Held) -> bytes:
    """A row as the others read it: with its identities' seats, if any."""
    if not held:
        return msgspec.msgpack.encode(row)
    return msgspec.msgpack.encode(Published(**msgspec.structs.asdict(row), held=held))
