"""Takeover after `kill -9` (issue 34 §3, server/store/takeover.py), on real PostgreSQL and
real table logs: a process's death is its store closed without withdrawing (its lock goes
with it, its lease stays), as the kernel does for a process killed. A live process takes its
tables whole, once; a live process's, or one stopped cleanly, are never taken; two takers
racing take each table once; a takeover stopped half way is settled by the log PostgreSQL
names, whichever process starts again."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from server.store import takeover
from server.store.database import SqliteDatabase
from server.store.kinds import open_store
from server.store.postgres import PostgresStore
from server.store.tables import TableRecord
from tests.kits.poll import until_blocking
from tests.store.test_postgres import psql
from tests.store.test_repositories import dealt, new_table

pytestmark = pytest.mark.usefixtures("postgres")


def opened(pg_url: str, log: Path, lease: float | None = None) -> PostgresStore:
    """A process's store, its lease renewed (as its first publish does), for `lease`
    seconds if given."""
    store = open_store(pg_url, str(log))
    assert isinstance(store, PostgresStore) and store.directory is not None
    if lease is not None:
        store.directory.lease = lease
    store.directory.publish(f"ws://{log.stem}:1", {}, (), fresh=True)
    return store


def killed(pg_url: str, log: Path, table_id: str) -> None:
    """A process of `log` that dealt `table_id` and died: back once its lease has lapsed."""
    store = opened(pg_url, log, lease=0.1)
    assert store.directory is not None
    dealt(store, table_id)
    store.close()
    lapsed(pg_url, store.directory.process)


def held(pg_url: str) -> dict[str, str]:
    """Each table's log, as PostgreSQL names it: the file's stem."""
    return {
        table_id: Path(log).stem
        for table_id, log in psql(pg_url, "SELECT id, log FROM tables WHERE log IS NOT NULL")
    }


def lapsed(pg_url: str, process: str) -> None:
    """Once `process`'s lease has lapsed, on PostgreSQL's clock."""
    sql = f"SELECT lease_until < now() FROM processes WHERE id = '{process}'"
    until_blocking(f"the lease of {process} lapsing", lambda: psql(pg_url, sql)[0][0])


def in_log(log: Path) -> list[str]:
    database = SqliteDatabase(str(log))
    try:
        return [table_id for (table_id,) in database.rows("SELECT id FROM tables ORDER BY id")]
    finally:
        database.close()


def test_a_dead_process_s_tables_are_taken_whole_into_a_live_one(pg_url, tmp_path):
    dead = opened(pg_url, tmp_path / "dead.db")
    played = dealt(dead, "t1", moves=5)
    dead.tables.add_hint("t1", 1, 4, 2, played[0].move)
    new_table(dead, "t2")  # not dealt yet
    before, movers = dead.tables.table("t1"), dead.tables.movers("t1", 1)
    dead.close()  # killed: no withdrawal, its lock gone with it
    live = opened(pg_url, tmp_path / "live.db")
    assert live.directory is not None

    taken = live.directory.take()

    assert sorted(record.id for record in taken) == ["t1", "t2"]
    record = next(r for r in taken if r.id == "t1")
    assert isinstance(record, TableRecord) and record == before  # every move, seat, chat line
    assert live.tables.table("t1") == before  # in the taker's log, durably
    assert live.tables.hints("t1", 1, 2) == {4: played[0].move}
    assert live.tables.movers("t1", 1) == movers  # which moves a bot made for a player
    assert held(pg_url) == {"t1": "live", "t2": "live"}
    assert in_log(tmp_path / "dead.db") == []  # the dead log emptied
    assert live.directory.take() == []  # and taken once
    live.tables.add_move("t1", 1, 5, 2, played[0].move)  # it plays on here
    assert len(live.tables.game("t1", 1)[1]) == 6
    live.close()


def test_a_live_process_s_tables_are_never_taken(pg_url, tmp_path):
    alive = opened(pg_url, tmp_path / "alive.db")
    dealt(alive, "t1")
    other = opened(pg_url, tmp_path / "other.db")
    assert other.directory is not None
    assert other.directory.take() == []  # its lock is held: it lives, whatever its lease
    assert held(pg_url) == {"t1": "alive"}
    assert in_log(tmp_path / "alive.db") == ["t1"]
    alive.close()
    other.close()


def test_a_process_stopped_cleanly_keeps_its_tables_for_its_return(pg_url, tmp_path):
    stopped = opened(pg_url, tmp_path / "stopped.db")
    dealt(stopped, "t1")
    assert stopped.directory is not None
    stopped.directory.withdraw()
    stopped.close()
    other = opened(pg_url, tmp_path / "other.db")
    assert other.directory is not None
    assert other.directory.take() == []
    assert held(pg_url) == {"t1": "stopped"}
    other.close()
    back = opened(pg_url, tmp_path / "stopped.db")
    assert [record.id for record in back.tables.load()] == ["t1"]
    back.close()


def test_two_takers_racing_take_each_table_once(pg_url, tmp_path):
    dead = opened(pg_url, tmp_path / "dead.db")
    ids = [f"t{n}" for n in range(12)]
    for table_id in ids:
        dealt(dead, table_id, moves=2)
    dead.close()
    takers = [opened(pg_url, tmp_path / f"{name}.db") for name in ("one", "two")]
    start = threading.Barrier(len(takers))
    took: dict[str, list[str]] = {}

    def race(store: PostgresStore) -> None:
        assert store.directory is not None
        start.wait()
        took[store.directory.process] = [record.id for record in store.directory.take()]

    threads = [threading.Thread(target=race, args=(store,)) for store in takers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    both = [table_id for taken in took.values() for table_id in taken]
    assert sorted(both) == sorted(ids)  # every table taken, none twice
    holders = held(pg_url)
    for store in takers:
        mine = took[store.directory.process]  # type: ignore[union-attr]
        assert sorted(r.id for r in store.tables.load()) == sorted(mine)  # its log: its own
        assert all(holders[table_id] == Path(store.log.path).stem for table_id in mine)
        store.close()


def test_a_takeover_stopped_before_it_claimed_leaves_the_table_with_its_log(pg_url, tmp_path):
    """Copied into the taker's log, then the taker died before PostgreSQL was told: the dead
    process, started again, holds its table still, and the taker started again drops its
    copy."""
    dead_log, taker_log = tmp_path / "dead.db", tmp_path / "taker.db"
    dead = opened(pg_url, dead_log)
    played = dealt(dead, "t1")
    dead.close()
    taker = opened(pg_url, taker_log)
    taker.close()
    ours = SqliteDatabase(str(taker_log))
    takeover._copy(ours, str(dead_log), ["t1"])  # step 1 only
    ours.close()
    assert in_log(taker_log) == ["t1"]

    back = opened(pg_url, dead_log)
    assert [record.id for record in back.tables.load()] == ["t1"]
    assert back.tables.game("t1", 1)[1] == played
    taker = opened(pg_url, taker_log)
    assert taker.tables.load() == []  # PostgreSQL names the other log: its copy is dropped
    assert in_log(taker_log) == []
    assert held(pg_url) == {"t1": "dead"}
    back.close()
    taker.close()


def test_a_process_started_again_after_its_tables_were_taken_starts_without_them(pg_url, tmp_path):
    dead = opened(pg_url, tmp_path / "dead.db")
    dealt(dead, "t1")
    dead.close()
    taker = opened(pg_url, tmp_path / "taker.db")
    assert taker.directory is not None
    assert [record.id for record in taker.directory.take()] == ["t1"]
    back = opened(pg_url, tmp_path / "dead.db")  # --processes started it again
    assert back.tables.load() == []
    assert [record.id for record in taker.tables.load()] == ["t1"]
    back.close()
    taker.close()


def test_a_dead_log_that_cannot_be_read_does_not_keep_the_others_from_being_taken(pg_url, tmp_path):
    for name in ("broken", "fine"):
        dead = opened(pg_url, tmp_path / f"{name}.db")
        dealt(dead, f"t-{name}")
        dead.close()
    (tmp_path / "broken.db").write_bytes(b"not a table log" * 100)
    live = opened(pg_url, tmp_path / "live.db")
    assert live.directory is not None
    assert [record.id for record in live.directory.take()] == ["t-fine"]
    assert held(pg_url) == {"t-broken": "broken", "t-fine": "live"}  # tried again next time
    live.close()


def test_a_process_dead_before_the_taker_started_is_left_to_its_own_restart(pg_url, tmp_path):
    """A power cut: every process died; the first one up must not take the others' tables
    before they are up. One that dies while it runs is taken, lease lapsed or not."""
    killed(pg_url, tmp_path / "before.db", "t-before")  # before the taker's start
    live = opened(pg_url, tmp_path / "live.db")
    assert live.directory is not None
    assert live.directory.take() == []
    killed(pg_url, tmp_path / "during.db", "t-during")  # too, but it ran while the taker did
    assert [record.id for record in live.directory.take()] == ["t-during"]
    assert held(pg_url) == {"t-before": "before", "t-during": "live"}
    live.close()
