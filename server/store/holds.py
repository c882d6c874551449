"""Which process of a host runs each tournament (issue 34 §2; docs/architecture.md, "Several
processes of one host"): the one holding its lock, a PostgreSQL session lock on a connection
of the holds' own. A host on SQLite is one process, which runs them all, and has none.

PostgreSQL lets a session's locks go when the session ends: a process that dies (kill -9
too: the kernel closes its socket) lets go of its tournaments at once, as a table log's
`flock` is let go, while one that is only slow keeps them: two processes never run one
tournament. A tournament whose runner died is free: each renewal the directory asks which
stored ones no session holds (`unheld`), and a live process takes it (the director says
whether it may: server/tournament/director.py). Not yet: a connection lost and made again
holds nothing any more, while its process still runs what it took (another process taking
one then runs it too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from server.store.database import StoreUnavailable

if TYPE_CHECKING:  # psycopg is an extra: a SQLite host never loads it
    from server.store.postgres_database import PostgresDatabase

KIND = 1_870_000_001  # the locks' first key: a tournament's (the second: its id hashed)

# The stored tournaments whose lock no session of this database holds. pg_locks shows a
# two-key advisory lock's keys as oids (classid, objid; objsubid 2): the hash, an integer
# that may be negative, is compared as the unsigned 32 bits it is stored as.
UNHELD = (
    "SELECT id FROM tournaments WHERE NOT EXISTS (SELECT 1 FROM pg_locks"
    " WHERE locktype = 'advisory' AND granted AND objsubid = 2"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid = CAST(:kind AS oid)"
    " AND objid = CAST(CAST(hashtext(tournaments.id) AS bigint) & 4294967295 AS oid))"
    " ORDER BY id"
)


class Holds(Protocol):
    def take(self, tournament_id: str) -> bool:
        """Run `tournament_id` here from now on: False when another process runs it (or
        PostgreSQL cannot say)."""
        ...

    def close(self) -> None: ...


class PostgresHolds:
    def __init__(self, database: PostgresDatabase) -> None:
        self.database = database  # a PostgreSQL connection of the holds' own

    def take(self, tournament_id: str) -> bool:
        try:
            row = self.database.row(
                "SELECT pg_try_advisory_lock(CAST(:kind AS integer), hashtext(:id))",
                {"kind": KIND, "id": tournament_id},
            )
        except StoreUnavailable:
            return False
        return row is not None and bool(row[0])

    def close(self) -> None:
        self.database.close()


def unheld(database: PostgresDatabase) -> list[str]:
    """The ids of the stored tournaments no process of the host runs now: their runner died
    (or stopped), or broke off its connection (StoreUnavailable)."""
    return [row[0] for row in database.rows(UNHELD, {"kind": KIND})]
