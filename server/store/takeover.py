"""Takeover after `kill -9` (issue 34 §3; docs/architecture.md, "Several processes of one
host"): a live process takes the tables of a process of its machine that died, moving each
from the dead table log into its own.

The dead log's `flock` is the proof of death: the kernel lets it go when its holder dies,
however it dies, so a process that gets it knows that nothing writes that log any more (a
lease alone could be outlived by a process paused, then woken to write again). A process
that stopped cleanly has withdrawn from `processes`, and one that died before the taker
started (the whole machine went down) is its own restart's to bring back: their tables wait
in their logs for them to start again, and are not taken (else the first process up after
a power cut would take every other's before they are up). Each step can be interrupted
and taken up again:
1. every live table of the dead log is copied whole into ours (a transaction each):
   durable here before any process is told it is ours;
2. PostgreSQL's `tables.log` is moved from the dead log to ours, for the tables it still
   names the dead log for (a conditional update: two takers cannot both claim a table);
3. the claimed tables leave the dead log; a copy left in ours that was not claimed leaves
   ours; then the dead log's lock goes.
A table left in two logs by an interruption is held by the log PostgreSQL names: the other
drops it as it starts (postgres.py, `Crossing.moved`).
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from server.store.database import SqliteDatabase, Statement, StoreError, StoreUnavailable
from server.store.tables import BrokenRecord, SqliteTables, TableRecord

if TYPE_CHECKING:  # psycopg is an extra: a SQLite host never loads it
    from server.store.postgres_database import PostgresDatabase

log = logging.getLogger("gother.server")

# A table's rows in a log, by the column naming the table: each copied whole, in the order
# they were made (moves have no rowid: schema step 11; their key is their order).
TABLE_ROWS = {
    "tables": ("id", "rowid"),
    "seats": ("table_id", "rowid"),
    "games": ("table_id", "rowid"),
    "moves": ("table_id", "game_no, idx"),
    "hints": ("table_id", "rowid"),
    "chat": ("table_id", "rowid"),
}


def take(database: PostgresDatabase, me: str, since: datetime) -> list[TableRecord | BrokenRecord]:
    """The live tables of every process of this machine that died while we ran (its lease
    ran after `since`, our start, on PostgreSQL's clock), moved into our log (`me`, as
    `tables.log` names it): each as `load` reads it, to be restored here. A log that
    cannot be taken now is tried again at the next call; StoreError or StoreUnavailable:
    PostgreSQL could not say which logs to try."""
    machine, own = me.split(":", 1)
    taken: list[TableRecord | BrokenRecord] = []
    for (holder,) in database.rows(
        "SELECT DISTINCT tables.log FROM tables JOIN processes ON processes.id = tables.log"
        " WHERE tables.log <> :me AND processes.lease_until > :since ORDER BY tables.log",
        {"me": me, "since": since},  # type: ignore[dict-item]
    ):
        where, _, path = holder.partition(":")
        if where != machine:  # its log is on its own machine's disk
            continue
        with _dead(path) as dead:
            if not dead:
                continue
            try:
                taken += _take_log(database, me, own, holder, path)
            except (StoreError, StoreUnavailable) as exc:  # the others' are taken meanwhile
                log.warning("the tables of %s cannot be taken over now: %s", holder, exc)
    return taken


@contextmanager
def _dead(path: str) -> Iterator[bool]:
    """Whether the process writing the log at `path` is gone: its lock is ours (held until
    the block ends), or there is no such log here."""
    try:
        lock = os.open(f"{path}.lock", os.O_RDWR)  # never made: a log of this machine has one
    except OSError:
        yield False
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # alive (or being taken by another process)
        os.close(lock)
        yield False
        return
    try:
        yield Path(path).is_file()
    finally:
        os.close(lock)  # and with it the lock


def _take_log(
    database: PostgresDatabase, me: str, own: str, holder: str, path: str
) -> list[TableRecord | BrokenRecord]:
    dead = SqliteDatabase(path)
    try:
        records = SqliteTables(dead).load()
        if not records:
            return []
        ids = [record.id for record in records]
        ours = SqliteDatabase(own)  # a connection of the taker's own: the loop has the other
        try:
            _copy(ours, path, ids)
            claimed = {
                table_id
                for (table_id,) in database.rows(
                    "UPDATE tables SET log = :me WHERE log = :dead AND id = ANY(:ids) RETURNING id",
                    {"me": me, "dead": holder, "ids": ids},  # type: ignore[dict-item]
                )
            }
            _drop(ours, [table_id for table_id in ids if table_id not in claimed])
        finally:
            ours.close()
        try:
            _drop(dead, list(claimed))
        except StoreError as exc:  # ours all the same: its process, started again, drops them
            log.warning("the tables taken from %s stay in its log: %s", holder, exc)
    finally:
        dead.close()
    if claimed:
        log.warning("took over the tables of %s, which died: %s", holder, " ".join(sorted(claimed)))
    return [record for record in records if record.id in claimed]


def _copy(ours: SqliteDatabase, path: str, ids: list[str]) -> None:
    """Every row of the tables `ids` in the log at `path`, copied into ours, a table a
    transaction (over what an interrupted takeover copied before): the game's loop, writing
    to our log meanwhile, waits on one table's copy at most."""
    ours.write(("ATTACH DATABASE :path AS dead", {"path": path}))  # till it is closed
    columns = {
        name: ", ".join(
            column
            for (_, column, *_) in ours.rows(f"PRAGMA main.table_info({name})")
            if (name, column) != ("chat", "id")  # ours number their own lines
        )
        for name in TABLE_ROWS
    }
    for table_id in ids:
        where = {"table": table_id}
        statements: list[Statement] = []
        for name, (key, order) in TABLE_ROWS.items():
            statements.append((f"DELETE FROM main.{name} WHERE {key} = :table", where))
            statements.append(
                (
                    f"INSERT INTO main.{name} ({columns[name]}) SELECT {columns[name]}"
                    f" FROM dead.{name} WHERE {key} = :table ORDER BY {order}",
                    where,
                )
            )
        ours.write(*statements)


def _drop(log_database: SqliteDatabase, ids: list[str]) -> None:
    """The tables `ids` leave this log, each whole, in one transaction."""
    if ids:
        log_database.write(
            *(
                (f"DELETE FROM {name} WHERE {key} = :table", {"table": table_id})
                for table_id in ids
                for name, (key, _) in TABLE_ROWS.items()
            )
        )
