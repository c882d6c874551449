"""The server's files are private (server/files.py): the database holds every running
game's seed, and a seed gives every hidden card. Its -wal and -shm follow its mode."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.files import private_file, private_folder
from server.store.sqlite import SqliteStore
from tests.kits.netkit import Client


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The usual 022: what a file gets unless its maker asks for less."""
    old = os.umask(0o022)
    yield
    os.umask(old)


async def test_the_database_its_wal_and_its_shm_are_made_0600(tmp_path, usual_umask):
    db = tmp_path / "games.db"
    server = GotherServer(ServerConfig(host="127.0.0.1", port=0, db=str(db)))
    await server.start()
    try:
        host = await Client.connect(f"ws://127.0.0.1:{server.port}", "Host")
        created = await host.request("create", name="Seeds", seats=3, bots=3)  # plays at once
        assert created["t"] == "created"
        wal, shm = db.with_name("games.db-wal"), db.with_name("games.db-shm")
        assert wal.exists() and shm.exists()
        assert {p.name: mode(p) for p in (db, wal, shm)} == dict.fromkeys(
            ("games.db", "games.db-wal", "games.db-shm"), 0o600
        )
        await host.close()
    finally:
        await server.close()


def test_an_existing_readable_database_is_tightened(tmp_path, usual_umask, caplog):
    folder = tmp_path / "hosts-own"
    folder.mkdir(mode=0o755)
    db = folder / "games.db"
    older = sqlite3.connect(db)  # as an older server left it: 0644, WAL files and all
    older.execute("PRAGMA journal_mode=WAL")
    older.execute("CREATE TABLE t (x)")
    wal, shm = db.with_name("games.db-wal"), db.with_name("games.db-shm")
    assert mode(db) == mode(wal) == mode(shm) == 0o644
    with caplog.at_level(logging.WARNING, logger="gother.server"):
        store = SqliteStore(str(db))
    assert mode(db) == mode(wal) == mode(shm) == 0o600
    assert "games.db was readable by others: now 600" in caplog.text
    assert mode(folder) == 0o755  # a folder the host made is theirs: left alone
    store.close()
    older.close()


def test_a_private_file_keeps_what_it_holds(tmp_path, usual_umask):
    key = tmp_path / "key"
    key.write_text("kept")
    key.chmod(0o640)
    assert private_file(key).read_text() == "kept" and mode(key) == 0o600
    fresh = private_file(tmp_path / "a" / "b" / "fresh")
    assert (mode(fresh), fresh.stat().st_size) == (0o600, 0)
    assert mode(tmp_path / "a") == mode(tmp_path / "a" / "b") == 0o700
    ours = tmp_path / "ours"
    ours.mkdir(mode=0o755)
    assert mode(private_folder(ours)) == 0o700
