"""The lobby across a host's processes, as PostgreSQL keeps it (server/store/directory.py):
each process's rows seen by the others while its lease runs, changed and removed row by row,
gone whole when it starts afresh or withdraws, and gone from the others' sight once its
lease lapses, on PostgreSQL's clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.store.database import StoreError
from server.store.directory import Listed, PostgresDirectory
from server.store.postgres_database import PostgresDatabase
from tests.kits.poll import until_blocking

pytestmark = pytest.mark.usefixtures("postgres")


@pytest.fixture
def directories(pg_url: str) -> Iterator[dict[str, PostgresDirectory]]:
    made = {
        "one": PostgresDirectory(PostgresDatabase(pg_url), "m:/one.db", lease=60.0),
        "two": PostgresDirectory(PostgresDatabase(pg_url), "m:/two.db", lease=60.0),
    }
    yield made
    for directory in made.values():
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
    brief = PostgresDirectory(PostgresDatabase(pg_url), "m:/brief.db", lease=0.5)
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
