"""Games ended at the host's other processes, heard as their outcomes land (server/store/
ended.py): a game's end is heard by the others with its outcome, not by its own process; an
end that did not land is not heard; a listener that listens anew or lost its connection
says it cannot know what was said (every outcome is read again)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from server.store.database import StoreError
from server.store.ended import HeardEnd
from server.store.kinds import open_store
from server.store.postgres import PostgresStore
from tests.kits.poll import until_blocking
from tests.store.test_repositories import OUTCOME, dealt

pytestmark = pytest.mark.usefixtures("postgres")


def opened(pg_url: str, log: str) -> PostgresStore:
    store = open_store(pg_url, log)
    assert isinstance(store, PostgresStore)
    return store


def test_a_game_s_end_is_heard_by_the_other_processes_once_it_landed(pg_url, tmp_path):
    one, two = opened(pg_url, str(tmp_path / "one.db")), opened(pg_url, str(tmp_path / "two.db"))
    assert one.ended is not None and two.ended is not None
    assert two.ended.heard(0.0) is None  # listening from now: what came before is unknown
    assert one.ended.heard(0.0) is None
    dealt(one, "t1")
    assert two.ended.heard(0.0) == []  # a game begun says nothing
    one.outcomes.finish_game("t1", 1, OUTCOME)
    assert two.ended.heard(30.0) == [HeardEnd("t1", 1, OUTCOME, practice=False)]
    assert one.ended.heard(0.0) == []  # its own: counted as it ended
    dealt(one, "t2")
    one.crossing.database.write(("DROP TABLE hints", {}))  # the crossing cannot land now
    with pytest.raises(StoreError):
        one.outcomes.finish_game("t2", 1, OUTCOME)
    assert two.ended.heard(0.0) == []  # what did not land was not said
    one.close()
    two.close()


def end_the_listeners(pg_url: str) -> None:
    """Every listener's connection ends, as PostgreSQL restarted would end it."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'gother' AND query LIKE 'LISTEN \"gother_ended\"%'"
        )


def test_a_listener_that_lost_its_connection_says_it_cannot_know(pg_url, tmp_path):
    one, two = opened(pg_url, str(tmp_path / "one.db")), opened(pg_url, str(tmp_path / "two.db"))
    assert two.ended is not None
    assert two.ended.heard(0.0) is None
    end_the_listeners(pg_url)
    assert two.ended.heard(30.0) is None  # lost: read every outcome again
    until_blocking("listening again", lambda: two.ended.heard(0.0) == [])
    dealt(one, "t1")
    one.outcomes.finish_game("t1", 1, OUTCOME)
    assert two.ended.heard(30.0) == [HeardEnd("t1", 1, OUTCOME, practice=False)]
    one.close()
    two.close()


def test_a_listener_whose_connection_ends_while_it_waits_says_it_cannot_know(pg_url, tmp_path):
    """Woken on its socket by the connection's end, not by news: not "nothing said" (the
    end's message read, the connection still looked alive: a loaded run failed so)."""
    store = opened(pg_url, str(tmp_path / "one.db"))
    assert store.ended is not None
    assert store.ended.heard(0.0) is None  # listening from now
    with ThreadPoolExecutor(1) as waiting:
        heard = waiting.submit(store.ended.heard, 30.0)  # asleep on its socket, by now
        end_the_listeners(pg_url)
        assert heard.result(timeout=60) is None
    until_blocking("listening again", lambda: store.ended.heard(0.0) == [])
    store.close()
