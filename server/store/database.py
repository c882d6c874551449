"""The embedded store's one connection to its SQLite file, and the one owner of its
transactions: every repository over the file writes through `write` and reads through
`rows` and `row`.

Each write is committed at once, so a `kill -9` loses nothing that a client was told about.
A write that fails raises StoreError, and the caller has changed nothing yet (Principle 6:
durable before applied). A database that cannot be opened or read at all is
StoreUnavailable: the caller (the server starting, an export) stops and says why.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from server.files import private_database
from server.store.schema import SCHEMA_VERSION, upgrade, version

# What SQLite takes as a statement's named parameters.
SqlValue = str | int | float | bytes | None
Statement = tuple[str, Mapping[str, SqlValue]]
Row = tuple[Any, ...]


class StoreError(Exception):
    """A write did not reach the database (disk full, I/O error, read-only file…)."""


class StoreUnavailable(OSError):
    """The database cannot be opened or read: not a database, a schema newer than this
    server's, a folder that cannot be written, a damaged file. An OSError, as a certificate
    file that cannot be used is (ssl.SSLError): a file the host must look at."""


class Database:
    """One connection to one SQLite file (or to memory, `:memory:`)."""

    def __init__(self, path: str = ":memory:", readonly: bool = False) -> None:
        self.path = path
        try:
            self.connection = _reader(path) if readonly else _writer(path)
        except sqlite3.Error as exc:
            raise self._unavailable(exc) from None

    def close(self) -> None:
        self.connection.close()

    @property
    def version(self) -> int:
        return version(self.connection)

    def write(self, *statements: Statement) -> None:
        """Run `statements` as one transaction: all of them land, or none (StoreError).
        A single statement is a transaction by itself (autocommit): no BEGIN to pay for."""
        db = self.connection
        try:
            if len(statements) == 1:
                db.execute(*statements[0])
                return
            db.execute("BEGIN IMMEDIATE")
            for sql, params in statements:
                db.execute(sql, params)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.rollback()
            raise StoreError(str(exc)) from exc

    def rows(self, sql: str, params: Mapping[str, SqlValue] | None = None) -> list[Row]:
        """Every row `sql` selects. A text column that is not UTF-8 (SQLite stores whatever
        bytes it is given) is a ValueError naming it, like any other field that cannot be
        read; anything else wrong is the database's (StoreUnavailable)."""
        try:
            return self.connection.execute(sql, params or {}).fetchall()
        except sqlite3.OperationalError as exc:
            if "decode to UTF-8" not in str(exc):
                raise self._unavailable(exc) from exc
            column = str(exc).partition(" with text")[0].removeprefix("Could not decode to UTF-8 ")
            raise ValueError(f"its {column} holds text that is not UTF-8") from None
        except sqlite3.Error as exc:
            raise self._unavailable(exc) from exc

    def row(self, sql: str, params: Mapping[str, SqlValue] | None = None) -> Row | None:
        """The first row `sql` selects, if any."""
        found = self.rows(sql, params)
        return found[0] if found else None

    def _unavailable(self, exc: sqlite3.Error) -> StoreUnavailable:
        return StoreUnavailable(f"database {self.path}: {exc}")


def _writer(path: str) -> sqlite3.Connection:
    private_database(path)  # it holds the seeds: no one else may read it
    db = sqlite3.connect(path, isolation_level=None)  # autocommit: every write lands
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    upgrade(db)
    return db


def _reader(path: str) -> sqlite3.Connection:
    """A host's database opened read-only (an export, the ratings' rebuild): it is never
    changed; an older schema is read through an in-memory copy brought up to date."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    db = sqlite3.connect(uri, uri=True, isolation_level=None)
    if version(db) >= SCHEMA_VERSION:
        return db
    copy = sqlite3.connect(":memory:", isolation_level=None)
    db.backup(copy)
    db.close()
    upgrade(copy)
    return copy
