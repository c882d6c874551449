"""Which process of a host runs each tournament (issue 34 §2; docs/architecture.md, "Several
processes of one host"): the one holding its lock, a PostgreSQL session lock on a connection
of the holds' own. A host on SQLite is one process, which runs them all, and has none.

PostgreSQL lets a session's locks go when the session ends: a process that dies (kill -9
too: the kernel closes its socket) lets go of its tournaments at once, as a table log's
`flock` is let go, while one that is only slow keeps them: two processes never run one
tournament. A tournament whose runner died is free: each renewal the directory asks which
stored ones no session holds (`unheld`), and a live process takes it (the director says
whether it may: server/tournament/director.py). A holds connection lost (its session ended:
PostgreSQL restarted, or the session was terminated) and made again holds nothing any more:
each renewal the process asks which of its locks were taken on a session that is no longer
its connection's (`lost`); it stops running those tournaments at once, and runs one again
only by taking its lock again, as after a takeover (another process may have taken it
meanwhile).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from server.store.database import StoreUnavailable

if TYPE_CHECKING:  # psycopg is an extra: a SQLite host never loads it
    from server.store.postgres_database import PostgresDatabase

KIND = 1_870_000_001  # the locks' first key: a tournament's (the second: its own number)

# A tournament's lock is (KIND, its key): a number given it once (`tournament_locks`, an
# identity column), never a hash of its id, which two ids may share (32 bits: about one
# pair in 2^32, and likelier the more there are), so that one process could take for its
# own a tournament another runs, or never run one whose twin runs. Its row is made as it is
# first taken, in the statement that takes it.
TAKE = (
    "WITH made AS (INSERT INTO tournament_locks (id) VALUES (:id)"
    " ON CONFLICT (id) DO NOTHING RETURNING key)"
    " SELECT pg_try_advisory_lock(CAST(:kind AS integer), COALESCE((SELECT key FROM made),"
    " (SELECT key FROM tournament_locks WHERE id = :id)))"
)
# The stored tournaments whose lock no session of this database holds (one never taken has
# no key yet). pg_locks shows a two-key advisory lock's keys as oids (classid, objid;
# objsubid 2); the keys are positive.
UNHELD = (
    "SELECT id FROM tournaments WHERE NOT EXISTS (SELECT 1 FROM pg_locks"
    " JOIN tournament_locks ON objid = CAST(tournament_locks.key AS oid)"
    " WHERE locktype = 'advisory' AND granted AND objsubid = 2"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid = CAST(:kind AS oid) AND tournament_locks.id = tournaments.id)"
    " ORDER BY id"
)
# This connection's session, told apart from every other PostgreSQL has had or will have (a
# backend's process id may be given again, with another start).
SESSION = (
    "SELECT CAST((pid, backend_start) AS text) FROM pg_stat_activity WHERE pid = pg_backend_pid()"
)


class Holds(Protocol):
    def take(self, tournament_id: str) -> bool:
        """Run `tournament_id` here from now on: False when another process runs it (or
        PostgreSQL cannot say)."""
        ...

    def lost(self) -> set[str]:
        """The tournaments whose locks were taken on a session that ended (all of them when
        PostgreSQL cannot say): lost until taken again. Called from a thread too."""
        ...

    def close(self) -> None: ...


class PostgresHolds:
    def __init__(self, database: PostgresDatabase) -> None:
        self.database = database  # a PostgreSQL connection of the holds' own
        self.taken: dict[str, str] = {}  # each tournament taken: the session it was taken on
        self.using = threading.Lock()  # the loop takes, a renewal's thread asks `lost`

    def take(self, tournament_id: str) -> bool:
        with self.using:
            try:
                row = self.database.row(f"{TAKE}, ({SESSION})", {"kind": KIND, "id": tournament_id})
            except StoreUnavailable:
                row = None
            if row is None or not row[0]:
                self.taken.pop(tournament_id, None)  # another's, or not known to be ours
                return False
            self.taken[tournament_id] = str(row[1])
            return True

    def lost(self) -> set[str]:
        with self.using:
            if not self.taken:
                return set()
            try:
                row = self.database.row(SESSION)
            except StoreUnavailable:
                row = None
            now = None if row is None else str(row[0])
            return {tournament for tournament, session in self.taken.items() if session != now}

    def close(self) -> None:
        self.database.close()


def unheld(database: PostgresDatabase) -> list[str]:
    """The ids of the stored tournaments no process of the host runs now: their runner died
    (or stopped), or broke off its connection (StoreUnavailable)."""
    return [row[0] for row in database.rows(UNHELD, {"kind": KIND})]
