"""Which process runs each tournament (server/store/holds.py): one at a time; a process
whose session ends (it stopped, or died: the server ends the session with its socket) lets
go of its tournaments, which another may take then."""

from __future__ import annotations

import psycopg
import pytest

from server.store.holds import PostgresHolds
from server.store.postgres_database import PostgresDatabase
from tests.kits.poll import until_blocking

pytestmark = pytest.mark.usefixtures("postgres")


def test_a_tournament_is_run_by_one_process_until_its_session_ends(pg_url):
    one, two = PostgresHolds(PostgresDatabase(pg_url)), PostgresHolds(PostgresDatabase(pg_url))
    assert one.take("abc123")
    assert one.take("abc123")  # its own still
    assert not two.take("abc123")
    assert two.take("zzz999")  # another is another's
    one.close()
    until_blocking("one's hold let go with its session", lambda: two.take("abc123"))
    third = PostgresHolds(PostgresDatabase(pg_url))
    assert not third.take("abc123")
    session = two.database.row("SELECT pg_backend_pid()")
    assert session is not None
    with psycopg.connect(pg_url, autocommit=True) as admin:  # two's session ends (as a death)
        admin.execute("SELECT pg_terminate_backend(%s)", (session[0],))
    until_blocking("two's hold let go", lambda: third.take("abc123"))
    two.close()
    third.close()
