"""A game process cut off from PostgreSQL by the network (issue 34 §3, past one machine): the
server ends its session within seconds, so the tournaments whose locks it held are free for a
live process, not held for the two hours of the kernel's default keepalive.

PostgreSQL runs in a network namespace of the test's own, the cut-off process's connection is
made in another, joined by a veth pair; the cut is that link going down, so nothing answers
(as a machine gone or a network dropping everything, not a process killed, whose kernel
would close its socket at once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.store.holds import PostgresHolds
from server.store.postgres_database import PostgresDatabase
from tests.e2e.netnskit import Host, inside, ip, needs_netns, two_hosts
from tests.kits.pgkit import Cluster, missing
from tests.kits.poll import until_blocking

pytestmark = [needs_netns, pytest.mark.skipif(missing() is not None, reason=str(missing()))]


@pytest.fixture
def apart() -> Iterator[tuple[str, Host, Host]]:
    """A database on a PostgreSQL in one namespace (its URL), that namespace, and another."""
    with two_hosts() as (db_host, game_host):
        cluster = Cluster.started(netns=db_host.netns, host=db_host.address)
        try:
            with inside(db_host):
                url = cluster.new_database()
            yield url, db_host, game_host
        finally:
            cluster.remove()


def holds(url: str, host: Host) -> PostgresHolds:
    """A process's tournament locks, on a connection made in `host`."""
    with inside(host):
        return PostgresHolds(PostgresDatabase(url))


def test_a_runner_cut_off_from_postgresql_lets_go_of_its_tournaments_within_seconds(apart):
    url, db_host, game_host = apart
    runner = holds(url, game_host)
    assert runner.take("night")
    other = holds(url, db_host)  # a live process, where the server is reached
    assert not other.take("night")  # the runner runs it

    ip("-n", game_host.netns, "link", "set", game_host.link, "down")  # nothing answers now

    # its session ends once the server's keepalives go unanswered (5 s, then two probes 2 s apart)
    until_blocking("the cut-off runner's tournament taken", lambda: other.take("night"), 30)
    other.close()
    runner.close()  # its link is down: only its socket is closed
