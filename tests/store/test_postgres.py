"""What is PostgreSQL's own in the store: its schema made and upgraded (once, whole, or not at
all), the table log one process holds, the errors when the server goes away (StoreError for a
write, StoreUnavailable for a read, nothing half-written) and the store finding it again by
itself, a game's end that could not cross landing whole once it can, and several processes
of one host sharing what spans tables."""

from __future__ import annotations

import copy
import dataclasses
import subprocess
import sys
import threading
from collections.abc import Iterator

import psycopg
import pytest

from server.store import postgres_schema
from server.store.database import StoreError, StoreUnavailable
from server.store.kinds import open_reader, open_store
from server.store.postgres import PostgresReader, PostgresStore
from server.store.postgres_database import PostgresDatabase, shown
from server.store.tables import SeatRecord
from tests.kits.pgkit import Cluster, free_port
from tests.kits.poll import until_blocking
from tests.kits.tablekit import FakeClock, first_legal, make_table, seat_players
from tests.store.test_repositories import OUTCOME, dealt, new_table

pytestmark = pytest.mark.usefixtures("postgres")


@pytest.fixture
def stoppable(postgres: Cluster) -> Iterator[Cluster]:
    """The session's server, for a test that stops it: running again after the test."""
    yield postgres
    if not (postgres.data / "postmaster.pid").exists():
        postgres.start()


def psql(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url, autocommit=True) as db:
        cursor = db.execute(sql)  # type: ignore[arg-type]
        return cursor.fetchall() if cursor.description else []


# -- the schema ----------------------------------------------------------------------------


def test_a_new_database_is_made_at_the_current_version(pg_url, tmp_path):
    assert psql(pg_url, "SELECT to_regclass('gother_schema')") == [(None,)]
    store = open_store(pg_url, str(tmp_path / "log.db"))
    store.close()
    assert psql(pg_url, "SELECT version FROM gother_schema") == [(postgres_schema.SCHEMA_VERSION,)]


def test_a_database_newer_than_the_server_is_refused(pg_url, tmp_path):
    open_store(pg_url, str(tmp_path / "log.db")).close()
    psql(pg_url, "UPDATE gother_schema SET version = 99")
    with pytest.raises(StoreUnavailable, match="schema version 99 is newer"):
        open_store(pg_url, str(tmp_path / "log.db"))


def test_an_upgrade_that_fails_leaves_the_database_at_its_version(pg_url, monkeypatch):
    PostgresDatabase(pg_url).close()  # at the current version
    now = postgres_schema.SCHEMA_VERSION
    broken = "CREATE TABLE half_made (x INTEGER); SELECT no_such_function();"
    monkeypatch.setattr(postgres_schema, "UPGRADES", (*postgres_schema.UPGRADES, broken))
    monkeypatch.setattr(postgres_schema, "SCHEMA_VERSION", now + 1)
    with pytest.raises(StoreUnavailable, match="no_such_function"):
        PostgresDatabase(pg_url)
    assert psql(pg_url, "SELECT version FROM gother_schema") == [(now,)]
    assert psql(pg_url, "SELECT to_regclass('half_made')") == [(None,)]


def test_a_database_of_version_1_is_upgraded_with_what_it_holds(pg_url, monkeypatch):
    with monkeypatch.context() as older:  # a host's database as the first server made it
        older.setattr(postgres_schema, "SCHEMA_VERSION", 1)
        older.setattr(postgres_schema, "UPGRADES", postgres_schema.UPGRADES[:1])
        PostgresDatabase(pg_url).close()
    psql(pg_url, "INSERT INTO names VALUES ('ann', 'Ann', 'id-1', 1.0)")
    assert psql(pg_url, "SELECT to_regclass('lobby')") == [(None,)]
    PostgresDatabase(pg_url).close()
    assert psql(pg_url, "SELECT version FROM gother_schema") == [(postgres_schema.SCHEMA_VERSION,)]
    assert psql(pg_url, "SELECT name FROM names") == [("Ann",)]
    assert psql(pg_url, "SELECT COUNT(*) FROM lobby") == [(0,)]
    assert psql(pg_url, "SELECT COUNT(*) FROM hints") == [(0,)]


def test_processes_starting_at_once_upgrade_the_database_once(pg_url):
    opened: list[PostgresDatabase | Exception] = []

    def start() -> None:
        try:
            opened.append(PostgresDatabase(pg_url))
        except Exception as exc:
            opened.append(exc)

    starting = [threading.Thread(target=start) for _ in range(4)]
    for thread in starting:
        thread.start()
    for thread in starting:
        thread.join()
    assert all(isinstance(db, PostgresDatabase) for db in opened), opened
    assert psql(pg_url, "SELECT version FROM gother_schema") == [(postgres_schema.SCHEMA_VERSION,)]
    for db in opened:
        assert isinstance(db, PostgresDatabase)
        db.close()


# -- the table log -------------------------------------------------------------------------


def test_a_table_log_is_held_by_one_process_at_a_time(pg_url, tmp_path):
    log = str(tmp_path / "log.db")
    store = open_store(pg_url, log)
    with pytest.raises(StoreUnavailable, match="another process holds it"):
        open_store(pg_url, log)
    other = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from server.store.kinds import open_store; open_store({pg_url!r}, {log!r})",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert other.returncode != 0 and "another process holds it" in other.stderr
    store.close()
    open_store(pg_url, log).close()  # let go with its holder


# -- failures ------------------------------------------------------------------------------


def test_a_server_gone_fails_writes_and_reads_and_is_found_again(pg_url, tmp_path, stoppable):
    store = open_store(pg_url, str(tmp_path / "log.db"))
    store.people.claim_name({"ann"}, "Ann", "id-1", 1.0)
    stoppable.stop("immediate")  # as a crash looks to its clients
    with pytest.raises(StoreError, match=r"^database postgresql://"):
        store.people.claim_name({"bo"}, "Bo", "id-2", 2.0)
    with pytest.raises(StoreUnavailable):
        store.people.name_owners({"ann"})
    stoppable.start()

    def lands() -> bool:
        try:
            store.people.claim_name({"bo"}, "Bo", "id-2", 2.0)
        except StoreError:
            return False
        return True

    until_blocking("a write landing again", lands)
    assert sorted(store.people.name_owners({"ann", "bo"})) == [("id-1", 1.0), ("id-2", 2.0)]
    store.close()


def test_a_connection_ended_by_the_server_is_made_again(pg_url, tmp_path):
    store = open_store(pg_url, str(tmp_path / "log.db"))
    psql(
        pg_url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gother'",
    )
    with pytest.raises(StoreUnavailable):
        store.outcomes.has_games()
    assert until_blocking("the store reading again", lambda: _reads(store)) is True
    store.close()


def test_a_close_as_a_lost_connection_is_made_again_never_fails(pg_url, monkeypatch):
    """`close` on one thread while another is about to start making a lost connection again
    (a listener's, woken by the close itself as a server stops: test_called_across's
    teardown failed so under load, "cannot join thread before it is started")."""
    database = PostgresDatabase(pg_url)
    start = threading.Thread.start
    closed = []

    def close_first(thread: threading.Thread) -> None:
        if thread.name == "gother-db" and not closed:  # the other thread runs close just now
            closed.append(database.close())
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", close_first)
    assert database.connection is not None
    database.connection.close()  # lost: the next use makes it again in a thread
    with pytest.raises(StoreUnavailable):
        database.rows("SELECT 1")
    assert closed == [None]
    assert database.connection is None  # and none is made again after its close


def test_a_closed_database_says_so_and_never_connects_again(pg_url):
    database = PostgresDatabase(pg_url)
    database.close()
    with pytest.raises(StoreUnavailable, match=r"no connection \(closed\)$"):
        database.rows("SELECT 1")
    assert database.closed and database.connection is None
    assert not [t for t in threading.enumerate() if t.name == "gother-db"]


def _reads(store: object) -> bool:
    try:
        assert isinstance(store, PostgresStore)
        store.outcomes.has_games()
    except StoreUnavailable:
        return False
    return True


def test_a_change_of_several_writes_lands_whole_or_not_at_all(pg_url):
    db = PostgresDatabase(pg_url)
    claim = "INSERT INTO names (skeleton, name, identity, seen) VALUES (:key, 'N', 'i', 1)"
    db.write((claim, {"key": "a"}))
    with pytest.raises(StoreError, match="duplicate key"):
        db.write((claim, {"key": "b"}), (claim, {"key": "a"}))
    assert db.rows("SELECT skeleton FROM names") == [("a",)]
    db.close()


def test_a_game_end_that_cannot_cross_stops_its_table_and_lands_whole_later(
    pg_url, tmp_path, stoppable
):
    store = open_store(pg_url, str(tmp_path / "log.db"))
    clock = FakeClock()
    table = make_table(clock, store=store)  # type: ignore[arg-type]
    seat_players(table)
    table.start_if_full()
    game = table.game
    assert game is not None
    while True:  # up to the move that ends the game, made with PostgreSQL gone
        seat = game.to_act()
        assert seat is not None
        legal = table.wire_view(seat).legal
        assert legal is not None
        move = first_legal(legal)
        ahead = copy.deepcopy(game)
        ahead.apply(seat, move)
        if ahead.over:
            break
        table.move(seat, move)
    moves = len(game.moves) + 1
    stoppable.stop("immediate")
    table.move(seat, move)  # in the log: the game is over, its end not in PostgreSQL
    assert game.over and table.stopped is not None and "cannot save" in table.stopped
    stoppable.start()
    assert psql(pg_url, "SELECT COUNT(*) FROM moves") == [(0,)]  # nothing half-written
    assert psql(pg_url, "SELECT game_no FROM tables WHERE id = 't1'") == [(0,)]
    until_blocking("the table taking changes again", table.try_reopen)
    assert table.stopped is None
    assert store.outcomes.has_outcome("t1", 1)
    assert len(store.archive.game("t1", 1)[1]) == moves
    assert store.archive.table("t1").game_no == 1
    store.close()


# -- one host, several processes -----------------------------------------------------------


def test_what_spans_tables_is_every_process_s(pg_url, tmp_path):
    one = open_store(pg_url, str(tmp_path / "one.db"))
    two = open_store(pg_url, str(tmp_path / "two.db"))
    played = dealt(one, "t1")
    assert two.tables.has_table("t1")  # an id taken anywhere is taken for all
    assert not two.archive.game("t1", 1)[1]  # a game being played stays where it is played
    one.outcomes.finish_game("t1", 1, OUTCOME)
    assert two.archive.game("t1", 1)[1] == played
    assert two.outcomes.outcome("t1", 1) == OUTCOME
    one.people.claim_name({"ann"}, "Ann", "id-ann", 5.0)
    assert two.people.name_of("id-ann") == "Ann"
    assert two.tables.load() == []  # and each process restores its own tables only
    assert [r.id for r in one.tables.load()] == ["t1"]
    held = psql(pg_url, "SELECT log FROM tables WHERE id = 't1'")[0][0]
    assert isinstance(held, str) and held.endswith(str(tmp_path / "one.db"))
    one.close()
    two.close()


def test_a_start_lets_go_of_tables_the_log_no_longer_holds(pg_url, tmp_path):
    """A table made in PostgreSQL whose log write never came (the process died between the
    two) is forgotten; one whose games crossed but which left the log is let go."""
    log = str(tmp_path / "log.db")
    store = open_store(pg_url, log)
    assert isinstance(store, PostgresStore)
    new_table(store, "kept")
    dealt(store, "gone")
    store.outcomes.finish_game("gone", 1, OUTCOME)
    store.log.tables.delete_table("gone")  # in the log no more; PostgreSQL still says held
    store.crossing.register(dataclasses.replace(store.tables.table("kept"), id="ghost"))
    store.close()
    store = open_store(pg_url, log)
    assert [r.id for r in store.tables.load()] == ["kept"]
    assert psql(pg_url, "SELECT id, log IS NULL FROM tables ORDER BY id") == [
        ("gone", True),
        ("kept", False),
    ]
    store.close()


def test_a_reader_reads_and_never_writes(pg_url, tmp_path):
    store = open_store(pg_url, str(tmp_path / "log.db"))
    dealt(store)
    store.outcomes.finish_game("t1", 1, OUTCOME)
    store.close()
    reader = open_reader(pg_url)
    assert reader.outcomes.outcome("t1", 1) == OUTCOME
    assert reader.archive.table("t1").seat_records[0] == SeatRecord(
        0, "Ann", None, None, bank=300.0, identity="id-ann"
    )
    assert isinstance(reader, PostgresReader)
    with pytest.raises(StoreError, match="read-only"):
        reader.database.write(("DELETE FROM games", {}))
    reader.close()


def test_a_database_url_is_never_shown_with_its_password():
    assert shown("postgresql://gother:s3cret@db.example/host") == (
        "postgresql://gother:***@db.example/host"
    )
    assert shown("postgresql:///gother?password=s3cret&sslmode=require") == (
        "postgresql:///gother?password=***&sslmode=require"
    )
    assert shown("postgresql://gother@db/host") == "postgresql://gother@db/host"


def test_a_server_that_cannot_be_reached_is_said_at_start(tmp_path):
    url = f"postgresql://gother:pw@127.0.0.1:{free_port()}/none"
    with pytest.raises(StoreUnavailable) as refused:
        open_store(url, str(tmp_path / "log.db"))
    assert isinstance(refused.value, OSError) and "pw" not in str(refused.value)
    assert "Connection refused" in str(refused.value)
