"""The two stores, and which one a host's `--db` names: a SQLite file (a path, or
`:memory:`), embedded, the default and all one process needs; or PostgreSQL (a
`postgresql://` URL), for what spans tables, with each live table's log in a SQLite file of
the process (`--table-log`). Each is the same repositories to its callers (`Store`), and
read by other processes (an export, the ratings' rebuild) as a `Reader`.

PostgreSQL's driver is an extra (`pip install 'gother-than-thou[postgres]'`): it is loaded
only for a URL, and a host without it is told what to install.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from server.files import data_folder
from server.store.database import StoreUnavailable
from server.store.directory import Directory
from server.store.ended import Ended
from server.store.holds import Holds
from server.store.outcomes import OutcomeArchive, OutcomeStore
from server.store.people import PeopleStore
from server.store.placements import Placements
from server.store.sqlite import SqliteStore
from server.store.tables import GameArchive, TableStore
from server.store.tournaments import TournamentStore

SCHEMES = ("postgresql://", "postgres://")
INSTALL = "pip install 'gother-than-thou[postgres]'"
TABLE_LOG = "table-log.db"  # a PostgreSQL host's table log, by default, in its data folder


class Store(Protocol):
    tables: TableStore  # this process's live tables, each change before it is made
    archive: GameArchive  # any table's games: records, reviews, games played on
    people: PeopleStore
    outcomes: OutcomeStore
    tournaments: TournamentStore
    directory: Directory | None  # the lobby across the host's processes (PostgreSQL only)
    ended: Ended | None  # games the host's other processes ended (PostgreSQL only)
    holds: Holds | None  # which process runs each tournament (PostgreSQL only)
    # a round's tables placed at the host's processes (PostgreSQL only): the runner's, used
    # on the loop as the tournaments' writes are, and those placed here, read and answered
    # on the directory's connection, in its thread
    placements: Placements | None
    placed: Placements | None

    def close(self) -> None: ...


class Reader(Protocol):
    @property
    def archive(self) -> GameArchive: ...

    @property
    def outcomes(self) -> OutcomeArchive: ...

    def close(self) -> None: ...


def default_table_log() -> str:
    return str(data_folder() / TABLE_LOG)


def is_postgres(db: str) -> bool:
    return db.startswith(SCHEMES)


def open_store(db: str, table_log: str | None = None) -> Store:
    """The store `db` names; with PostgreSQL, its live tables logged in `table_log` (by
    default in the data folder). StoreUnavailable: it cannot be used, and why."""
    if not is_postgres(db):
        if table_log is not None:
            raise StoreUnavailable(
                "--table-log goes with a PostgreSQL database: a SQLite one is its own table log"
            )
        return SqliteStore(db)
    table_log = table_log or default_table_log()
    try:
        from server.store.postgres import PostgresStore
    except ImportError as exc:
        raise _no_driver(exc) from None
    return PostgresStore(db, table_log)


def open_reader(db: str) -> Reader:
    """The store `db` names, read-only (a SQLite file is never changed, whatever its schema)."""
    if not is_postgres(db):
        return SqliteStore(db, readonly=True)
    try:
        from server.store.postgres import PostgresReader
    except ImportError as exc:
        raise _no_driver(exc) from None
    return PostgresReader(db)


def exists(db: str) -> bool:
    """Whether there is anything at `db` to read (a PostgreSQL server is asked when read)."""
    return is_postgres(db) or (db != ":memory:" and Path(db).is_file())


def _no_driver(exc: ImportError) -> StoreUnavailable:
    return StoreUnavailable(f"PostgreSQL needs its driver ({exc.name}): {INSTALL}")
