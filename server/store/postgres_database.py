"""The PostgreSQL store's one connection (psycopg 3), and the one owner of its transactions:
the same `write`, `rows` and `row` as the SQLite one (database.py), with the same errors.

A write that fails raises StoreError, and nothing of it landed (a transaction, rolled back by
the server with its connection if need be). A database that cannot be reached or read is
StoreUnavailable. The calls are synchronous, like SQLite's, and made where SQLite's are
(never per move: Principle 10); docs/hosting.md gives what each costs, measured. So that
none holds the game's loop for long, every call is bounded: a server that stops answering
is given up after IO_TIMEOUT, and a lost connection is made again in a thread of its own
while the calls meanwhile fail at once, never waiting for a connect.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import select
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any, LiteralString

import psycopg
from psycopg import sql as psql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from server.store.database import Row, SqlValue, Statement, StoreError, StoreUnavailable
from server.store.postgres_schema import SCHEMA_VERSION, upgrade, version

log = logging.getLogger("gother.server")

IO_TIMEOUT = 5.0  # seconds a statement, or the server's silence, may last before it fails
CONNECT_TIMEOUT = 3  # seconds (libpq's unit): how long a connect may take
RECONNECT_EVERY = 2.0  # seconds between two tries to connect again, once lost
RECONNECT_WAIT = 0.05  # seconds a call waits for a try it started: a server nearby answers
# A peer that stops answering is found out within seconds, by both ends: keepalive probes
# after 5 quiet seconds, 2 apart, 2 unanswered; data unacknowledged for IO_TIMEOUT.
KEEPALIVES = {"idle": "5", "interval": "2", "count": "2"}
# Settings a host's URL may give otherwise (libpq's, for our end): a server that stops
# answering is found out, and a statement is bounded.
DEFAULTS = {
    "connect_timeout": str(CONNECT_TIMEOUT),
    "keepalives": "1",
    **{f"keepalives_{name}": value for name, value in KEEPALIVES.items()},
    "tcp_user_timeout": str(int(IO_TIMEOUT * 1000)),
    "application_name": "gother",
}
# The same for the server's end of our sessions: one whose process is cut off from it (a
# network that drops everything, a machine gone) ends within seconds, and the tournaments'
# locks it held are free for a live process (server/store/holds.py); by default the server
# would keep it, and them, for two hours (the kernel's keepalive time).
SERVER_SIDE = " ".join(
    [f"-c tcp_keepalives_{name}={value}" for name, value in KEEPALIVES.items()]
    + [f"-c tcp_user_timeout={int(IO_TIMEOUT * 1000)}"]
)


class PostgresDatabase:
    """One connection to one PostgreSQL database, named by a libpq URL."""

    def __init__(self, url: str, readonly: bool = False) -> None:
        self.url = url
        self.readonly = readonly
        self.lost: str | None = None  # why the connection is gone, while it is
        self._made: psycopg.Connection[Any] | None = None  # made again, not yet taken up
        self._connecting: threading.Thread | None = None
        self._tried = 0.0  # when a connect was last tried
        self.closed = False  # for good: nothing connects again
        self._listening: psycopg.Connection[Any] | None = None  # the connection that LISTENs
        try:
            self.connection: psycopg.Connection[Any] | None = self._connect()
        except psycopg.Error as exc:
            raise self._unavailable(exc) from None

    def close(self) -> None:
        self.closed = True  # first: a thread that sees the connection closed makes none
        if self.connection is not None:
            self.connection.close()
            self.connection = None
            self.lost = "closed"
        if self._connecting is not None:
            self._connecting.join()
        if self._made is not None:
            self._made.close()

    @property
    def version(self) -> int:
        with self._connected(StoreUnavailable) as db:
            return version(db)

    def write(self, *statements: Statement) -> None:
        """Run `statements` as one transaction: all of them land, or none (StoreError). A run
        of the same statement goes as one `executemany` (a game's moves: one round trip)."""
        with self._connected(StoreError) as db:
            if len(statements) == 1:
                db.execute(_sql(statements[0][0]), statements[0][1])
                return
            with db.transaction(), db.cursor() as cursor:
                for sql, run in itertools.groupby(statements, key=lambda statement: statement[0]):
                    cursor.executemany(_sql(sql), [params for _, params in run])

    def write_many(self, steps: Iterable[tuple[str, Iterable[Mapping[str, SqlValue]]]]) -> None:
        """Run each statement over each of its rows, all as one transaction (StoreError: none
        of it landed)."""
        with self._connected(StoreError) as db, db.transaction(), db.cursor() as cursor:
            for sql, rows in steps:
                cursor.executemany(_sql(sql), rows)

    def rows(self, sql: str, params: Mapping[str, SqlValue] | None = None) -> list[Row]:
        """Every row `sql` selects."""
        with self._connected(StoreUnavailable) as db:
            return db.execute(_sql(sql), params or {}).fetchall()

    def row(self, sql: str, params: Mapping[str, SqlValue] | None = None) -> Row | None:
        """The first row `sql` selects, if any."""
        found = self.rows(sql, params)
        return found[0] if found else None

    def heard(self, channel: str, timeout: float) -> bool:
        """Wait up to `timeout` seconds for a NOTIFY on `channel` (this connection LISTENs
        from its first call: give it a connection of its own). True when one came, and
        whenever what was said meanwhile cannot be known (the first call, a connection lost
        or made again): read everything again then. False: nothing was said."""
        said = self.said(channel, timeout)
        return said is None or bool(said)

    def said(self, channel: str, timeout: float) -> list[str] | None:
        """`heard`, with what was said: every NOTIFY's payload that came within `timeout`
        seconds (all that came with the first; none, early, when the connection has other
        news); None whenever it cannot be known."""
        try:
            with self._connected(StoreUnavailable) as db:
                if self._listening is not db:
                    db.execute(psql.SQL("LISTEN {}").format(psql.Identifier(channel)))
                    self._listening = db
                    return None
                said = [n.payload for n in db.notifies(timeout=0.0)]
                # psycopg's own wait wakes every 0.1 s (to hear Ctrl-C): a quiet listener
                # sleeps on its socket the whole timeout instead, each of a host's
                # processes not woken 10 times a second a listener (issue 34 §4)
                if not said and timeout > 0 and select.select([db.fileno()], [], [], timeout)[0]:
                    said = [n.payload for n in db.notifies(timeout=0.0)]
                    if not said:  # woken, and nothing said: by the connection's end?
                        db.execute("SELECT 1")  # raises it (its FATAL was read, not its EOF)
                return said
        except StoreUnavailable:
            if self._listening is not None:  # lost just now: read again at once
                self._listening = None
            else:  # still none: connecting again meanwhile, in its own thread
                time.sleep(min(timeout, RECONNECT_EVERY))
            return None

    # -- the connection ------------------------------------------------------------------

    def _connected(self, failure: type[Exception]) -> _Using:
        return _Using(self, failure)

    def _live(self) -> psycopg.Connection[Any]:
        """The connection, or the reason there is none (and a try to make it again)."""
        if self.connection is None and self._made is not None:
            self.connection, self._made, self.lost = self._made, None, None
            log.info("database %s: connected again", shown(self.url))
        if self.connection is not None and not self.connection.closed:
            return self.connection
        if self.connection is not None:
            self.connection = None
            self.lost = self.lost or "the connection was closed"
        self._reconnect()
        if self._made is not None:  # made at once
            return self._live()
        raise ConnectionError(
            f"no connection ({self.lost})" + ("" if self.closed else "; trying again")
        )

    def _lose(self, exc: psycopg.Error) -> None:
        """After a failure: a connection that is no longer usable is let go."""
        connection = self.connection  # once: `close`, on another thread, may let it go
        if connection is not None and (connection.closed or connection.broken):
            connection.close()
            self.connection = None
            self.lost = said(exc)
            log.error("database %s: connection lost (%s)", shown(self.url), self.lost)
            self._reconnect()

    def _reconnect(self) -> None:
        """Connect again in a thread of its own (a connect may wait seconds for an answer:
        never on the game's loop), no more often than every RECONNECT_EVERY."""
        busy = self._connecting is not None and self._connecting.is_alive()
        if self.closed or busy or time.monotonic() - self._tried < RECONNECT_EVERY:
            return
        self._tried = time.monotonic()

        def connect() -> None:
            try:
                made = self._connect()
            except psycopg.Error as exc:
                self.lost = said(exc)
                return
            if self.closed:  # meanwhile: never taken up
                made.close()
            else:
                self._made = made

        # known once started: `close`, on another thread, joins it (one not started raises)
        connecting = threading.Thread(target=connect, name="gother-db", daemon=True)
        connecting.start()
        self._connecting = connecting
        connecting.join(RECONNECT_WAIT)

    def _connect(self) -> psycopg.Connection[Any]:
        given = conninfo_to_dict(self.url)
        settings = {key: value for key, value in DEFAULTS.items() if key not in given}
        timeouts = f"-c statement_timeout={int(IO_TIMEOUT * 1000)} {SERVER_SIDE}"
        if self.readonly:
            timeouts += " -c default_transaction_read_only=on"
        options = f"{given.get('options', '')} {timeouts}".strip()
        conninfo = make_conninfo(self.url, options=options, **settings)
        db = psycopg.connect(conninfo, autocommit=True)
        try:
            if self.readonly:
                found = version(db)
                if found != SCHEMA_VERSION:
                    raise psycopg.DataError(
                        f"schema version {found}, and this program reads {SCHEMA_VERSION}:"
                        " start `gother serve` of this version on it once"
                    )
            else:
                upgrade(db)
        except BaseException:
            db.close()
            raise
        return db

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        return StoreUnavailable(f"database {shown(self.url)}: {said(exc)}")


class _Using:
    """`with database._connected(StoreError) as db:` the live connection; any failure of the
    database (or no connection) is raised as `failure`, naming the database."""

    def __init__(self, database: PostgresDatabase, failure: type[Exception]) -> None:
        self.database = database
        self.failure = failure

    def __enter__(self) -> psycopg.Connection[Any]:
        try:
            return self.database._live()
        except ConnectionError as exc:
            raise self.failure(f"database {shown(self.database.url)}: {exc}") from None

    def __exit__(self, kind: object, exc: BaseException | None, trace: object) -> None:
        if isinstance(exc, psycopg.Error):
            self.database._lose(exc)
            message = f"database {shown(self.database.url)}: {said(exc)}"
            raise self.failure(message) from exc


@functools.lru_cache(maxsize=512)
def _sql(sql: str) -> LiteralString:
    """A statement as psycopg reads it: `:name` parameters as `%(name)s` (and a `%` of its
    own doubled). Our own SQL, never a player's text: the values go as parameters."""
    escaped = sql.replace("%", "%%")
    return _NAMED.sub(r"%(\1)s", escaped)


_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


def said(exc: Exception) -> str:
    """An error of the driver's in one line: its first (libpq adds hints on more)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def shown(url: str) -> str:
    """A database URL as it may be logged or printed: with no password in it."""
    url = re.sub(r"(://[^:/@?]*:)[^@/?]*@", r"\1***@", url)
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", url)
