"""The lobby across a host's processes, as PostgreSQL keeps it (server/store/directory.py):
each process's rows seen by the others while its lease runs, changed and removed row by row,
gone whole when it starts afresh or withdraws, and gone from the others' sight once its
lease lapses, on PostgreSQL's clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from server.store.database import StoreError
from server.store.directory import Listed, PostgresDirectory
from server.store.postgres_database import PostgresDatabase
from tests.kits.poll import until_blocking

pytestmark = pytest.mark.usefixtures("postgres")


def made(url: str, process: str, lease: float) -> PostgresDirectory:
    return PostgresDirectory(PostgresDatabase(url), PostgresDatabase(url), process, lease)


@pytest.fixture
def directories(pg_url: str) -> Iterator[dict[str, PostgresDirectory]]:
    opened = {name: made(pg_url, f"m:/{name}.db", 60.0) for name in ("one", "two")}
    yield opened
    for directory in opened.values():
        directory.close()


def test_a_process_s_tables_are_seen_by_the_others_row_by_row(directories):
    one, two = directories["one"], directories["two"]
    one.publish("ws://one:1", {"t1": b"a", "t2": b"b"}, (), fresh=True)
    assert two.elsewhere() == [Listed("t1", "ws://one:1", b"a"), Listed("t2", "ws://one:1", b"b")]
    assert one.elsewhere() == []  # its own are its own to list
    one.publish("ws://one:1", {"t2": b"B"}, ["t1"], fresh=False)
    assert two.elsewhere() == [Listed("t2", "ws://one:1", b"B")]
    two.publish("ws://two:2", {"t3": b"c"}, (), fresh=True)
    assert one.elsewhere() == [Listed("t3", "ws://two:2", b"c")]


def test_a_fresh_start_forgets_what_a_process_listed_before(directories):
    one, two = directories["one"], directories["two"]
    one.publish("ws://one:1", {"t1": b"a"}, (), fresh=True)
    one.publish("ws://one:1", {"t2": b"b"}, (), fresh=True)  # started again: t1 is gone
    assert [listed.table_id for listed in two.elsewhere()] == ["t2"]


def test_a_withdrawn_process_is_listed_no_more(directories):
    one, two = directories["one"], directories["two"]
    one.publish("ws://one:1", {"t1": b"a"}, (), fresh=True)
    one.withdraw()
    assert two.elsewhere() == []


def test_a_process_whose_lease_lapses_is_listed_no_more(pg_url, directories):
    brief = made(pg_url, "m:/brief.db", 0.5)
    try:
        brief.publish("ws://brief:3", {"t1": b"a"}, (), fresh=True)
        assert [listed.table_id for listed in directories["two"].elsewhere()] == ["t1"]
        until_blocking("the lease lapsing", lambda: directories["two"].elsewhere() == [])
        brief.publish("ws://brief:3", {}, (), fresh=False)  # renewed: alive again
        assert [listed.table_id for listed in directories["two"].elsewhere()] == ["t1"]
    finally:
        brief.close()


def test_a_publish_that_fails_lands_nothing(directories):
    one, two = directories["one"], directories["two"]
    one.publish("ws://one:1", {"t1": b"a"}, (), fresh=True)
    two.publish("ws://two:2", {}, (), fresh=True)
    with pytest.raises(StoreError):  # t1 gone, then a row of NULL fails: t1 stays
        one.publish("ws://one:1", {"t2": None}, ["t1"], fresh=False)  # type: ignore[dict-item]
    assert [listed.table_id for listed in two.elsewhere()] == ["t1"]


def test_a_change_is_heard_at_once_and_a_listener_that_lost_its_connection_reads_again(
    pg_url, directories
):
    one, two = directories["one"], directories["two"]
    assert two.heard(0.0) is True  # listening from now: what came before is unknown
    assert two.heard(0.0) is False  # nothing said since
    one.publish("ws://one:1", {}, (), fresh=False)  # a renewal alone says nothing
    assert two.heard(0.0) is False
    one.publish("ws://one:1", {"t1": b"a"}, (), fresh=False)
    assert two.heard(30.0) is True  # heard, long before the 30 s
    with pytest.raises(StoreError):  # a write that did not land says nothing either
        one.publish("ws://one:1", {"t2": None}, (), fresh=False)  # type: ignore[dict-item]
    assert two.heard(0.0) is False
    with psycopg.connect(pg_url, autocommit=True) as admin:  # the listener's connection ends
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'gother' AND query LIKE 'LISTEN%'"
        )
    assert two.heard(30.0) is True  # lost: read everything again
    until_blocking("listening again", lambda: two.heard(0.0) is False)
    one.publish("ws://one:1", {"t1": b"b"}, (), fresh=False)
    assert two.heard(30.0) is True


def test_a_quiet_listener_sleeps_the_whole_wait(directories):
    """Issue 34 §4: waiting for a change, the listener's thread sleeps on its connection
    until the timeout, not woken every 0.1 s as psycopg's own wait is (each of a host's
    processes paid that for each listener)."""
    two = directories["two"]
    assert two.heard(0.0) is True  # listening from now

    def sleeps() -> int:
        status = Path("/proc/thread-self/status").read_text()
        return int(status.split("voluntary_ctxt_switches:")[1].split()[0])

    before = sleeps()
    assert two.heard(1.0) is False
    assert sleeps() - before <= 3  # psycopg's own wait: about 10
