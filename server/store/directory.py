"""The lobby across a host's game processes (issue 34 §2, docs/architecture.md "Several
processes of one host"): each process's live tables as `list` shows them, and where the
process is, in PostgreSQL, under a lease the process renews. A host on SQLite is one process
and has none.

A process is named by its table log (as `tables.log` names it); its lease is on PostgreSQL's
clock, so the machines' clocks never disagree about who is alive. The rows are the edge's
(msgpack of the protocol's `TableRow`): the store keeps them and never reads them.

A process's write NOTIFYs the others (in its transaction, so only once it landed), and they
read every row again at once; a listener that lost its connection reads them all again too,
never trusting that it heard every notification. The directory has connections of its own
(`PostgresStore` makes them), used from threads, never from the game's loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, Protocol

from server.store.database import Statement
from server.store.holds import unheld
from server.store.tables import BrokenRecord, TableRecord
from server.store.takeover import take

if TYPE_CHECKING:  # psycopg is an extra: a SQLite host never loads it
    from server.store.postgres_database import PostgresDatabase

LEASE = 10.0  # seconds a process is alive for after its last renewal
CHANNEL = "gother_lobby"  # NOTIFY: a process's rows changed (its id said)


class Listed(NamedTuple):
    """A table another process holds: its id, where that process is, its row."""

    table_id: str
    url: str
    entry: bytes


class Directory(Protocol):
    process: str  # this process, as the host knows it

    def publish(
        self, url: str, changed: Mapping[str, bytes], gone: Iterable[str], fresh: bool
    ) -> None:
        """Renew this process's lease (at `url`) and write its tables' rows that `changed`,
        and which are `gone`; `fresh`: every row it had before is gone (a start). One
        transaction: all of it lands, or none (StoreError)."""
        ...

    def elsewhere(self) -> list[Listed]:
        """The tables of every other process whose lease runs (StoreUnavailable)."""
        ...

    def take(self) -> list[TableRecord | BrokenRecord]:
        """The tables of the processes of this machine that died while this one ran (issue
        34 §3), moved into its log, to be restored here (StoreError, StoreUnavailable)."""
        ...

    def unheld(self) -> list[str]:
        """The stored tournaments no process of the host runs (their runner died or
        stopped): one may be run here (StoreUnavailable)."""
        ...

    def withdraw(self) -> None:
        """This process stops: its lease and its rows go at once (StoreError)."""
        ...

    def heard(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for another process's rows to change: True when they
        did, or when that cannot be known (read them all again); False when nothing was said."""
        ...

    def close(self) -> None: ...


class PostgresDirectory:
    def __init__(
        self,
        database: PostgresDatabase,
        listener: PostgresDatabase,
        process: str,
        lease: float = LEASE,
    ) -> None:
        self.database = database  # a PostgreSQL connection of the directory's own
        self.listener = listener  # and one that LISTENs
        self.process = process
        self.lease = lease
        self.since: datetime | None = None  # our start, on PostgreSQL's clock (takeover)

    def publish(
        self, url: str, changed: Mapping[str, bytes], gone: Iterable[str], fresh: bool
    ) -> None:
        me = self.process
        statements: list[Statement] = [
            (
                "INSERT INTO processes (id, url, lease_until)"
                " VALUES (:me, :url, now() + :lease * interval '1 second')"
                " ON CONFLICT (id) DO UPDATE"
                " SET url = excluded.url, lease_until = excluded.lease_until",
                {"me": me, "url": url, "lease": self.lease},
            )
        ]
        if fresh:
            statements.append(("DELETE FROM lobby WHERE process = :me", {"me": me}))
        statements += [
            ("DELETE FROM lobby WHERE table_id = :table AND process = :me", {"table": t, "me": me})
            for t in gone
        ]
        statements += [
            (
                "INSERT INTO lobby (table_id, process, entry) VALUES (:table, :me, :entry)"
                " ON CONFLICT (table_id) DO UPDATE"
                " SET process = excluded.process, entry = excluded.entry",
                {"table": table_id, "me": me, "entry": entry},
            )
            for table_id, entry in changed.items()
        ]
        if fresh or changed or gone:  # the others read again at once, when this lands
            statements.append(("SELECT pg_notify(:channel, :me)", {"channel": CHANNEL, "me": me}))
        self.database.write(*statements)

    def elsewhere(self) -> list[Listed]:
        rows = self.database.rows(
            "SELECT lobby.table_id, processes.url, lobby.entry FROM lobby"
            " JOIN processes ON processes.id = lobby.process"
            " WHERE processes.id <> :me AND processes.lease_until > now()"
            " ORDER BY processes.url, lobby.table_id",
            {"me": self.process},
        )
        return [Listed(table_id, url, bytes(entry)) for table_id, url, entry in rows]

    def take(self) -> list[TableRecord | BrokenRecord]:
        if self.since is None:  # our first renewal: a process dead before it is not ours
            started = self.database.row("SELECT now()")
            assert started is not None
            self.since = started[0]
        return take(self.database, self.process, self.since)

    def unheld(self) -> list[str]:
        return unheld(self.database)

    def withdraw(self) -> None:
        self.database.write(("DELETE FROM processes WHERE id = :me", {"me": self.process}))

    def heard(self, timeout: float) -> bool:
        return self.listener.heard(CHANNEL, timeout)

    def close(self) -> None:
        self.database.close()
        self.listener.close()
