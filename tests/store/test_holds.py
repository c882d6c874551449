"""Which process runs each tournament (server/store/holds.py): one at a time; a process
whose session ends (it stopped, or died: the server ends the session with its socket) lets
go of its tournaments, which another may take then; a process whose connection was lost and
made again knows its locks went with it."""

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


def test_locks_lost_with_their_connection_are_known_lost_until_taken_again(pg_url):
    one, two = PostgresHolds(PostgresDatabase(pg_url)), PostgresHolds(PostgresDatabase(pg_url))
    assert one.lost() == set()  # none taken
    assert one.take("abc123") and one.take("def456")
    assert one.lost() == set()
    session = one.database.row("SELECT pg_backend_pid()")
    assert session is not None
    with psycopg.connect(pg_url, autocommit=True) as admin:  # the session ends, the process lives
        admin.execute("SELECT pg_terminate_backend(%s)", (session[0],))
    assert one.lost() == {"abc123", "def456"}  # found out: the connection failed
    # connected again by a take: a lock on the new session does not make the old ones held
    until_blocking("one connected again", lambda: one.take("ghi789"))
    assert one.lost() == {"abc123", "def456"}  # and so they stay, asked again
    assert two.take("def456")  # free: another process took it meanwhile
    assert one.take("abc123")  # taken again, on the new session
    assert one.lost() == {"def456"}
    assert not one.take("def456")  # another's now: no longer ours to lose
    assert one.lost() == set()
    one.close()
    two.close()
