"""The store's one connection: a change lands whole or not at all, a database it cannot use
is said to be one (StoreUnavailable, an OSError, naming the file), and a database opened
read-only is never changed, whatever schema it has."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from server.store.database import StoreError, StoreUnavailable
from server.store.schema import SCHEMA_VERSION
from server.store.sqlite import SqliteStore
from server.store.tables import SeatRecord

FIXTURE = Path(__file__).parents[1] / "tables" / "fixtures" / "schema0.db"


def test_a_change_of_several_writes_lands_whole_or_not_at_all(tmp_path):
    store = SqliteStore(str(tmp_path / "games.db"))
    store.tables.start_game("t1", 1, seed=7, seats=[SeatRecord(0, "Ann", None, None)])
    # the same game again: its seats are written first, then its row is refused
    with pytest.raises(StoreError):
        store.tables.start_game("t1", 1, seed=8, seats=[SeatRecord(1, "Bo", None, None)])
    assert store.tables.game("t1", 1) == (7, [])
    rows = store.database.connection.execute("SELECT seat FROM seats WHERE table_id = 't1'")
    assert rows.fetchall() == [(0,)]  # Bo's seat went with the refused game
    store.close()


@pytest.mark.parametrize("where", ["not a database", "a folder that is not there"])
def test_a_database_that_cannot_be_used_is_said_to_be_one(tmp_path, where):
    path = tmp_path / "games.db"
    if where == "not a database":
        path.write_bytes(b"this is not a database" * 100)
    else:
        path = tmp_path / "missing" / "games.db"
    with pytest.raises(StoreUnavailable) as refused:
        SqliteStore(str(path))
    assert isinstance(refused.value, OSError)  # `gother serve` says it as it says the others
    assert str(refused.value).startswith(f"database {path}: ")


def test_an_older_database_read_only_is_read_through_a_copy_and_left_as_it_was(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    before = path.read_bytes()
    reader = SqliteStore(str(path), readonly=True)
    try:
        assert reader.database.version == SCHEMA_VERSION  # the copy's
        assert reader.tables.table("mid001").game_no == 1
        assert reader.outcomes.all() == []  # schema 0 kept none: they are replayed
    finally:
        reader.close()
    assert path.read_bytes() == before
    old = sqlite3.connect(path)
    assert old.execute("PRAGMA user_version").fetchone() == (0,)
    old.close()


def test_a_database_opened_read_only_takes_no_write(tmp_path):
    path = tmp_path / "games.db"
    SqliteStore(str(path)).close()
    reader = SqliteStore(str(path), readonly=True)
    try:
        with pytest.raises(StoreError):
            reader.tables.probe(1)
    finally:
        reader.close()
