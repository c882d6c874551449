"""The standings read back from the store: stored outcomes, cover marks on moves, and the
rebuild a server runs at start from its database file."""

from __future__ import annotations

import json
import logging
import math
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import ProtocolError
from server.ratings.archive import rebuild
from server.ratings.host import HostStandings
from server.ratings.standings import Standings
from server.store.sqlite import SqliteStore
from server.store.tables import SeatRecord
from server.tables.outcome import Outcome, SeatResult
from server.tables.players import PlayerId

ANN, EASY = PlayerId("name:Ann"), PlayerId("bot:easy")
FIXTURES = Path(__file__).parents[1] / "tables" / "fixtures"  # the store's own


def outcome(table: str, n: int) -> Outcome:
    seats = (
        SeatResult(ANN, 21, 0.75, "Ann"),
        SeatResult(EASY, 4, 1.0, "Easy"),
        SeatResult(EASY, 9, 1.0, "Easy"),
    )
    return Outcome(table, n, f"2026-12-01T21:00:0{n}.000000", seats, (0,))


def stored_games(path: str) -> SqliteStore:
    store = SqliteStore(path)
    for n in (1, 2):
        store.tables.start_game("t1", n, seed=n)
        store.tables.add_move("t1", n, 0, 0, {"kind": "discard_fate", "card": 3})
        store.tables.add_move("t1", n, 1, 0, {"kind": "discard_fate", "card": 4}, cover=True)
        store.outcomes.finish_game("t1", n, outcome("t1", n).to_json())
    store.tables.start_game("t1", 3, seed=3)  # still being played: no outcome
    return store


def test_outcomes_and_cover_marks_come_back_from_the_store(tmp_path):
    store = stored_games(str(tmp_path / "games.db"))
    assert store.tables.movers("t1", 1) == [(0, False), (0, True)]
    rows = sorted(store.outcomes.all())
    assert [(t, n) for t, n, _ in rows] == [("t1", 1), ("t1", 2)]
    assert Outcome.from_json("t1", 1, rows[0][2]) == outcome("t1", 1)


def test_a_seat_keeps_the_game_its_player_left_in(tmp_path):
    store = SqliteStore(str(tmp_path / "games.db"))
    store.tables.save_seats("t1", [SeatRecord(0, "Ann", None, "heuristic", None, left_game=2)])
    assert store.database.connection.execute("SELECT left_game FROM seats").fetchone() == (2,)


def test_a_rebuild_from_the_database_file_equals_the_standings_of_its_games(tmp_path):
    path = str(tmp_path / "games.db")
    stored_games(path).close()
    rebuilt = rebuild(path)
    assert rebuilt.rows() == Standings.rebuild([outcome("t1", 1), outcome("t1", 2)]).rows()
    assert rebuilt.records[ANN].games == 2 and rebuilt.records[EASY].games == 4


def test_the_games_of_a_table_made_to_play_on_count_nowhere_in_a_rebuild(tmp_path):
    """Whichever server stored them: the store says which tables began at a position, and
    every game of those (a rematch's too) is practice (issue 29 §4)."""
    path = str(tmp_path / "games.db")
    store = stored_games(path)
    store.tables.start_game("t2", 1, seed=1)  # another table, dealt: it counts
    store.outcomes.finish_game("t2", 1, outcome("t2", 1).to_json())
    connection = store.database.connection
    connection.execute("UPDATE games SET start = '{}' WHERE table_id = 't1' AND game_no = 1")
    connection.commit()
    assert store.tables.played_on("t1") and not store.tables.played_on("t2")
    assert store.outcomes.practice_tables() == {"t1"}
    store.close()
    rebuilt = rebuild(path)
    assert rebuilt.records[ANN].games == 1 and rebuilt.records[EASY].games == 2


def test_an_unreadable_outcome_is_left_out_and_logged(tmp_path, caplog):
    path = str(tmp_path / "games.db")
    store = stored_games(path)
    store.database.connection.execute(
        "UPDATE games SET outcome = '{\"seats\": 7}' WHERE game_no = 2"
    )
    store.close()
    with caplog.at_level(logging.ERROR, logger="gother.server"):
        rebuilt = rebuild(path)
    assert rebuilt.records[ANN].games == 1
    assert "game 2 of table t1: its outcome cannot be read" in caplog.text


def test_no_database_yet_is_empty_standings(tmp_path):
    assert rebuild(str(tmp_path / "none.db")).rows() == []
    assert rebuild(":memory:").rows() == []


def test_games_played_out_before_outcomes_were_stored_are_replayed(tmp_path):
    path = tmp_path / "games.db"
    shutil.copy(FIXTURES / "schema0.db", path)  # done01 is over, mid001 is being played
    rebuilt = rebuild(str(path))
    assert set(rebuilt.records) == {PlayerId("name:P0"), PlayerId("name:P1"), PlayerId("name:P2")}
    assert all(record.games == 1 for record in rebuilt.records.values())
    assert sum(record.wins for record in rebuilt.records.values()) >= 1
    assert rebuilt.rated == {("done01", 1)}


async def test_a_rebuild_that_fails_refuses_the_standings_and_says_why(tmp_path, caplog):
    store = stored_games(str(tmp_path / "games.db"))  # has games: a rebuild is due
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    host = HostStandings(str(garbage), store.outcomes)
    with caplog.at_level(logging.ERROR, logger="gother.server"):
        host.start()
        await host.when_rebuilt()
    assert not host.rebuilding
    with pytest.raises(ProtocolError) as refused:
        host.page(0, rid=3)
    assert refused.value.code == "no_standings"
    assert "could not be rebuilt from the archive: the rebuild exited with 1" in caplog.text


HOSTILE = {
    "no seats": '{"finished": "2026-12-01T22:00:00", "winners": [0], "seats": []}',
    "one seat": '{"finished": "x", "winners": [0], "seats": [["name:Eve", 9, 1.0]]}',
    "no winner": '{"finished": "x", "winners": [], "seats": [["name:Eve", 9, 1.0], '
    '["name:Bo", 1, 1.0], ["name:Cy", 2, 1.0]]}',
    "a winner of no seat": '{"finished": "x", "winners": [7], "seats": [["name:Eve", 9, 1.0], '
    '["name:Bo", 1, 1.0], ["name:Cy", 2, 1.0]]}',
    "a share past 1": '{"finished": "x", "winners": [0], "seats": [["name:Eve", 9, 1e308], '
    '["name:Bo", 1, 1.0], ["name:Cy", 2, 1.0]]}',
}


def stored_with_hostile_rows(path: str) -> SqliteStore:
    store = stored_games(path)
    for n, text in enumerate(HOSTILE.values(), 10):
        store.tables.start_game("bad", n, seed=n)
        store.outcomes.finish_game("bad", n, text)
    return store


def test_a_hostile_outcome_row_is_left_out_with_a_log_line(tmp_path, caplog):
    """One outcome row with no seats aborted the whole rebuild (`no_standings` for
    everyone); each broken row is skipped now, and the host's log says which."""
    path = str(tmp_path / "games.db")
    stored_with_hostile_rows(path).close()
    with caplog.at_level(logging.ERROR, logger="gother.server"):
        rebuilt = rebuild(path)
    assert rebuilt.rows() == Standings.rebuild([outcome("t1", 1), outcome("t1", 2)]).rows()
    for n in range(10, 10 + len(HOSTILE)):
        assert f"game {n} of table bad: its outcome cannot be read" in caplog.text


async def test_a_host_with_a_hostile_outcome_row_still_shows_its_standings(tmp_path):
    path = str(tmp_path / "games.db")
    store = stored_with_hostile_rows(path)
    host = HostStandings(path, store.outcomes)
    host.start()  # the rebuild, in a process of its own, as at a server's start
    await host.when_rebuilt()
    page = host.page(0, rid=1)
    assert {(row.player, row.games) for row in page.rows} == {(ANN, 2), (EASY, 4)}
    store.close()


@given(
    seats=st.lists(
        st.tuples(st.sampled_from(["name:A", "bot:easy", "id:x"]), st.integers(-(2**40), 2**40),
                  st.floats(allow_nan=True, allow_infinity=True)),
        max_size=8,
    ),
    winners=st.lists(st.integers(-2, 9), max_size=4),
)  # fmt: skip
def test_a_stored_outcome_is_refused_or_rated_with_finite_numbers(seats, winners):
    text = json.dumps({"finished": "2026-12-01T21:00:00", "winners": winners, "seats": seats})
    try:
        read = Outcome.from_json("t", 1, text)
    except ValueError:
        return  # left out of the rebuild, logged
    standings = Standings.rebuild([read])
    for row in standings.rows():
        assert math.isfinite(row.rating.mu) and math.isfinite(row.rating.sigma)
