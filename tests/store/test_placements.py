"""A tournament round's tables placed at the host's processes, as PostgreSQL keeps them
(server/store/placements.py): the live processes' loads, a placement read by its target
only and woken once it landed, answered with the table made (its runner woken), placed all
or none, and gone with a target that withdraws."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.view import Variants
from server.store.database import StoreError
from server.store.directory import PostgresDirectory
from server.store.placements import Placement, PostgresPlacements
from server.store.postgres_database import PostgresDatabase

pytestmark = pytest.mark.usefixtures("postgres")

ONE, TWO = "m:/one.db", "m:/two.db"


def placement(number: int, table_id: str | None = None) -> Placement:
    return Placement(
        "trn001",
        1,
        number,
        f"Cup r1 t{number}",
        4,
        Variants(),
        "steady",
        2**52 + 7,  # a duplicate round's seed: 53 bits kept whole
        (("id:ann", "Ann"), ("Bob", "Bob")),
        table_id,
    )


@pytest.fixture
def host(pg_url: str) -> Iterator[tuple[PostgresDatabase, dict[str, PostgresDirectory]]]:
    """A store connection, and two processes' directories, both published."""
    directories = {
        process: PostgresDirectory(PostgresDatabase(pg_url), PostgresDatabase(pg_url), process)
        for process in (ONE, TWO)
    }
    directories[ONE].publish("ws://one:1", {"t1": b"a", "t2": b"b", "tournament:x": b"c"}, (), True)
    directories[TWO].publish("ws://two:2", {"t3": b"c"}, (), True)
    for directory in directories.values():
        assert directory.heard(0.0)  # listening from now
    database = PostgresDatabase(pg_url)
    yield database, directories
    database.close()
    for directory in directories.values():
        directory.close()


def test_the_loads_are_the_live_processes_tables_without_their_tournaments(host):
    database, directories = host
    assert PostgresPlacements(database, ONE).loads() == {ONE: 2, TWO: 1}
    directories[TWO].publish("ws://two:2", {}, ["t3"], False)
    assert PostgresPlacements(database, ONE).loads() == {
        ONE: 2,
        TWO: 0,
    }  # a process with none is live still
    directories[TWO].withdraw()
    assert PostgresPlacements(database, ONE).loads() == {ONE: 2}


def test_a_placement_wakes_its_target_which_alone_reads_it_until_it_answers(host):
    database, directories = host
    directories[ONE].heard(0.0)
    directories[TWO].heard(0.0)  # what the publishes said is heard
    PostgresPlacements(database, ONE).place([(TWO, placement(2))])
    assert directories[TWO].heard(30.0)
    assert PostgresPlacements(database, TWO).pending() == [placement(2)]  # read back whole
    assert PostgresPlacements(database, ONE).pending() == []
    assert PostgresPlacements(database, ONE).answers("trn001", 1) == {2: None}
    directories[ONE].heard(0.0)  # woken by the placement too: all listen on one channel
    PostgresPlacements(database, TWO).made(placement(2), "tab222")
    assert directories[ONE].heard(30.0)  # the runner is woken to read the answer
    assert PostgresPlacements(database, ONE).answers("trn001", 1) == {2: "tab222"}
    assert PostgresPlacements(database, TWO).pending() == []
    PostgresPlacements(database, TWO).made(
        placement(2), "other"
    )  # made once: a second answer is none
    assert PostgresPlacements(database, ONE).answers("trn001", 1) == {2: "tab222"}


def test_a_round_is_placed_all_or_none(host):
    database, _ = host
    with pytest.raises(StoreError):  # a process the host does not know: nothing placed
        PostgresPlacements(database, ONE).place([(TWO, placement(1)), ("m:/gone.db", placement(2))])
    assert PostgresPlacements(database, ONE).answers("trn001", 1) == {}
    assert PostgresPlacements(database, TWO).pending() == []


def test_a_target_that_withdraws_takes_its_placements_with_it(host):
    database, directories = host
    PostgresPlacements(database, ONE).place([(ONE, placement(1)), (TWO, placement(2))])
    directories[TWO].withdraw()
    assert PostgresPlacements(database, ONE).answers("trn001", 1) == {
        1: None
    }  # the runner places 2 again
    assert PostgresPlacements(database, ONE).pending() == [placement(1)]


def test_a_table_made_as_placed_names_its_tournament_and_round(host):
    database, _ = host
    placements = PostgresPlacements(database, ONE)
    placements.place([(TWO, placement(1)), (TWO, placement(2))])
    PostgresPlacements(database, TWO).made(placement(1), "tab111")
    assert placements.rounds_of(["tab111", "tab222", "lone"]) == {"tab111": ("trn001", 1)}
    assert placements.rounds_of([]) == {}
